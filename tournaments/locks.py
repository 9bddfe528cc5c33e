"""Row locks of tournaments (one lock helper module per app).

The tournament's row is the one lock: every change of a tournament, its entries and its
bracket takes it first, then whatever games and the wallet lock inside their services (a
match's table, the ledger's accounts in key order). Nothing in games or the wallet ever
takes a tournament's lock, so the order cannot invert.
"""

from __future__ import annotations

from tournaments.models import Tournament


def lock_tournament(tournament_id: int) -> Tournament:
    return Tournament.objects.select_for_update().get(pk=tournament_id)
