"""Games reads for integrity's cases and players' reports (docs/integrity.md "Cases"): who
a player met in a match, the matches two players played together with their hands, and a
finished hand as a replay the risk team can check (the fairness replay: docs/fairness.md).
Reads only; a running hand's cards are never shown, not even to staff."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from django.db.models import Count, Prefetch, QuerySet

from games.api.presenters import hand_fairness
from games.backoffice_selectors import finished_hand_cards
from games.models import Hand, Match, Seat
from games.selectors import finished_hand_get
from gin_platform.http.problems import NotFoundProblem
from gin_platform.models import Player
from gin_platform.tenancy.selectors import as_id


def match_opponents(*, player: Player, match_id: object) -> list[tuple[int, Player]]:
    """The other players seated in match ``match_id`` with ``player``, as (seat position,
    player) (a seat they left before the start counts: they met at the table). 404 when the
    player never sat in it."""
    match_pk = as_id(match_id)
    seats = list(
        Seat.objects.filter(match_id=match_pk)
        .select_related("player", "player__operator")
        .order_by("created_at", "pk")
        if match_pk is not None
        else []
    )
    if not any(seat.player_id == player.pk for seat in seats):
        raise NotFoundProblem(f"No match {match_id} of yours")
    return [(seat.position, seat.player) for seat in seats if seat.player_id != player.pk]


def pair_matches(*, player_ids: Collection[Any]) -> QuerySet[Match]:
    """The matches every one of ``player_ids`` sat in, oldest first, with their hands
    (number and status) and seats."""
    ids = list(player_ids)
    matches = Match.objects.all()
    for player_id in ids:
        matches = matches.filter(seats__player_id=player_id)
    return (
        matches.distinct()
        .annotate(hands_played=Count("hands", distinct=True))
        .order_by("created_at", "pk")
        .prefetch_related(
            Prefetch("hands", queryset=Hand.objects.order_by("number")),
            Prefetch("seats", queryset=Seat.objects.select_related("player").order_by("position")),
        )
    )


def hand_replay_for_staff(*, match_id: object, number: object) -> dict[str, Any]:
    """A finished hand as the risk team replays it: the fairness replay (the deck re-derived
    from the revealed seed and checked against its commitment and the cards dealt) and
    both players' final cards. 404 for an unknown match, 409 while the hand is played."""
    match_pk = as_id(match_id)
    match = Match.objects.filter(pk=match_pk).first() if match_pk is not None else None
    if match is None:
        raise NotFoundProblem(f"No match {match_id}")
    replay = hand_fairness(match=match, number=number)
    hand: Hand = finished_hand_get(match=match, number=number)
    return replay | {"final_hands": finished_hand_cards(hand, match)}


def matches_together(*, player_ids: Collection[Any]) -> set[int]:
    """The ids of the matches in which at least two of ``player_ids`` sat."""
    return set(
        Seat.objects.filter(player_id__in=list(player_ids))
        .values("match_id")
        .annotate(players=Count("player_id", distinct=True))
        .filter(players__gte=2)
        .values_list("match_id", flat=True)
    )
