"""Chip dumping (docs/integrity.md "Chip dumping"): money flowing one way between
a pair beyond what their play explains.

Two tests, each counted only in the direction the money
went (the ledger's net between the two, ``PairStats.net_to_low``, from settled games):
- the receiver's hands won against the sender, against log5 of each one's hand-win rate
  elsewhere (a sender who loses on purpose loses hands);
- the sender's forfeits (resigned, left, timed out) in games against the receiver, against
  the sender's forfeit rate elsewhere (shrunk towards the population's).
Score: the larger surprise. A pair far past the threshold (``LINK_FACTOR`` times, over at
least ``LINK_MIN_GAMES`` games) is also linked (``transfers``): they never share a table
again until the risk team says otherwise.
"""

from __future__ import annotations

from integrity.detection.findings import Finding, Population
from integrity.detection.pair_win_rate import expected_low_rate
from integrity.detection.stats import binomial_surprise, shrunk_rate
from integrity.models import Alert, PairStats, PlayerStats

MIN_GAMES = 3
MIN_HANDS = 10
FORFEIT_PRIOR_WEIGHT = 10.0
FORFEIT_FLOOR = 0.01
THRESHOLD = 5.0
LINK_FACTOR = 2.0
LINK_MIN_GAMES = 5


def net_to_low(pair: PairStats) -> int:
    """The money the low player won from the high one, all currencies added (minor units:
    the sign is what matters here; the reasoning keeps each currency)."""
    return sum(int(amount) for amount in pair.net_to_low.values())


def evaluate(
    *, pair: PairStats, low: PlayerStats, high: PlayerStats, population: Population
) -> Finding | None:
    net = net_to_low(pair)
    if pair.games < MIN_GAMES or net == 0:
        return None
    to_low = net > 0
    receiver, sender = (
        (pair.player_low_id, pair.player_high_id)
        if to_low
        else (pair.player_high_id, pair.player_low_id)
    )
    sender_stats = high if to_low else low
    hands_score, p_hand = 0.0, None
    if pair.hands >= MIN_HANDS:
        p_low = expected_low_rate(pair=pair, low=low, high=high)
        p_hand = p_low if to_low else 1 - p_low
        won = pair.hands_won_low if to_low else pair.hands_won_high
        hands_score = binomial_surprise(k=won, n=pair.hands, p=p_hand)
    forfeits = pair.forfeits_high if to_low else pair.forfeits_low
    p_forfeit = max(
        shrunk_rate(
            hits=sender_stats.forfeits - forfeits,
            trials=sender_stats.games - pair.games,
            # The population's forfeit rate without this pair's games (each game is two
            # player-games in the population's count).
            prior_rate=population.rate(
                population.forfeits - pair.forfeits_low - pair.forfeits_high,
                population.games - 2 * pair.games,
                0.05,
            ),
            prior_weight=FORFEIT_PRIOR_WEIGHT,
        ),
        FORFEIT_FLOOR,
    )
    forfeit_score = binomial_surprise(k=forfeits, n=pair.games, p=p_forfeit)
    return Finding(
        signal=Alert.Signal.CHIP_DUMPING,
        score=max(hands_score, forfeit_score),
        threshold=THRESHOLD,
        player=receiver,
        other_player=sender,
        reasoning={
            "statistic": "max of two binomial upper tails (-log10 p): receiver's hands won, "
            "sender's forfeits",
            "sender": str(sender),
            "net_to_receiver": {
                currency: int(amount) if to_low else -int(amount)
                for currency, amount in pair.net_to_low.items()
            },
            "games": pair.games,
            "games_won_by_receiver": pair.games_won_low if to_low else pair.games_won_high,
            "hands": pair.hands,
            "hands_won_by_receiver": pair.hands_won_low if to_low else pair.hands_won_high,
            "expected_hand_rate": None if p_hand is None else round(p_hand, 4),
            "hands_score": round(hands_score, 3),
            "sender_forfeits": forfeits,
            "expected_forfeit_rate": round(p_forfeit, 4),
            "forfeit_score": round(forfeit_score, 3),
            "match_ids": pair.recent_games,
        },
    )


def links_pair(finding: Finding, pair: PairStats) -> bool:
    """Whether the dumping is strong and repeated enough to link the pair (``transfers``)."""
    return finding.score >= LINK_FACTOR * finding.threshold and pair.games >= LINK_MIN_GAMES
