"""What a signal answers: a ``Finding`` (the score, the threshold it is held against, the
player it points at and the reasoning stored on the alert), and the population's figures
the pair signals take their baselines from."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Sum

from integrity.detection.stats import shrunk_rate
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


@dataclass(frozen=True)
class RateAgainstPair:
    """One direction of a pair's rate test (soft play, feeding): ``hits`` of ``trials`` by
    ``actor`` against ``opponent``, and ``p0``, the actor's own rate elsewhere shrunk
    towards the population's (``base``, which leaves this pair out)."""

    actor: uuid.UUID
    opponent: uuid.UUID
    hits: int
    trials: int
    hits_elsewhere: int
    trials_elsewhere: int
    base: float
    p0: float


def rates_against_pair(
    *,
    pair: PairStats,
    low: PlayerStats,
    high: PlayerStats,
    population: Population,
    hits: str,
    trials: str,
    default_rate: float,
    min_trials: int,
    prior_weight: float,
    rate_floor: float,
) -> Iterator[RateAgainstPair]:
    """Each direction of the pair with at least ``min_trials``: the figures ``hits`` of
    ``trials`` (PlayerStats, PairStats ``_low``/``_high`` and Population names). The
    population's rate leaves the pair out: a colluding pair must not set the baseline it
    is held against."""
    base = population.rate(
        getattr(population, hits) - side(pair, hits, True) - side(pair, hits, False),
        getattr(population, trials) - side(pair, trials, True) - side(pair, trials, False),
        default_rate,
    )
    for is_low, player in ((True, low), (False, high)):
        n, k = side(pair, trials, is_low), side(pair, hits, is_low)
        if n < min_trials:
            continue
        hits_elsewhere = getattr(player, hits) - k
        trials_elsewhere = getattr(player, trials) - n
        p0 = shrunk_rate(
            hits=hits_elsewhere,
            trials=trials_elsewhere,
            prior_rate=base,
            prior_weight=prior_weight,
        )
        actor, opponent = pair_ids(pair) if is_low else pair_ids(pair)[::-1]
        yield RateAgainstPair(
            actor=actor,
            opponent=opponent,
            hits=k,
            trials=n,
            hits_elsewhere=hits_elsewhere,
            trials_elsewhere=trials_elsewhere,
            base=base,
            p0=max(p0, rate_floor),
        )


def strongest(findings: Iterator[Finding]) -> Finding | None:
    """The finding with the highest score (None for none)."""
    return max(findings, key=lambda finding: finding.score, default=None)
