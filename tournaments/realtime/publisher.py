"""The one module that pushes a tournament's changes to its watchers (docs/realtime.md "A
tournament's bracket"). ``tournaments.services.events.watchers_tell`` calls
``bracket_changed`` inside the transaction that changed what they see; nothing is sent
unless and until it commits.

The first change of a transaction moves the tournament's ``bracket_version`` on by one (its
callers hold the tournament's row lock, so versions commit in order); the later ones of the
same transaction join it, so a start that seats a whole round, or a result that seats the
next table and pays the round's places, is one push. After the commit each listened audience
(``audience.listened``) gets ONE message, rendered once for all its sockets:

    {"type": "bracket", "version": N, "changes": [...], "tournament": {...},
     "tables": [the tables that changed, as GET .../bracket shows them to that operator]}

The tables are read back after the commit, so a push never carries a row of a rolled-back
savepoint (a version that did not commit sends nothing). A push that fails (the channel
layer down) is logged and dropped: sockets repair from the database at their next push or
heartbeat, and the change itself has committed.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import partial

from django.db import connection, transaction
from django.db.models import F

from games.realtime.layer_send import group_send_many
from games.realtime.publisher import encode
from tournaments import selectors
from tournaments.api import presenters
from tournaments.models import Tournament
from tournaments.realtime.audience import listened, watch_group
from tournaments.realtime.render import tables_shown

logger = logging.getLogger(__name__)

PUSH = "tournament.push"  # the consumer's handler: ``tournament_push``
# What a push says happened, in the order it happened (a client may act on them: read its
# own entry again when places were paid, say).
CHANGES = frozenset(
    {
        "registration_opened",
        "entries",  # a registration, a withdrawal, a refund
        "started",  # the draw: every table of the bracket, round 1 seated
        "seated",  # a table's players known: its match opened, or a bye
        "result",  # a table's match over: who went on, who is out
        "places",  # a round's places (or the final's) paid
        "finished",
        "cancelled",
    }
)


@dataclass
class _Pending:
    tournament_id: int
    version: int
    hooks: object  # the connection's commit hooks this push was registered in
    changes: list[str] = field(default_factory=list)
    table_ids: set[int] = field(default_factory=set)


_local = threading.local()


def _pending() -> dict[int, _Pending]:
    if not hasattr(_local, "pending"):
        _local.pending = {}
    return _local.pending


def bracket_changed(*, tournament_id: int, change: str, table_ids: Iterable[int] = ()) -> None:
    """What ``tournament_id``'s watchers see changed in the current transaction (``change``,
    one of ``CHANGES``; the bracket tables it touched): pushed once it commits."""
    if change not in CHANGES:
        raise ValueError(f"unknown change of a tournament: {change!r}")
    hooks = connection.run_on_commit
    pending = _pending().get(tournament_id)
    joined = pending is not None and pending.hooks is hooks and connection.in_atomic_block
    if pending is None or not joined:
        Tournament.objects.filter(pk=tournament_id).update(bracket_version=F("bracket_version") + 1)
        version = selectors.bracket_version(tournament_id=tournament_id)
        assert version is not None  # the row was just updated
        pending = _Pending(tournament_id=tournament_id, version=version, hooks=hooks)
        _pending()[tournament_id] = pending
    if change not in pending.changes:
        pending.changes.append(change)
    pending.table_ids.update(table_ids)
    if not joined:  # registered last: outside a transaction it runs at once
        transaction.on_commit(partial(_publish_pending, pending), robust=True)


def _publish_pending(pending: _Pending) -> None:
    if _pending().get(pending.tournament_id) is pending:
        del _pending()[pending.tournament_id]
    try:
        publish(pending)
    except Exception:  # the change has committed; sockets repair gaps from the database
        logger.exception("push of tournament %s failed", pending.tournament_id)


def publish(pending: _Pending) -> None:
    """Render and send one message per listened audience. Reads nothing but the candidate
    operators and the cache when nobody listens."""
    tournament = selectors.tournament_for_push(tournament_id=pending.tournament_id)
    if tournament is None or tournament.bracket_version < pending.version:
        return  # the version did not commit (a savepoint rolled back): the beat repairs
    groups = {
        watch_group(tournament_id=tournament.pk, operator_id=operator_id): operator_id
        for operator_id in selectors.watching_operator_ids(tournament=tournament)
    }
    audiences = listened(list(groups))
    if not audiences:
        return
    tables = selectors.bracket_tables_by_id(
        tournament=tournament, table_ids=sorted(pending.table_ids)
    )
    shown = presenters.tournament_detail_dict(tournament)
    messages = []
    for group in audiences:
        text = encode(
            {
                "type": "bracket",
                "version": pending.version,
                "changes": pending.changes,
                "tournament": shown,
                "tables": tables_shown(tables, tournament=tournament, viewer=groups[group]),
            }
        )
        messages.append((group, {"type": PUSH, "version": pending.version, "text": text}))
    group_send_many(messages)
