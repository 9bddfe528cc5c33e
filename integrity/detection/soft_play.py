"""Soft play (docs/integrity.md "Soft play"): a knock or gin open to a player and
not taken while the opponent is not behind, far more often against this opponent than the
player declines such knocks against everybody else.

Counted once per hand and player (``knock_chance``, at the first turn that offered it): a
turn where the player could knock or go gin (any legal knock, R6) while the opponent's match
score is at least the player's plus ``MIN_LEAD`` (First To Knock keeps no score: every such
turn counts); declined when the player did anything else. Once per hand, because a player who
passes a knock up usually passes the next one too: the hands are the independent trials.
Statistic: k hands declined of n against the opponent, against the player's own rate
elsewhere (shrunk towards the population's): -log10 P(X >= k), X ~ B(n, p0).
"""

from __future__ import annotations

from games import engine
from integrity.detection.findings import Finding, Population, side
from integrity.detection.stats import binomial_surprise, shrunk_rate
from integrity.models import Alert, PairStats, PlayerStats

MIN_LEAD = 0
MIN_CHANCES = 8
PRIOR_WEIGHT = 20.0
RATE_FLOOR = 0.02
THRESHOLD = 5.0  # a one-in-100,000 chance


def knock_chance(
    *,
    state: engine.HandState,
    seat: int,
    legal: tuple[engine.Action, ...],
    score: tuple[int, int],
    scored: bool,
) -> bool:
    """Whether this turn offered ``seat`` a knock or gin while the opponent is not behind
    (see the module); ``scored``: the match keeps a score (not First To Knock)."""
    if scored and score[1 - seat] - score[seat] < MIN_LEAD:
        return False
    return any(action.kind in ("knock", "big_gin") for action in legal)


def declined(action: dict) -> bool:
    return action.get("kind") not in ("knock", "big_gin")


def evaluate(
    *, pair: PairStats, low: PlayerStats, high: PlayerStats, population: Population
) -> Finding | None:
    """The stronger direction: the low player declining against the high one, or back."""
    # The population's rate without this pair's hands (a colluding pair must not set the
    # baseline it is held against).
    base = population.rate(
        population.knocks_declined - pair.knocks_declined_low - pair.knocks_declined_high,
        population.knock_chances - pair.knock_chances_low - pair.knock_chances_high,
        0.1,
    )
    best: Finding | None = None
    for is_low, player in ((True, low), (False, high)):
        n = side(pair, "knock_chances", is_low)
        k = side(pair, "knocks_declined", is_low)
        if n < MIN_CHANCES:
            continue
        p0 = max(
            shrunk_rate(
                hits=player.knocks_declined - k,
                trials=player.knock_chances - n,
                prior_rate=base,
                prior_weight=PRIOR_WEIGHT,
            ),
            RATE_FLOOR,
        )
        score = binomial_surprise(k=k, n=n, p=p0)
        beneficiary, decliner = (
            (pair.player_high_id, pair.player_low_id)
            if is_low
            else (pair.player_low_id, pair.player_high_id)
        )
        finding = Finding(
            signal=Alert.Signal.SOFT_PLAY,
            score=score,
            threshold=THRESHOLD,
            player=beneficiary,
            other_player=decliner,
            reasoning={
                "statistic": "binomial upper tail, -log10 P(X >= declined | chances, p0), "
                "hands with a knock chance",
                "soft_player": str(decliner),
                "declined": k,
                "chances": n,
                "p0": round(p0, 4),
                "p0_from": {
                    "declined_elsewhere": player.knocks_declined - k,
                    "chances_elsewhere": player.knock_chances - n,
                    "population_rate": round(base, 4),
                    "prior_weight": PRIOR_WEIGHT,
                },
                "min_lead": MIN_LEAD,
                "hands": pair.recent_hands,
            },
        )
        if best is None or finding.score > best.score:
            best = finding
    return best
