"""The tournament engine (R14 in docs/rules.md): the pure part of a knockout tournament.

The provably fair draw (or the seeding by rating), the bracket's shape, its tables and byes,
the places, the prize table and the prizes, and the whole bracket replayed from the revealed
seed. Standard library and ``games.engine`` only: no Django, no database, nothing that does
I/O. This module is the public facade; other code imports from ``tournaments.engine`` only.
"""

from tournaments.engine.bracket import (
    BracketShape,
    ReplayedTable,
    bracket_opening,
    bracket_replay,
    bracket_shape,
    check_format,
    first_round,
    going_on,
    is_played,
    ranking_by_draw,
    table_from_feeders,
)
from tournaments.engine.draw import DRAW_LABEL, draw_order, new_server_seed, seed_commitment
from tournaments.engine.places import PlaceGroup, places_of_final, places_of_round
from tournaments.engine.prizes import (
    BPS,
    MAX_PAID_PLACES,
    check_prize_table,
    default_prize_table,
    place_shares,
    prize_amounts,
    satellite_prizes,
)
from tournaments.engine.seeding import seed_slots, seeded_first_round, seeding_order

__all__ = [
    "BPS",
    "DRAW_LABEL",
    "MAX_PAID_PLACES",
    "BracketShape",
    "PlaceGroup",
    "ReplayedTable",
    "bracket_opening",
    "bracket_replay",
    "bracket_shape",
    "check_format",
    "check_prize_table",
    "default_prize_table",
    "draw_order",
    "first_round",
    "going_on",
    "is_played",
    "new_server_seed",
    "place_shares",
    "places_of_final",
    "places_of_round",
    "prize_amounts",
    "ranking_by_draw",
    "satellite_prizes",
    "seed_commitment",
    "seed_slots",
    "seeded_first_round",
    "seeding_order",
    "table_from_feeders",
]
