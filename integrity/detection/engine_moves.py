"""Moves identical to a known engine's (docs/integrity.md "Engine moves"): the
platform's own bot (``games.engine.choose_action``, greedy and deterministic) is the engine
a script most likely copies.

Counted per decision with more than one legal choice (``same_as_engine``): whether the
player's action is the bot's for the replayed state. Statistic: k same of n, against
``HONEST_RATE`` (the most an honest player agrees with it: a strong player shares its
obvious choices, not all of its arbitrary ties): -log10 P(X >= k), X ~ B(n, HONEST_RATE),
raised only when the player also agrees at ``MIN_RATE`` or more.
"""

from __future__ import annotations

from games import engine
from integrity.detection.findings import Finding
from integrity.detection.stats import binomial_surprise
from integrity.models import Alert, PlayerStats

MIN_DECISIONS = 150
HONEST_RATE = 0.9
MIN_RATE = 0.97
THRESHOLD = 6.0


def same_as_engine(
    state: engine.HandState, seat: int, legal: tuple[engine.Action, ...], action: dict
) -> bool | None:
    """Whether ``action`` is the engine bot's choice; None when the turn had one choice."""
    if len({(choice.kind, choice.card) for choice in legal}) < 2:
        return None
    chosen = engine.choose_action(state, seat)
    played = engine.Action.from_dict(action, seat=seat)
    return (chosen.kind, chosen.card) == (played.kind, played.card)


def evaluate(*, stats: PlayerStats) -> Finding | None:
    n, k = stats.decisions, stats.engine_same
    if n < MIN_DECISIONS:
        return None
    rate = k / n
    score = binomial_surprise(k=k, n=n, p=HONEST_RATE) if rate >= MIN_RATE else 0.0
    return Finding(
        signal=Alert.Signal.BOT_ENGINE_MOVES,
        score=score,
        threshold=THRESHOLD,
        player=stats.player_id,
        other_player=None,
        reasoning={
            "statistic": "binomial upper tail, -log10 P(X >= same | decisions, honest rate)",
            "decisions": n,
            "same_as_engine": k,
            "rate": round(rate, 4),
            "honest_rate": HONEST_RATE,
            "min_rate": MIN_RATE,
        },
    )
