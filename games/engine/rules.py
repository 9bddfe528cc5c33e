"""Room rule options (R6, R7, R9): the choices an operator makes per room."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

KNOCK_LIMITS = tuple(range(11))  # R6: knock with deadwood <= limit (default 10); R9 room option
GIN_BONUSES = (20, 25)  # R9
BIG_GIN_BONUSES = (25, 31, 50)  # R9
UNDERCUT_BONUSES = (10, 20, 25)  # R9
TIE_RULES = ("undercut", "no_score")  # R9: D == K is an undercut, or nobody scores
STOCK_EXHAUSTION_RULES = ("void", "reshuffle")  # R7

_ALLOWED = {
    "knock_limit": KNOCK_LIMITS,
    "gin_bonus": GIN_BONUSES,
    "big_gin_bonus": BIG_GIN_BONUSES,
    "undercut_bonus": UNDERCUT_BONUSES,
    "tie_rule": TIE_RULES,
    "stock_exhaustion": STOCK_EXHAUSTION_RULES,
}


@dataclass(frozen=True, slots=True, kw_only=True)
class RuleSet:
    """The rule options of a room, with the defaults of R6, R7 and R9 (docs/rules.md)."""

    knock_limit: int = 10
    gin_bonus: int = 25
    big_gin_bonus: int = 31
    undercut_bonus: int = 25
    tie_rule: str = "undercut"
    stock_exhaustion: str = "void"

    def __post_init__(self) -> None:
        for name, allowed in _ALLOWED.items():
            value = getattr(self, name)
            # Exact type: refuse True (an int subclass), 10.0 and "10" alike.
            if type(value) is not type(allowed[0]) or value not in allowed:
                choices = ", ".join(repr(choice) for choice in allowed)
                raise ValueError(f"{name}={value!r} is not allowed; choose one of {choices}")

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> RuleSet:
        known = {field.name for field in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown rule options: {', '.join(unknown)}")
        return cls(**data)
