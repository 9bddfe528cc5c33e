"""Idempotency by reference: every posting is unique by its ledger reference. The same
request again returns the first transaction; anything else under the reference is
``reference-conflict``."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from typing import Any, ParamSpec, TypeVar

from django.db import IntegrityError

from gin_platform.models import Player
from wallet.models import LedgerTransaction
from wallet.problems import ReferenceConflictProblem

P = ParamSpec("P")
R = TypeVar("R")

# "Any value": a field of the request that a replay need not match.
ANY: Any = object()

_UNIQUE_POSTING = re.compile(r"wallet_ledgertransaction.?(reference|reverses)", re.IGNORECASE)


def _transaction_replay(
    reference: str,
    *,
    kind: str,
    player: Player | object | None = ANY,
    game_ref: str | object = ANY,
    amount: int | object = ANY,
    currency: str | object = ANY,
    reverses: LedgerTransaction | object = ANY,
) -> LedgerTransaction | None:
    existing: LedgerTransaction | None = LedgerTransaction.objects.filter(
        reference=reference
    ).first()
    if existing is None:
        return None
    expected = {
        "kind": kind,
        "player_id": player.pk if isinstance(player, Player) else player,
        "game_ref": game_ref,
        "amount": amount,
        "currency": currency,
        "reverses_id": reverses.pk if isinstance(reverses, LedgerTransaction) else reverses,
    }
    differs = [
        name
        for name, value in expected.items()
        if value is not ANY and getattr(existing, name) != value
    ]
    if differs:
        raise ReferenceConflictProblem(
            f"reference {reference!r} was already used for {existing.kind} "
            f"#{existing.pk} with a different {', '.join(differs)}",
            reference=reference,
            transaction_id=existing.pk,
        )
    return existing


def posting_replay(*, reference: str, same: Mapping[str, Any]) -> LedgerTransaction | None:
    """The transaction already posted under ``reference`` if it was the same request
    (``same``: kind, and any of player, game_ref, amount, currency, reverses it must
    match), None if the reference is unused; a different request is
    ``reference-conflict``. ``posting_make`` checks it under the locks; services with work
    to skip on a replay check it before locking too."""
    return _transaction_replay(reference, **same)


def reference_guard(service: Callable[P, R]) -> Callable[P, R]:
    """Wrap a posting service (outside its transaction): a unique-reference race lost to a
    concurrent posting on other accounts (its transaction, or savepoint, already rolled
    back) becomes ``reference-conflict`` instead of an ``IntegrityError``."""

    @functools.wraps(service)
    def guarded(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return service(*args, **kwargs)
        except IntegrityError as exc:
            if not _UNIQUE_POSTING.search(str(exc)):
                raise
            raise ReferenceConflictProblem(
                "the reference (or the reversal of this transaction) was taken by a "
                "concurrent posting",
                reference=kwargs.get("reference"),
            ) from exc

    return guarded
