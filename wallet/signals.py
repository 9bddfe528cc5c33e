"""Signals the wallet sends; other apps connect receivers (the wallet knows no games).

``player_money_moved``: a transaction that posted to players' wallets (their money or their
practice chips) has committed. Sent once per transaction, after the commit, with every
player it touched and why (the ledger transactions' kinds):

    player_money_moved.send(sender=LedgerTransaction, moves={player_id: ("buy_in", ...)})

The posting kernel (``wallet.ledger.post``) calls ``money_moved_on_commit`` for each
posting, so every way money reaches or leaves a player's wallet is covered: buy-ins and
refunds, payouts, voids, deposits and withdrawals, adjustments, practice chips and the
mirrors of a seamless operator's wallet calls. Games connects a receiver that tells the
player's own socket (docs/realtime.md "The player's socket"), which then reads the wallet.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.dispatch import Signal

from gin_platform.enqueue import run_logged
from wallet.models import LedgerTransaction

player_money_moved = Signal()  # kwargs: moves (dict: player id -> tuple of kinds)

_local = threading.local()


class _MovesOfOneTransaction:
    """The players and kinds of one transaction's postings, sent once when it commits."""

    def __init__(self) -> None:
        self.moves: dict[Any, list[str]] = {}

    def add(self, *, player_ids: Iterable[Any], kind: str) -> None:
        for player_id in player_ids:
            kinds = self.moves.setdefault(player_id, [])
            if kind not in kinds:
                kinds.append(kind)

    def __call__(self) -> None:
        moves = {player_id: tuple(kinds) for player_id, kinds in self.moves.items()}
        run_logged(
            lambda: player_money_moved.send(sender=LedgerTransaction, moves=moves),
            what=f"money moved of players {sorted(map(str, moves))}",
        )


def money_moved_on_commit(*, player_ids: Iterable[Any], kind: str) -> None:
    """Once the current transaction commits, tell ``player_money_moved`` that these
    players' money moved (``kind``: the posting's). One send per transaction, however many
    postings it holds (a settlement batch pays many games): the first posting registers the
    send, the next ones add to it while it is still registered. A rolled-back transaction
    (or savepoint) drops it with its other callbacks, and the next posting registers anew."""
    player_ids = list(player_ids)
    if not player_ids:
        return
    connection = transaction.get_connection()
    pending: _MovesOfOneTransaction | None = getattr(_local, "pending", None)
    registered = pending is not None and any(
        hook is pending for _savepoints, hook, _robust in connection.run_on_commit
    )
    if pending is not None and registered:
        pending.add(player_ids=player_ids, kind=kind)
        return
    pending = _MovesOfOneTransaction()
    pending.add(player_ids=player_ids, kind=kind)
    _local.pending = pending
    transaction.on_commit(pending)  # at once outside a transaction
