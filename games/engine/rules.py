"""Room rule options (R6, R7, R9, R12): the choices an operator makes per room."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

KNOCK_LIMITS = tuple(range(11))  # R6: knock with deadwood <= limit (default 10); R9 room option
GIN_BONUSES = (20, 25)  # R9
BIG_GIN_BONUSES = (25, 31, 50)  # R9
UNDERCUT_BONUSES = (10, 20, 25)  # R9
TIE_RULES = ("undercut", "no_score")  # R9: D == K is an undercut, or nobody scores
STOCK_EXHAUSTION_RULES = ("void", "reshuffle")  # R7
SEAT_COUNTS = (2, 3, 4)  # R12: heads-up, or three and four players
MAX_RESHUFFLES = tuple(range(11))  # R12: reshuffles before a 3-4 player hand is void
DEFAULT_MAX_RESHUFFLES = 2  # R12

_ALLOWED = {
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
    # None: the default for the seat count (R7 "void" heads-up, R12 "reshuffle" with 3-4).
    stock_exhaustion: str = None  # type: ignore[assignment]
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

    def to_dict(self) -> dict:
        data = asdict(self)
        if not self.is_multi:
            for name in _MULTI_ONLY:
                del data[name]
        return data

    @classmethod
    def from_dict(cls, data: dict) -> RuleSet:
        known = {field.name for field in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown rule options: {', '.join(unknown)}")
        return cls(**data)
