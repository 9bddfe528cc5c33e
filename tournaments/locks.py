"""Row locks of tournaments (one lock helper module per app).

The tournament's row is the one lock of a tournament's own steps: every change of a
tournament, its entries and its bracket takes it first, then a bracket table's row, then
whatever games and the wallet lock inside their services (a match's table, the ledger's
accounts in key order). Nothing in games or the wallet ever takes a tournament's lock, so
the order cannot invert. The tournament's row is taken in three strengths:

- ``FOR UPDATE`` (``lock_tournament``): the start, registration, a cancellation; it waits
  for, and keeps out, everything below;
- ``FOR NO KEY UPDATE`` (``lock_tournament_for_results``): a results' take, one at a time;
- ``FOR KEY SHARE`` (``share_tournament``): a seating, which opens one table's match (under
  that table's own lock) beside the others and beside a results' take, and keeps a
  cancellation waiting until its match is open, so the cancellation finds and ends it.

A staff request (four eyes) is locked before its tournament: approving one locks the
request, then the tournament it cancels (or creates nothing yet to lock):

    TournamentRequest  ->  Tournament  ->  (games' Table, Match, ...)  ->  (wallet's accounts)
"""

from __future__ import annotations

from django.db import OperationalError, connection
from psycopg.errors import LockNotAvailable

from tournaments.models import BracketTable, Tournament, TournamentRequest


def lock_tournament(tournament_id: int) -> Tournament:
    return Tournament.objects.select_for_update().get(pk=tournament_id)


def lock_tournament_for_results(tournament_id: int) -> Tournament:
    """The lock a results' take holds: takers queue here one at a time, seatings do not."""
    return Tournament.objects.select_for_update(no_key=True).get(pk=tournament_id)


def share_tournament(tournament_id: int) -> Tournament:
    """The tournament read with ``FOR KEY SHARE``: a seating's lock (see above). SQLite has no
    row locks."""
    if connection.vendor != "postgresql":
        return Tournament.objects.get(pk=tournament_id)
    return Tournament.objects.raw(  # the ORM spells no FOR KEY SHARE
        "SELECT * FROM tournaments_tournament WHERE id = %s FOR KEY SHARE", [tournament_id]
    )[0]


def lock_bracket_table(table_id: int) -> BracketTable:
    """One table of the bracket, after its tournament's lock: its seating runs once."""
    return BracketTable.objects.select_for_update().get(pk=table_id)


class TournamentLockBusy(Exception):
    """The tournament's lock was held longer than the caller would wait."""


def lock_tournament_waiting(tournament_id: int, *, seconds: float) -> Tournament:
    """The tournament locked for a results' take, waiting at most ``seconds`` for its holder
    (PostgreSQL's ``lock_timeout``, for this statement only), else ``TournamentLockBusy``,
    which rolls back the transaction it leaves. SQLite has no row locks to wait for."""
    if connection.vendor != "postgresql":
        return lock_tournament_for_results(tournament_id)
    with connection.cursor() as cursor:
        cursor.execute(f"SET LOCAL lock_timeout = {max(1, round(seconds * 1000))}")
        try:
            tournament = lock_tournament_for_results(tournament_id)
        except OperationalError as error:
            if isinstance(error.__cause__, LockNotAvailable):
                raise TournamentLockBusy(tournament_id) from error
            raise
        cursor.execute("SET LOCAL lock_timeout TO DEFAULT")
    return tournament


def lock_tournament_request(*, request_id: int) -> TournamentRequest:
    """Lock a staff request before anything it touches: two approvers of one request queue
    here, and it executes once."""
    return TournamentRequest.objects.select_for_update(of=("self",)).get(pk=request_id)
