"""Games reads for the back office (settlement/backoffice.py): a player's matches, and the
cards of a hand that is over. Staff reads across operators: callers scope them; a running
hand's cards are never shown, not even to staff."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet

from games.models import Hand, Match, Seat
from games.selectors import history_hand_statuses, shown_seats_prefetch
from gin_platform.models import Player


def player_match_list(*, player: Player) -> QuerySet[Match]:
    """Every match the player sat in, newest first, with its shown seats and its hands."""
    return (
        Match.objects.filter(pk__in=Seat.objects.filter(player=player).values("match_id"))
        .order_by("-created_at", "-pk")
        .prefetch_related(
            shown_seats_prefetch(), Prefetch("hands", queryset=Hand.objects.order_by("number"))
        )
    )


def hand_is_history(hand: Hand, match: Match) -> bool:
    """Whether the hand is over as the players' history counts it
    (``history_hand_statuses``): only then may anybody, staff included, see its cards."""
    return hand.status in history_hand_statuses(match)


def finished_hand_cards(hand: Hand, match: Match) -> list[list[str]] | None:
    """Both players' final cards of a hand that is over; None for a hand being played (a
    running hand's cards are never shown, not even to staff)."""
    if not hand_is_history(hand, match):
        return None
    return [[str(card) for card in held] for held in hand.engine_state().hands]
