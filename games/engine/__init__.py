"""The Gin Rummy rules engine: the referee (R1-R10 in docs/rules.md; docs/engine.md).

Pure Python, standard library only: nothing here may import Django or any other framework.
This module is the public facade; other code imports from ``games.engine`` only.
"""

from games.engine.bots import choose_action, choose_action_from_view, random_action
from games.engine.cards import (
    FULL_DECK,
    RANK_SYMBOLS,
    SUITS,
    Card,
    card_value,
    format_cards,
    parse_card,
    parse_cards,
    sort_by_suit,
)
from games.engine.errors import (
    CardParseError,
    DuplicateCardError,
    EngineError,
    IllegalActionError,
    InvalidHandError,
    KnockOverLimitError,
    NotYourTurnError,
)
from games.engine.fairness import (
    first_dealer,
    new_server_seed,
    seed_commitment,
    shuffled_deck,
    verify_deck,
)
from games.engine.going_out import KnockResult, Layoff, score_knock, settle_knock
from games.engine.hand import (
    ACTION_KINDS,
    EVENT_KINDS,
    PHASES,
    Action,
    Event,
    HandOutcome,
    HandState,
    apply,
    deal,
    legal_actions,
    replay,
)
from games.engine.match import (
    VARIANTS,
    ForfeitResult,
    MatchScore,
    MoneyPlayResult,
    forfeit_result,
    ftk_winner,
    hands_won,
    match_progress,
    money_play_final_scores,
)
from games.engine.melds import Arrangement, Meld, best_arrangement, deadwood, melded_deadwood
from games.engine.rules import RuleSet
from games.engine.serialization import state_from_json, state_to_json
from games.engine.views import event_view, player_view, watcher_view

__all__ = [
    "ACTION_KINDS",
    "EVENT_KINDS",
    "FULL_DECK",
    "PHASES",
    "RANK_SYMBOLS",
    "SUITS",
    "VARIANTS",
    "Action",
    "Arrangement",
    "Card",
    "CardParseError",
    "DuplicateCardError",
    "EngineError",
    "Event",
    "ForfeitResult",
    "HandOutcome",
    "HandState",
    "IllegalActionError",
    "InvalidHandError",
    "KnockOverLimitError",
    "KnockResult",
    "Layoff",
    "MatchScore",
    "Meld",
    "MoneyPlayResult",
    "NotYourTurnError",
    "RuleSet",
    "apply",
    "best_arrangement",
    "card_value",
    "choose_action",
    "choose_action_from_view",
    "deadwood",
    "deal",
    "event_view",
    "first_dealer",
    "forfeit_result",
    "format_cards",
    "ftk_winner",
    "hands_won",
    "legal_actions",
    "match_progress",
    "melded_deadwood",
    "money_play_final_scores",
    "new_server_seed",
    "parse_card",
    "parse_cards",
    "player_view",
    "random_action",
    "replay",
    "score_knock",
    "seed_commitment",
    "settle_knock",
    "shuffled_deck",
    "sort_by_suit",
    "state_from_json",
    "state_to_json",
    "verify_deck",
    "watcher_view",
]
