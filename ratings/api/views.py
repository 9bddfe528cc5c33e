"""The ratings API (docs/ratings.md "API"): a player's own ratings per family and their
history, match by match; an operator's view of the same for its own players (another
operator's player is 404); the ratings of the players at a match the caller sits at. Thin
views: parse, one selector, render."""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from gin_platform.api.inputs import validated
from gin_platform.http.pagination import CheckedCursorPagination
from gin_platform.http.permissions import IsOperator, IsPlayer
from gin_platform.models import Player
from gin_platform.tenancy import selectors as tenancy
from gin_platform.tenancy.principals import operator_principal, player_principal
from ratings import selectors
from ratings.api import examples, presenters
from ratings.api.serializers import (
    HistoryFilterInput,
    MatchRatingsOutput,
    RatingChangeOutput,
    RatingOutput,
)

TAGS = ["ratings"]
RATINGS = (
    "The player's Glicko-2 rating in each variant family (R15): heads-up First To Knock, "
    "heads-up Match Play and Money Play, three and four players; 1500 with RD 350 before "
    "any rated match, provisional while the RD is above 110."
)
HISTORY = (
    "Every change a rated match made to the player's ratings, newest first: the match, its "
    "family, the player's place and the games it gave them (one per other player), and the "
    "rating, RD and volatility before and after. `family` keeps one family."
)


class HistoryPagination(CheckedCursorPagination):
    ordering = ("-finished_at", "-id")
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200


def _operator_player(request: Request, player_id: str) -> Player:
    return tenancy.player_get(operator=operator_principal(request).operator, player_id=player_id)


class _History(GenericAPIView):
    serializer_class = RatingChangeOutput
    pagination_class = HistoryPagination

    def answer(self, request: Request, player: Player) -> Response:
        family = validated(HistoryFilterInput, request.query_params).get("family")
        changes: QuerySet = selectors.player_rating_history(player=player, family=family)
        page = self.paginate_queryset(changes)
        assert page is not None  # None only for a view without a paginator
        return self.get_paginated_response([presenters.change_dict(change) for change in page])


# --- Player session token: their own ---------------------------------------------------------
class MyRatingsView(APIView):
    permission_classes = (IsPlayer,)

    @extend_schema(
        responses=RatingOutput(many=True),
        tags=["me"],
        operation_id="me_ratings_list",
        summary="List my ratings",
        description=RATINGS,
        examples=examples.RATINGS,
    )
    def get(self, request: Request) -> Response:
        player = player_principal(request).player
        ratings = selectors.player_ratings(player=player)
        return Response([presenters.rating_dict(rating) for rating in ratings])


class MyRatingHistoryView(_History):
    permission_classes = (IsPlayer,)

    @extend_schema(
        parameters=[HistoryFilterInput],
        responses=RatingChangeOutput(many=True),
        tags=["me"],
        operation_id="me_ratings_history_list",
        summary="List my rating changes",
        description=HISTORY,
        examples=examples.HISTORY,
    )
    def get(self, request: Request) -> Response:
        return self.answer(request, player_principal(request).player)


class MatchRatingsView(APIView):
    permission_classes = (IsPlayer,)

    @extend_schema(
        responses=MatchRatingsOutput,
        tags=["me"],
        operation_id="matches_ratings_retrieve",
        summary="Show the ratings at my table",
        description="The players at a match I sit (or sat) at, named as at the table (another "
        "operator's player at a network table by screen name only), each with their rating, "
        "RD and provisional flag in the match's family as they stand now; the house bot has "
        "none. Any other match is 404.",
        examples=examples.MATCH,
    )
    def get(self, request: Request, match_id: str) -> Response:
        player = player_principal(request).player
        ratings = selectors.match_ratings(player=player, match_id=match_id)
        return Response(presenters.match_ratings_dict(ratings, viewer=player.operator_id))


# --- Operator API key: its own players ----------------------------------------------------------
class PlayerRatingsView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        responses=RatingOutput(many=True),
        tags=TAGS,
        operation_id="players_ratings_list",
        summary="List a player's ratings",
        description=RATINGS + " Your own players only: another operator's is 404.",
        examples=examples.RATINGS,
    )
    def get(self, request: Request, player_id: str) -> Response:
        ratings = selectors.player_ratings(player=_operator_player(request, player_id))
        return Response([presenters.rating_dict(rating) for rating in ratings])


class PlayerRatingHistoryView(_History):
    permission_classes = (IsOperator,)

    @extend_schema(
        parameters=[HistoryFilterInput],
        responses=RatingChangeOutput(many=True),
        tags=TAGS,
        operation_id="players_ratings_history_list",
        summary="List a player's rating changes",
        description=HISTORY + " Your own players only: another operator's is 404.",
        examples=examples.HISTORY,
    )
    def get(self, request: Request, player_id: str) -> Response:
        return self.answer(request, _operator_player(request, player_id))
