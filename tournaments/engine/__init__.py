"""The tournament engine (R14 in docs/rules.md): the pure part of a knockout tournament.

The provably fair draw, each round's tables and byes, the places, the prize table and the
prizes, and the whole bracket replayed from the revealed seed. Standard library and
``games.engine`` only: no Django, no database, nothing that does I/O. This module is the
public facade; other code imports from ``tournaments.engine`` only.
"""

from tournaments.engine.draw import DRAW_LABEL, draw_order, new_server_seed, seed_commitment
from tournaments.engine.places import PlaceGroup, places_of_final, places_of_round
from tournaments.engine.prizes import (
    BPS,
    MAX_PAID_PLACES,
    check_prize_table,
    default_prize_table,
    place_shares,
    prize_amounts,
)
from tournaments.engine.replay import Bracket, Results, bracket_replay
from tournaments.engine.rounds import (
    SEATS,
    RoundPlan,
    bye_count,
    check_format,
    plan_round,
    ranking_by_draw,
    table_sizes,
)

__all__ = [
    "BPS",
    "DRAW_LABEL",
    "MAX_PAID_PLACES",
    "SEATS",
    "Bracket",
    "PlaceGroup",
    "Results",
    "RoundPlan",
    "bracket_replay",
    "bye_count",
    "check_format",
    "check_prize_table",
    "default_prize_table",
    "draw_order",
    "new_server_seed",
    "place_shares",
    "places_of_final",
    "places_of_round",
    "plan_round",
    "prize_amounts",
    "ranking_by_draw",
    "seed_commitment",
    "table_sizes",
]
