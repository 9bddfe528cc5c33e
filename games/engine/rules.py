"""The rules a room chooses and what the number of seats changes (docs/rules.md).

- :class:`RuleSet`: the room options of R6, R7, R9 and R12 (knock limit, bonuses, tie rule,
  a low stock, seats).
- The variants and their targets (R10, R12) and the prize tables (R12).
- :class:`SeatRules`: what R12 changes for three and four players (deal size, scoring, a low
  stock, leaving, First To Knock, variants, prize tables). Every other rule, the upcard offer
  going round from the dealer's left, turns passing clockwise, knocking within the limit and
  each opponent laying off on its own onto the knocker's melds, is the same for two, three
  and four seats and is written once.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

KNOCK_LIMITS = tuple(range(11))  # R6: knock with deadwood <= limit (default 10); R9 room option
GIN_BONUSES = (20, 25)  # R9
BIG_GIN_BONUSES = (25, 31, 50)  # R9
UNDERCUT_BONUSES = (10, 20, 25)  # R9
TIE_RULES = ("undercut", "no_score")  # R9: D == K is an undercut, or nobody scores
STOCK_EXHAUSTION_RULES = ("void", "reshuffle")  # R7
SEAT_COUNTS = (2, 3, 4)  # R12: heads-up, or three and four players
MAX_RESHUFFLES = tuple(range(11))  # R12: reshuffles before a 3-4 player hand is void
DEFAULT_MAX_RESHUFFLES = 2  # R12

# The variants' names (R10, R12), one vocabulary for the engine, the database and the API.
FIRST_TO_KNOCK, MATCH_PLAY, MONEY_PLAY = "ftk", "match", "money"
VARIANTS = (FIRST_TO_KNOCK, MATCH_PLAY, MONEY_PLAY)
MATCH_PLAY_TARGETS = (100, 250, 500)  # R10 Match Play
MONEY_PLAY_TARGETS = (50, 100)  # R10 Money Play
DEFAULT_PENALTY_TARGET = 100  # R12 Match Play with penalty points

WINNER_TAKES_ALL = "winner_takes_all"
# R12 prize tables: percentages of the pot less the fee, by place.
PRIZE_TABLES: dict[str, tuple[int, ...]] = {
    WINNER_TAKES_ALL: (100,),
    "70_30": (70, 30),
    "65_35": (65, 35),
    "50_30_20": (50, 30, 20),
}


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatRules:
    """What the number of seats changes: R1-R11 for two players, R12 for three and four."""

    seats: int
    # R3: ten cards each; R12: seven. A player holds one more after drawing.
    hand_size: int
    # R9: the hand's winner scores points; R12: each seat is charged penalty points.
    penalty_scoring: bool
    # R7: the stock is reshuffled whenever it runs low; R12: ``max_reshuffles`` times at most.
    reshuffles_limited: bool
    # R10: a forfeit ends a heads-up game; R12: with two players left it goes on without
    # the leaver, whose cards are dead.
    play_on_after_forfeit: bool
    # R10: First To Knock goes to the first out, even undercut; R12: to the hand's winner.
    ftk_to_hand_winner: bool
    # R10: three variants; R12: Money Play stays heads-up.
    variants: tuple[str, ...]
    # R12: the prize tables for this many players (heads-up: none, R10 pays the winner).
    prize_tables: tuple[str, ...]
    # The rules a refused action cites: a turn (the card just taken), going out, and the
    # upcard offer once everybody passed.
    turn_rule: str
    going_out_rule: str
    all_passed: str

    @property
    def held_after_drawing(self) -> int:
        return self.hand_size + 1


# R12: the prize tables each seat count may use.
_PRIZE_TABLES_FOR: dict[int, tuple[str, ...]] = {
    2: (),
    3: (WINNER_TAKES_ALL, "70_30"),
    4: (WINNER_TAKES_ALL, "65_35", "50_30_20"),
}


def _rules_for(seats: int) -> SeatRules:
    """Each difference side by side: heads-up (R1-R11), else three and four players (R12)."""
    heads_up = seats == 2
    return SeatRules(
        seats=seats,
        hand_size=10 if heads_up else 7,
        penalty_scoring=not heads_up,
        reshuffles_limited=not heads_up,
        play_on_after_forfeit=not heads_up,
        ftk_to_hand_winner=not heads_up,
        variants=VARIANTS if heads_up else (FIRST_TO_KNOCK, MATCH_PLAY),
        prize_tables=_PRIZE_TABLES_FOR[seats],
        turn_rule="R5" if heads_up else "R12",
        going_out_rule="R6" if heads_up else "R12",
        all_passed=(
            "both players passed the upcard: draw from the stock (R4.3)"
            if heads_up
            else "everybody passed the upcard: draw from the stock (R12)"
        ),
    )


HEADS_UP, THREE_PLAYERS, FOUR_PLAYERS = (_rules_for(seats) for seats in SEAT_COUNTS)
SEAT_RULES = {rules.seats: rules for rules in (HEADS_UP, THREE_PLAYERS, FOUR_PLAYERS)}
# R12: the seat counts each prize table fits.
PRIZE_TABLE_SEATS: dict[str, tuple[int, ...]] = {
    table: tuple(seats for seats, rules in SEAT_RULES.items() if table in rules.prize_tables)
    for table in PRIZE_TABLES
}


def seat_rules(seats: object) -> SeatRules:
    """The rules for ``seats`` players (2, 3 or 4), else ``ValueError``."""
    if type(seats) is not int or seats not in SEAT_RULES:
        raise ValueError(f"a table has 2, 3 or 4 seats, got {seats!r}")
    return SEAT_RULES[seats]


def check_variant(variant: str) -> str:
    """``ftk`` (First To Knock), ``match`` (Match Play) or ``money`` (Money Play): R10."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; choose one of {', '.join(VARIANTS)}")
    return variant


def targets_for(variant: str) -> tuple[int, ...]:
    """R10: the targets a game of ``variant`` may play to (none for First To Knock)."""
    return {
        FIRST_TO_KNOCK: (),
        MATCH_PLAY: MATCH_PLAY_TARGETS,
        MONEY_PLAY: MONEY_PLAY_TARGETS,
    }[check_variant(variant)]


def check_prize_table(table: str, seats: int, variant: str = MATCH_PLAY) -> str:
    """R12: the prize tables a table of ``seats`` (3 or 4) may use. First To Knock pays the
    hand's winner the whole pot less the fee, so it is always winner takes all."""
    if type(seats) is not int or seats not in (3, 4):
        raise ValueError(f"an R12 table has 3 or 4 seats, got {seats!r}")
    if table not in PRIZE_TABLES:
        raise ValueError(f"unknown prize table {table!r}; one of {', '.join(PRIZE_TABLES)}")
    if table not in SEAT_RULES[seats].prize_tables:
        raise ValueError(f"prize table {table} is not for {seats} players (R12)")
    if check_variant(variant) == FIRST_TO_KNOCK and table != WINNER_TAKES_ALL:
        raise ValueError("First To Knock pays the hand's winner: winner_takes_all (R12)")
    return table


_ALLOWED: dict[str, tuple[object, ...]] = {
    "knock_limit": KNOCK_LIMITS,
    "gin_bonus": GIN_BONUSES,
    "big_gin_bonus": BIG_GIN_BONUSES,
    "undercut_bonus": UNDERCUT_BONUSES,
    "tie_rule": TIE_RULES,
    "stock_exhaustion": STOCK_EXHAUSTION_RULES,
    "seats": SEAT_COUNTS,
    "max_reshuffles": MAX_RESHUFFLES,
}
# R12: options that only exist with 3-4 seats; a heads-up RuleSet leaves them out of to_dict()
# so its JSON is exactly the R1-R11 shape.
_MULTI_ONLY = ("seats", "max_reshuffles")


@dataclass(frozen=True, slots=True, kw_only=True)
class RuleSet:
    """The rule options of a room, with the defaults of R6, R7, R9 and R12 (docs/rules.md).

    ``seats`` is 2 (heads-up, R1-R11) or 3-4 (R12). With 3-4 seats ``tie_rule`` must stay at
    its default (R12 ignores it: ``D_i == K`` is an undercut), ``stock_exhaustion`` defaults
    to ``reshuffle`` and ``max_reshuffles`` (default 2) reshuffles are allowed before the hand
    is void. With 2 seats ``max_reshuffles`` must stay at its default (R7 has no limit).
    """

    knock_limit: int = 10
    gin_bonus: int = 25
    big_gin_bonus: int = 31
    undercut_bonus: int = 25
    tie_rule: str = "undercut"
    # None: the default for the seat count (R7 "void" heads-up, R12 "reshuffle" with 3-4);
    # __post_init__ replaces it, so a built RuleSet always holds a str.
    stock_exhaustion: str = None  # type: ignore[assignment]  # None until __post_init__
    seats: int = 2
    max_reshuffles: int = DEFAULT_MAX_RESHUFFLES

    def __post_init__(self) -> None:
        if self.stock_exhaustion is None:
            multi = type(self.seats) is int and self.seats > 2
            object.__setattr__(self, "stock_exhaustion", "reshuffle" if multi else "void")
        for name, allowed in _ALLOWED.items():
            value = getattr(self, name)
            # Exact type: refuse True (an int subclass), 10.0 and "10" alike.
            if type(value) is not type(allowed[0]) or value not in allowed:
                choices = ", ".join(repr(choice) for choice in allowed)
                raise ValueError(f"{name}={value!r} is not allowed; choose one of {choices}")
        if self.seats > 2 and self.tie_rule != "undercut":
            raise ValueError("tie_rule is for two players only (R12): leave it at 'undercut'")
        if self.seats == 2 and self.max_reshuffles != DEFAULT_MAX_RESHUFFLES:
            raise ValueError("max_reshuffles is for three and four players only (R12)")

    @property
    def is_multi(self) -> bool:
        """R12: a three- or four-player table."""
        return self.seats > 2

    @property
    def seat_rules(self) -> SeatRules:
        """What this table's number of seats changes (R12)."""
        return SEAT_RULES[self.seats]

    def to_dict(self) -> dict[str, Any]:
        # The fields in declaration order, as ``asdict`` gives them, without its deep copy:
        # every value is an int or a str (a move's stored state and each view call this).
        names = _RULE_FIELDS if self.is_multi else _HEADS_UP_RULE_FIELDS
        return {name: getattr(self, name) for name in names}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RuleSet:
        known = {field.name for field in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown rule options: {', '.join(unknown)}")
        return cls(**data)


_RULE_FIELDS = tuple(field.name for field in fields(RuleSet))
_HEADS_UP_RULE_FIELDS = tuple(name for name in _RULE_FIELDS if name not in _MULTI_ONLY)
