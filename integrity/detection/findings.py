"""What a signal answers: a ``Finding`` (the score, the threshold it is held against, the
player it points at and the reasoning stored on the alert), and the population's figures
the pair signals take their baselines from."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Sum

from integrity.models import PairStats, PlayerStats


@dataclass(frozen=True)
class Finding:
    """``player`` is who the signal points at (a pair's beneficiary: the receiver of dumped
    chips, the player soft-played or fed); ``other_player`` the other one of a pair."""

    signal: str
    score: float
    threshold: float
    player: uuid.UUID
    other_player: uuid.UUID | None
    reasoning: dict[str, Any] = field(default_factory=dict)

    @property
    def raised(self) -> bool:
        return self.score >= self.threshold


@dataclass(frozen=True)
class Population:
    """Everybody's figures together: the baselines of the rates, and the matches played."""

    knock_chances: int
    knocks_declined: int
    discards: int
    discards_useful: int
    games: int
    forfeits: int
    matches: int

    def rate(self, hits: int, trials: int, default: float) -> float:
        return hits / trials if trials else default

    @classmethod
    def read(cls) -> Population:
        totals = PlayerStats.objects.aggregate(
            knock_chances=Sum("knock_chances"),
            knocks_declined=Sum("knocks_declined"),
            discards=Sum("discards"),
            discards_useful=Sum("discards_useful"),
            games=Sum("games"),
            forfeits=Sum("forfeits"),
            seats=Sum("matches"),
        )
        value = {key: int(total or 0) for key, total in totals.items()}
        seats = value.pop("seats")
        return cls(**value, matches=seats // 2)


def pair_ids(pair: PairStats) -> tuple[uuid.UUID, uuid.UUID]:
    return pair.player_low_id, pair.player_high_id


def side(pair: PairStats, name: str, low: bool) -> int:
    """The pair's directed figure ``name`` for the low player (``low``) or the high one."""
    value: int = getattr(pair, f"{name}_{'low' if low else 'high'}")
    return value
