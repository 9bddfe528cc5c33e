"""Player protection's API (docs/player-protection.md): the player's play session (its
limits set before play, its figures, its end) and reality checks' answers; an operator reads
its player's session. Thin views."""

from __future__ import annotations

from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from gin_platform.api.inputs import NoBody, validated
from gin_platform.http.pagination import CheckedCursorPagination
from gin_platform.http.permissions import IsOperator, IsPlayer
from gin_platform.http.problems import NotFoundProblem
from gin_platform.models import Player
from gin_platform.tenancy import selectors as tenancy
from gin_platform.tenancy.principals import operator_principal, player_principal
from protection import selectors
from protection.api import examples, presenters
from protection.api.serializers import (
    RealityCheckAnswerInput,
    RealityCheckOutput,
    SessionOutput,
    SessionStartInput,
    SessionStateOutput,
)
from protection.services.endings import reality_check_answer, session_end
from protection.services.sessions import session_start
from wallet.amounts import parse_money


def _state(player: Player) -> dict:
    session = selectors.session_open(player_id=player.pk)
    figures = None if session is None else selectors.session_figures(session=session)
    return presenters.session_state_dict(player, figures)


class MyPlaySessionView(APIView):
    permission_classes = (IsPlayer,)

    @extend_schema(
        responses=SessionStateOutput,
        tags=["me"],
        operation_id="me_play_session_retrieve",
        summary="Show my play session",
        description="What my operator's jurisdiction profile asks of me (limits before "
        "play, reality-check interval, breaks) and my open play session: elapsed time, net "
        "position (wins minus losses, from the ledger), limits, the reality check waiting "
        "for my answer, if any.",
    )
    def get(self, request: Request) -> Response:
        return Response(SessionStateOutput(_state(player_principal(request).player)).data)

    @extend_schema(
        request=SessionStartInput,
        responses={201: SessionStateOutput},
        tags=["me"],
        operation_id="me_play_session_start",
        summary="Set my session's limits",
        description="Start a play session with a duration and a loss limit (in the wallet "
        "currency), before its first buy-in. Where the profile requires them (es), a "
        "real-money seat is refused until they are set (409 session-limits-required). A "
        "session that has bought in keeps its limits (409 session-active).",
        examples=examples.SESSION_START,
    )
    def post(self, request: Request) -> Response:
        principal = player_principal(request)
        player = principal.player
        values = validated(SessionStartInput, request.data)
        loss = values.get("loss_limit")
        session_start(
            player=player,
            duration_minutes=values.get("duration_minutes"),
            loss_limit=None
            if loss is None
            else parse_money(loss, player.wallet_currency, field="loss_limit"),
            actor=principal.actor,
        )
        return Response(SessionStateOutput(_state(player)).data, status=status.HTTP_201_CREATED)


class MyPlaySessionEndView(APIView):
    permission_classes = (IsPlayer,)

    @extend_schema(
        request=NoBody,
        responses=SessionStateOutput,
        tags=["me"],
        operation_id="me_play_session_end",
        summary="End my play session",
        description="End my open play session now (no new buy-in until another starts; my "
        "game in progress ends as the profile says). Without an open session, nothing "
        "changes.",
        examples=examples.SESSION_END,
    )
    def post(self, request: Request) -> Response:
        principal = player_principal(request)
        validated(NoBody, request.data)
        session_end(player=principal.player, actor=principal.actor)
        return Response(SessionStateOutput(_state(principal.player)).data)


class MyPlaySessionListView(GenericAPIView):
    permission_classes = (IsPlayer,)
    serializer_class = SessionOutput

    class Pagination(CheckedCursorPagination):
        ordering = ("-started_at", "-pk")
        page_size = 50

    pagination_class = Pagination

    @extend_schema(
        responses=SessionOutput(many=True),
        tags=["me"],
        operation_id="me_play_sessions_list",
        summary="List my play sessions",
        description="My play sessions, newest first, each with its limits, figures and end.",
    )
    def get(self, request: Request) -> Response:
        rows = selectors.session_list(player=player_principal(request).player)
        page = self.paginate_queryset(rows)
        assert page is not None  # None only for a view without a paginator
        body = [presenters.session_dict(selectors.session_figures(session=s)) for s in page]
        return self.get_paginated_response(SessionOutput(body, many=True).data)


class MyRealityCheckView(APIView):
    permission_classes = (IsPlayer,)

    @extend_schema(
        responses=RealityCheckOutput,
        tags=["me"],
        operation_id="me_reality_check_retrieve",
        summary="Show a reality check",
        description="One of my reality checks: when it was due and shown, the session's "
        "elapsed time and net position it showed, and my answer.",
    )
    def get(self, request: Request, check_id: str) -> Response:
        check = _check(player_principal(request).player, check_id)
        return Response(RealityCheckOutput(presenters.reality_check_dict(check)).data)

    @extend_schema(
        request=RealityCheckAnswerInput,
        responses=RealityCheckOutput,
        tags=["me"],
        operation_id="me_reality_check_answer",
        summary="Answer a reality check",
        description="`continue`: play on (my paused turn clocks run again; the next check "
        "comes one interval later) or `end_session`. Once (409 reality-check-not-open).",
        examples=examples.REALITY_CHECK_ANSWER,
    )
    def post(self, request: Request, check_id: str) -> Response:
        principal = player_principal(request)
        check = _check(principal.player, check_id)
        values = validated(RealityCheckAnswerInput, request.data)
        check = reality_check_answer(
            player=principal.player, check=check, answer=values["answer"], actor=principal.actor
        )
        return Response(RealityCheckOutput(presenters.reality_check_dict(check)).data)


def _check(player: Player, check_id: str):
    check = selectors.reality_check_get(player=player, check_id=_int_id(check_id))
    if check is None:
        raise NotFoundProblem(gettext("There is no such reality check."))
    return check


def _int_id(value: str) -> int | None:
    return int(value) if value.isdigit() and len(value) < 19 else None


class PlayerPlaySessionView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        responses=SessionStateOutput,
        tags=["players"],
        operation_id="players_play_session_retrieve",
        summary="Show a player's play session",
        description="Your player's profile rules and open play session (elapsed time, net "
        "position, limits, the reality check waiting), as the player sees them: render "
        "them in your own client.",
    )
    def get(self, request: Request, player_id: str) -> Response:
        caller = operator_principal(request)
        player = tenancy.player_get(operator=caller.operator, player_id=player_id)
        return Response(SessionStateOutput(_state(player)).data)
