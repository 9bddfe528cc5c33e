"""What a tournament's watchers are sent, built by the presenters of the REST answers
(tournaments/api/presenters.py) for one viewer: an operator's id, players named as that
operator sees them (``GET .../bracket``)."""

from __future__ import annotations

from typing import Any

from tournaments import selectors
from tournaments.api import presenters
from tournaments.models import BracketTable, Tournament

# A snapshot is read again when a change committed while it was read (its version moved).
SNAPSHOT_TRIES = 5


def tables_shown(
    tables: list[BracketTable], *, tournament: Tournament, viewer: object
) -> list[dict[str, Any]]:
    """``tables`` as ``viewer`` sees them, their players read once for all of them."""
    entry_ids = sorted({entry_id for table in tables for entry_id in table.entries})
    entries = selectors.entries_by_id(tournament=tournament, entry_ids=entry_ids)
    return [
        presenters.bracket_table_dict(table, tournament=tournament, entries=entries, viewer=viewer)
        for table in tables
    ]


def bracket_snapshot(*, tournament_id: int, viewer: object) -> dict[str, Any] | None:
    """The tournament (with what each paid place is worth) and its whole bracket as
    ``viewer`` sees them, at one ``version``: read again while a change commits meanwhile
    (each change moves the version in its own transaction), so the tables are exactly those
    of that version. None once the tournament no longer exists."""
    snapshot = None
    for _ in range(SNAPSHOT_TRIES):
        tournament = selectors.tournament_for_push(tournament_id=tournament_id)
        if tournament is None:
            return None
        tables = selectors.bracket_tables(tournament=tournament)
        snapshot = {
            "version": tournament.bracket_version,
            "tournament": presenters.tournament_detail_dict(tournament),
            "bracket": tables_shown(tables, tournament=tournament, viewer=viewer),
        }
        if selectors.bracket_version(tournament_id=tournament_id) == tournament.bracket_version:
            break
    return snapshot
