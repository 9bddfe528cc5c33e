"""Endpoints of the player's limits and breaks (docs/player-protection.md "Breaks and
limits", docs/wallet.md "Player limits, breaks, KYC"): thin views that parse, call one
service or selector, and render.

- Operator (API key, ``IsOperator``): a player's deposit and loss limits and their history,
  time-out and self-exclusion. Players of another operator are 404. Writes need an
  Idempotency-Key.
- Player (session token, ``IsPlayer``): the same of their own, set by themselves, without
  an Idempotency-Key: they are idempotent by nature (asking again for the change already
  pending, or for a break the break in force already covers, changes nothing).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from gin_platform.api.inputs import validated
from gin_platform.http.idempotency import idempotent
from gin_platform.http.permissions import IsOperator, IsPlayer
from gin_platform.tenancy import selectors as platform_selectors
from gin_platform.tenancy.principals import operator_principal, player_principal
from wallet import services
from wallet.amounts import parse_amount
from wallet.api import examples, presenters
from wallet.api.serializers import (
    BreakOutput,
    LimitChangeInput,
    LimitChangeOutput,
    LimitOutput,
    SelfExclusionInput,
    SelfExclusionStatusOutput,
    TimeOutInput,
    TimeOutStatusOutput,
)
from wallet.api.views import IDEMPOTENCY_PARAMETER
from wallet.selectors import limits

if TYPE_CHECKING:
    from gin_platform.models import Player
    from gin_platform.tenancy.principals import Actor


def _player(request: Request, player_id: str) -> Player:
    return platform_selectors.player_get(
        operator=operator_principal(request).operator, player_id=player_id
    )


# --- Limits --------------------------------------------------------------------------------
LIMITS_DESCRIPTION = (
    "The player's deposit and loss limits per day, week and month: the amount in force, any "
    "pending change, what is used and left in the current window."
)
LIMIT_SET_DESCRIPTION = (
    "Set one deposit or loss limit (day, week, month) in the wallet currency. A decrease "
    "applies at once; an increase or a removal (amount null) after the cooling-off of the "
    "operator's jurisdiction profile (24 hours; es 3 days, it 7 days): `pending_amount` "
    "until `pending_effective_at`. Asking again for the change already pending, or for the "
    "amount in force, changes nothing."
)


def _limits(player: Player) -> Response:
    states = [presenters.limit_state(s) for s in limits.player_limit_states(player=player)]
    return Response(LimitOutput(states, many=True).data)


def _limit_set(request: Request, player: Player, actor: Actor) -> Response:
    """Set one limit of ``player`` from the request's body; the limit as it is now."""
    values = validated(LimitChangeInput, request.data)
    amount = values["amount"]
    services.player_limit_set(
        player=player,
        kind=values["kind"],
        period=values["period"],
        amount=None
        if amount is None
        else parse_amount(amount, player.wallet_currency, allow_zero=True),
        currency=values.get("currency"),
        actor=actor,
    )
    state = next(
        s
        for s in limits.player_limit_states(player=player)
        if (s.kind, s.period) == (values["kind"], values["period"])
    )
    return Response(LimitOutput(presenters.limit_state(state)).data)


class PlayerLimitsView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        responses=LimitOutput(many=True),
        tags=["wallet-limits"],
        summary="Show a player's limits",
        description=LIMITS_DESCRIPTION,
    )
    def get(self, request: Request, player_id: str) -> Response:
        return _limits(_player(request, player_id))

    @extend_schema(
        request=LimitChangeInput,
        responses={200: LimitOutput, 422: examples.LIMIT_SET_REFUSED},
        parameters=[IDEMPOTENCY_PARAMETER],
        tags=["wallet-limits"],
        summary="Set a player's deposit or loss limit",
        examples=examples.LIMIT_SET,
        description=LIMIT_SET_DESCRIPTION,
    )
    @idempotent
    def post(self, request: Request, player_id: str) -> Response:
        player = _player(request, player_id)
        return _limit_set(request, player, operator_principal(request).actor)


class PlayerLimitHistoryView(GenericAPIView):
    permission_classes = (IsOperator,)
    serializer_class = LimitChangeOutput

    @extend_schema(
        responses=LimitChangeOutput(many=True),
        tags=["wallet-limits"],
        summary="List a player's limit changes",
        description="Every change to the player's limits, newest first, with when it takes "
        "effect and who made it.",
    )
    def get(self, request: Request, player_id: str) -> Response:
        player = _player(request, player_id)
        page = self.paginate_queryset(limits.player_limit_history(player=player))
        assert page is not None  # None only for a view without a paginator
        body = [presenters.limit_change(change) for change in page]
        return self.get_paginated_response(LimitChangeOutput(body, many=True).data)


# --- Breaks: time-outs and self-exclusion (docs/player-protection.md "Breaks and limits") ---
SELF_EXCLUSION_STATUS_DESCRIPTION = (
    "Whether the player is self-excluded now and until when, the periods allowed "
    "(`minimum_days` from the jurisdiction profile, `maximum_days`), and every "
    "self-exclusion taken."
)
SELF_EXCLUSION_DESCRIPTION = (
    "Exclude the player for `days` days from now: no deposit, no buy-in and no seat, "
    "practice tables included, until it ends. At least the jurisdiction's minimum (183 days "
    "in uk, es and mga, 30 in it, 1 without a profile), at most 3650. It cannot be lifted "
    "or shortened: 201 with the new self-exclusion; 200 with the one in force when that "
    "already runs as long (nothing added). Withdrawals and payouts stay possible; a game in "
    "progress is played out."
)
TIME_OUT_STATUS_DESCRIPTION = (
    "Whether the player is taking a time-out now and until when, the time-outs allowed "
    "(`allowed_days`), and every time-out taken."
)
TIME_OUT_DESCRIPTION = (
    "A time-out of `days` days from now (1, 7, 30 or 42: 24 hours, 7 days, 30 days, 6 "
    "weeks): no deposit, no buy-in and no seat, practice tables included, until it ends "
    "(`timed-out`). It cannot be lifted or shortened: 201 with the new time-out; 200 with "
    "the break in force (a time-out or a self-exclusion, `kind` says which) when that "
    "already runs as long (nothing added). Withdrawals and payouts stay possible; a game in "
    "progress is played out."
)


def _break_answer(taken: services.BreakTaken) -> Response:
    """201 with the new break, or 200 with the break in force that already covered it."""
    code = status.HTTP_201_CREATED if taken.added else status.HTTP_200_OK
    return Response(BreakOutput(presenters.break_row(taken.row)).data, status=code)


def _self_exclusion_status(player: Player) -> Response:
    body = presenters.self_exclusion_status(
        player=player, days_allowed=services.self_exclusion_days_allowed(player)
    )
    return Response(SelfExclusionStatusOutput(body).data)


def _self_exclusion_take(request: Request, player: Player, actor: Actor) -> Response:
    values = validated(SelfExclusionInput, request.data)
    return _break_answer(
        services.self_exclusion_create(
            player=player, days=values["days"], reason=values["reason"], actor=actor
        )
    )


def _time_out_status(player: Player) -> Response:
    body = presenters.time_out_status(
        player=player, days_allowed=services.time_out_days_allowed(player)
    )
    return Response(TimeOutStatusOutput(body).data)


def _time_out_take(request: Request, player: Player, actor: Actor) -> Response:
    values = validated(TimeOutInput, request.data)
    return _break_answer(services.time_out_take(player=player, days=values["days"], actor=actor))


class SelfExclusionView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        responses=SelfExclusionStatusOutput,
        tags=["wallet-limits"],
        summary="Show a player's self-exclusion",
        description=SELF_EXCLUSION_STATUS_DESCRIPTION,
    )
    def get(self, request: Request, player_id: str) -> Response:
        return _self_exclusion_status(_player(request, player_id))

    @extend_schema(
        request=SelfExclusionInput,
        responses={
            201: BreakOutput,
            200: OpenApiResponse(BreakOutput, description="Nothing added: the one in force"),
            422: examples.SELF_EXCLUSION_REFUSED,
        },
        parameters=[IDEMPOTENCY_PARAMETER],
        tags=["wallet-limits"],
        summary="Self-exclude a player",
        examples=examples.SELF_EXCLUSION,
        description=SELF_EXCLUSION_DESCRIPTION,
    )
    @idempotent
    def post(self, request: Request, player_id: str) -> Response:
        player = _player(request, player_id)
        return _self_exclusion_take(request, player, operator_principal(request).actor)


class TimeOutView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        responses=TimeOutStatusOutput,
        tags=["wallet-limits"],
        summary="Show a player's time-out",
        description=TIME_OUT_STATUS_DESCRIPTION,
    )
    def get(self, request: Request, player_id: str) -> Response:
        return _time_out_status(_player(request, player_id))

    @extend_schema(
        request=TimeOutInput,
        responses={
            201: BreakOutput,
            200: OpenApiResponse(BreakOutput, description="Nothing added: the break in force"),
            422: examples.TIME_OUT_REFUSED,
        },
        parameters=[IDEMPOTENCY_PARAMETER],
        tags=["wallet-limits"],
        summary="Give a player a time-out",
        examples=examples.TIME_OUT,
        description=TIME_OUT_DESCRIPTION + " For a player who asked you for it.",
    )
    @idempotent
    def post(self, request: Request, player_id: str) -> Response:
        player = _player(request, player_id)
        return _time_out_take(request, player, operator_principal(request).actor)


# --- Player token: their own limits and breaks ----------------------------------------------
class MyLimitsView(APIView):
    permission_classes = (IsPlayer,)

    @extend_schema(
        responses=LimitOutput(many=True),
        tags=["me"],
        operation_id="me_limits",
        summary="Show my limits",
        description=LIMITS_DESCRIPTION.replace("The player's", "The calling player's"),
    )
    def get(self, request: Request) -> Response:
        return _limits(player_principal(request).player)

    @extend_schema(
        request=LimitChangeInput,
        responses={200: LimitOutput, 422: examples.LIMIT_SET_REFUSED},
        tags=["me"],
        operation_id="me_limits_set",
        summary="Set my deposit or loss limit",
        examples=examples.LIMIT_SET,
        description=LIMIT_SET_DESCRIPTION + " No Idempotency-Key: a retry changes nothing.",
    )
    def put(self, request: Request) -> Response:
        caller = player_principal(request)
        return _limit_set(request, caller.player, caller.actor)


class MyTimeOutView(APIView):
    permission_classes = (IsPlayer,)

    @extend_schema(
        responses=TimeOutStatusOutput,
        tags=["me"],
        operation_id="me_time_out",
        summary="Show my time-out",
        description=TIME_OUT_STATUS_DESCRIPTION,
    )
    def get(self, request: Request) -> Response:
        return _time_out_status(player_principal(request).player)

    @extend_schema(
        request=TimeOutInput,
        responses={
            201: BreakOutput,
            200: OpenApiResponse(BreakOutput, description="Nothing added: the break in force"),
            422: examples.TIME_OUT_REFUSED,
        },
        tags=["me"],
        operation_id="me_time_out_take",
        summary="Take a time-out",
        examples=examples.TIME_OUT,
        description=TIME_OUT_DESCRIPTION + " No Idempotency-Key: a retry adds nothing.",
    )
    def post(self, request: Request) -> Response:
        caller = player_principal(request)
        return _time_out_take(request, caller.player, caller.actor)


class MySelfExclusionView(APIView):
    permission_classes = (IsPlayer,)

    @extend_schema(
        responses=SelfExclusionStatusOutput,
        tags=["me"],
        operation_id="me_self_exclusion",
        summary="Show my self-exclusion",
        description=SELF_EXCLUSION_STATUS_DESCRIPTION,
    )
    def get(self, request: Request) -> Response:
        return _self_exclusion_status(player_principal(request).player)

    @extend_schema(
        request=SelfExclusionInput,
        responses={
            201: BreakOutput,
            200: OpenApiResponse(BreakOutput, description="Nothing added: the one in force"),
            422: examples.SELF_EXCLUSION_REFUSED,
        },
        tags=["me"],
        operation_id="me_self_exclusion_take",
        summary="Exclude myself",
        examples=examples.SELF_EXCLUSION,
        description=SELF_EXCLUSION_DESCRIPTION + " No Idempotency-Key: a retry adds nothing.",
    )
    def post(self, request: Request) -> Response:
        caller = player_principal(request)
        return _self_exclusion_take(request, caller.player, caller.actor)
