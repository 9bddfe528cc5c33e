"""Games endpoints: rooms (operators), the lobby, seats and the game itself (players).

Thin: parse (input and filter serializers), call one service or selector, render (output
serializers, or the presenters' dicts, whose fields are the output serializers'). No query
here: reads are ``games.selectors``, API shapes ``games.api.presenters``. Operator writes are
@idempotent (an Idempotency-Key); player writes are idempotent by nature (sitting twice
returns the seat, an action carries the sequence number it expects).
"""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.utils.translation import gettext
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import selectors, services
from games.api import examples, lobby_presenters, presenters
from games.api.filters import EventsFilterInput, MatchFilterInput, RoomFilterInput
from games.api.history_serializers import (
    FairnessOutput,
    HandHistoryListOutput,
    HandHistoryOutput,
)
from games.api.lobby_serializers import LobbyRoomOutput
from games.api.serializers import (
    ActionInput,
    BotSeatInput,
    EventsOutput,
    GameViewOutput,
    OperatorMatchOutput,
    ResignInput,
    RoomCreateInput,
    RoomOutput,
    RoomUpdateInput,
    SeatOutput,
    SitInput,
    TableOutput,
    WatchViewOutput,
)
from games.models import Match, Seat
from games.realtime import view_cache
from games.realtime.longpoll import wait_for_events
from gin_platform.api.inputs import NoBody, validated
from gin_platform.http.idempotency import REPLAY_HEADER, idempotent
from gin_platform.http.permissions import IsOperator, IsOperatorOrPlayer, IsPlayer
from gin_platform.http.problems import PROBLEM_CONTENT_TYPE, NotFoundProblem
from gin_platform.tenancy.principals import (
    OperatorPrincipal,
    operator_or_player_principal,
    operator_principal,
    player_principal,
)

PROBLEMS = {
    404: OpenApiResponse(description="Not found (or another operator's)"),
    409: OpenApiResponse(description="Conflict (problem+json)"),
    422: OpenApiResponse(description="Refused (problem+json)"),
}


# --- Operators: rooms and matches ----------------------------------------------------------
class RoomListCreateView(GenericAPIView):
    permission_classes = (IsOperator,)
    serializer_class = RoomOutput

    @extend_schema(
        parameters=[RoomFilterInput],
        responses=RoomOutput(many=True),
        tags=["rooms"],
        summary="List rooms",
        description="The operator's rooms, active and closed (`active` filters), with their "
        "variant, rules, stakes, fee and number of tables.",
    )
    def get(self, request: Request) -> Response:
        caller = operator_principal(request)
        filters = validated(RoomFilterInput, request.query_params)
        rooms = selectors.room_list(operator=caller.operator, **filters)
        page = self.paginate_queryset(rooms)
        return self.get_paginated_response(RoomOutput(page, many=True).data)

    @extend_schema(
        request=RoomCreateInput,
        responses={
            201: RoomOutput,
            400: examples.ROOM_CREATE_INVALID,
            422: examples.ROOM_CREATE_REFUSED,
        },
        tags=["rooms"],
        summary="Open a room",
        description="Open a room (R10, R11) with its first tables: variant, rule options, "
        "stake (FTK, Match Play) or stakes per point and cashier bounds (Money Play), fee, "
        "turn time. Amounts are decimal strings in the room's currency.",
        examples=examples.ROOM_CREATE,
    )
    @idempotent
    def post(self, request: Request) -> Response:
        caller = operator_principal(request)
        operator = caller.operator
        data = validated(RoomCreateInput, request.data, context={"operator": operator})
        room = services.room_create(operator=operator, actor=caller.actor, **data)
        room = selectors.room_get(operator=operator, room_id=room.pk)  # with its table count
        return Response(RoomOutput(room).data, status=status.HTTP_201_CREATED)


class RoomDetailView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        responses={200: RoomOutput, 404: PROBLEMS[404]},
        tags=["rooms"],
        summary="Show a room",
        description="One of the operator's rooms with its options and number of tables.",
    )
    def get(self, request: Request, room_id: str) -> Response:
        caller = operator_principal(request)
        room = selectors.room_get(operator=caller.operator, room_id=room_id)
        return Response(RoomOutput(room).data)

    @extend_schema(
        request=RoomUpdateInput,
        responses={200: RoomOutput, 404: PROBLEMS[404]},
        tags=["rooms"],
        summary="Rename, close or reopen a room",
        description="Change the name, or close the room (`active: false`: no new seats; games "
        "being played go on) and reopen it.",
        examples=examples.ROOM_UPDATE,
    )
    @idempotent
    def patch(self, request: Request, room_id: str) -> Response:
        caller = operator_principal(request)
        operator = caller.operator
        room = selectors.room_get(operator=operator, room_id=room_id)
        data = validated(RoomUpdateInput, request.data)
        room = services.room_update(room=room, actor=caller.actor, **data)
        room = selectors.room_get(operator=operator, room_id=room.pk)  # with its table count
        return Response(RoomOutput(room).data)


class RoomTableCreateView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        request=None,
        responses={201: TableOutput, 404: PROBLEMS[404]},
        tags=["rooms"],
        summary="Add a table to a room",
        description="One more table with the room's options. No body.",
        examples=examples.TABLE_CREATE,
    )
    @idempotent
    def post(self, request: Request, room_id: str) -> Response:
        caller = operator_principal(request)
        validated(NoBody, request.data)
        room = selectors.room_get(operator=caller.operator, room_id=room_id)
        table = services.table_create(room=room, actor=caller.actor)
        return Response(TableOutput(table).data, status=status.HTTP_201_CREATED)


class MatchListView(GenericAPIView):
    permission_classes = (IsOperator,)
    serializer_class = OperatorMatchOutput

    @extend_schema(
        parameters=[MatchFilterInput],
        responses=OperatorMatchOutput(many=True),
        tags=["matches"],
        summary="List matches",
        description="The operator's matches, newest first, by status or room: seats, "
        "scores and result; never a card.",
    )
    def get(self, request: Request) -> Response:
        caller = operator_principal(request)
        filters = validated(MatchFilterInput, request.query_params)
        operator = caller.operator
        matches = selectors.match_list(
            operator=operator, status=filters["status"], room_id=filters["room"]
        )
        page = self.paginate_queryset(matches)
        assert page is not None  # None only for a view without a paginator
        return self.get_paginated_response(
            OperatorMatchOutput(
                [presenters.operator_match(m, operator_id=operator.pk) for m in page], many=True
            ).data
        )


class MatchDetailView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        responses={200: OperatorMatchOutput, 404: PROBLEMS[404]},
        tags=["matches"],
        summary="Show a match",
        description="A match's seats, scores and result. No cards: those belong to the "
        "players while a hand is played.",
    )
    def get(self, request: Request, match_id: str) -> Response:
        caller = operator_principal(request)
        match = selectors.match_get(operator=caller.operator, match_id=match_id)
        operator_id = caller.operator.pk
        return Response(
            OperatorMatchOutput(presenters.operator_match(match, operator_id=operator_id)).data
        )


# --- Players: lobby and seats --------------------------------------------------------------
class LobbyView(GenericAPIView):
    permission_classes = (IsPlayer,)
    serializer_class = LobbyRoomOutput

    @extend_schema(
        responses=LobbyRoomOutput(many=True),
        tags=["lobby"],
        summary="Browse the lobby",
        description="Open rooms with their tables, free seats and stakes; amounts also in "
        "the player's display currency (R11).",
    )
    def get(self, request: Request) -> Response:
        caller = player_principal(request)
        player = caller.player
        page = self.paginate_queryset(selectors.lobby_rooms(operator=caller.operator))
        assert page is not None  # None only for a view without a paginator
        rooms = [lobby_presenters.lobby_room(room, player=player) for room in page]
        return self.get_paginated_response(LobbyRoomOutput(rooms, many=True).data)


class LobbyRoomView(APIView):
    permission_classes = (IsPlayer,)

    @extend_schema(
        responses={200: LobbyRoomOutput, 404: PROBLEMS[404]},
        tags=["lobby"],
        summary="Show a lobby room",
        description="One open room with its tables, who sits where and the free seats; "
        "amounts also in the player's display currency (R11).",
    )
    def get(self, request: Request, room_id: str) -> Response:
        caller = player_principal(request)
        room = selectors.lobby_room_get(operator=caller.operator, room_id=room_id)
        shown = lobby_presenters.lobby_room(room, player=caller.player)
        return Response(LobbyRoomOutput(shown).data)


class SitView(APIView):
    permission_classes = (IsPlayer,)

    @extend_schema(
        request=SitInput,
        responses={
            201: SeatOutput,
            200: OpenApiResponse(SeatOutput, description="Already seated here: that seat"),
            **PROBLEMS,
            403: examples.ON_BREAK,
            409: examples.SIT_REFUSED,
            (503, PROBLEM_CONTENT_TYPE): examples.SIT_WALLET_UNAVAILABLE,
        },
        tags=["seats"],
        summary="Sit down at a table",
        examples=examples.SIT,
        description="Sit down. At a money table the stake (FTK, Match Play) or the cashier "
        "amount (Money Play) moves into the game's escrow; wallet refusals (insufficient "
        "funds, limits) pass through and move nothing. A player on a break they took "
        "(timed-out, self-excluded) sits nowhere, practice tables included. The second seat "
        "starts the match and deals the first hand. A seamless operator's player is debited in "
        "the operator's wallet first: when it does not answer, 503 wallet-unavailable, whose "
        "`rollback_pending` says whether the operator has acknowledged the debit's rollback "
        "yet (until then the operator's wallet may hold the amount; GET /api/v1/me/wallet "
        "lists it under `pending_rollbacks`).",
    )
    def post(self, request: Request, table_id: str) -> Response:
        caller = player_principal(request)
        table = selectors.player_table_get(player=caller.player, table_id=table_id)
        data = validated(SitInput, request.data, context={"currency": table.room.currency})
        player = caller.player
        result = services.seat_take(player=player, table=table, actor=caller.actor, **data)
        return Response(
            SeatOutput(presenters.player_seat(result.seat, player=player)).data,
            status=status.HTTP_201_CREATED if result.created else status.HTTP_200_OK,
        )


class LeaveView(APIView):
    permission_classes = (IsPlayer,)

    @extend_schema(
        request=None,
        responses={200: SeatOutput, **PROBLEMS, 409: examples.LEAVE_REFUSED},
        tags=["seats"],
        summary="Leave a table",
        description="Leave the table. Before the match starts the buy-in is refunded; "
        "leaving a running game forfeits it (R10). No body.",
        examples=examples.LEAVE,
    )
    def post(self, request: Request, table_id: str) -> Response:
        caller = player_principal(request)
        validated(NoBody, request.data)
        table = selectors.player_table_get(player=caller.player, table_id=table_id)
        player = caller.player
        seat = services.seat_leave(player=player, table=table, actor=caller.actor)
        return Response(SeatOutput(presenters.player_seat(seat, player=player)).data)


class MySeatsView(GenericAPIView):
    permission_classes = (IsPlayer,)
    serializer_class = SeatOutput

    @extend_schema(
        responses=SeatOutput(many=True),
        tags=["seats"],
        summary="List my seats",
        description="The calling player's seats, newest first, with their match's status and "
        "the amount each put into escrow.",
    )
    def get(self, request: Request) -> Response:
        caller = player_principal(request)
        player = caller.player
        page = self.paginate_queryset(selectors.player_seats(player=player))
        assert page is not None  # None only for a view without a paginator
        seats = [presenters.player_seat(seat, player=player) for seat in page]
        return self.get_paginated_response(SeatOutput(seats, many=True).data)


# --- Players: the game ----------------------------------------------------------------------
def _game_view(request: Request, seat: Seat) -> dict[str, Any]:
    """The presenter builds exactly GameViewOutput's shape (its hand and showdown fields are
    the serializers' declared fields); it is answered as is, without a second pass through
    the serializer (the answer of every move)."""
    player = player_principal(request).player
    return presenters.game_view(match=seat.match, seat=seat.position, player=player)


class GameView(APIView):
    permission_classes = (IsPlayer,)

    @extend_schema(
        responses={200: GameViewOutput, 404: PROBLEMS[404]},
        tags=["game"],
        summary="Show my view of the game",
        description="The seated player's view of the game: own cards sorted by suit, the "
        "discard pile, stock and card counts, scores, whose turn, own legal actions, seed "
        "commitment, turn deadline; after a hand both arrangements, lay-offs, the hand score "
        "and the revealed seed. `seq` goes back as `expected_seq` with the next action.",
    )
    def get(self, request: Request, match_id: str) -> HttpResponse:
        player = player_principal(request).player
        match_pk = selectors.as_id(match_id)  # the entry the move's push rendered, if current
        cached = view_cache.cached_view(request=request, player=player, match_id=match_pk)
        if cached is not None:
            return cached
        seat, hands = selectors.player_match_view(player=player, match_id=match_id)
        return Response(
            presenters.game_view(
                match=seat.match, seat=seat.position, player=player, latest_hands=hands
            )
        )


class ActionView(APIView):
    permission_classes = (IsPlayer,)

    @extend_schema(
        request=ActionInput,
        responses={
            200: GameViewOutput,
            404: PROBLEMS[404],
            409: examples.ACTION_CONFLICT,
            422: examples.ACTION_REFUSED,
        },
        tags=["game"],
        summary="Play a move",
        examples=examples.ACTION,
        description="Play: take_upcard, pass, draw_stock, draw_discard, discard (card), "
        "knock (card put down), big_gin. A retry of the action already applied at "
        "expected_seq returns the current view (header Idempotent-Replayed: true) and "
        "applies nothing; any other stale expected_seq is 409 stale-sequence.",
    )
    def post(self, request: Request, match_id: str) -> Response:
        caller = player_principal(request)
        match_pk = selectors.as_id(match_id)
        if match_pk is None:  # no such row can exist: 404 before looking at the body
            raise NotFoundProblem(gettext("You have no such game."))
        data = validated(ActionInput, request.data)  # the hottest input: one shared instance
        player = caller.player
        with view_cache.forgotten_when_stale(match_id=match_pk):
            result = services.player_action_apply(
                player=player,
                match_id=match_pk,
                action={"kind": data["kind"], "card": data["card"]},
                expected_seq=data["expected_seq"],
                actor=caller.actor,
            )
        response = Response(presenters.action_view(result, player=player))
        if not result.applied:
            response[REPLAY_HEADER] = "true"
        return response


def _events_feed(
    request: Request, match, viewer: int | None, *, after: int, limit: int, wait: int
) -> dict:
    """The feed after ``after``; with ``wait``, a long poll: when nothing is after
    ``after`` yet, wait for the match's next event (or ``wait`` seconds) and read again.
    With no wait free (games.realtime.longpoll), it answers at once."""
    feed = presenters.events_feed(match=match, viewer=viewer, after=after, limit=limit)
    if feed["events"] or not wait or match.status not in Match.LIVE_STATUSES:
        return feed
    waited = wait_for_events(
        match_id=match.pk,
        after=max(after, feed["seq"]),
        seconds=wait,
        player_id=player_principal(request).player.pk,
    )
    if not waited:
        return feed
    match = selectors.match_reload(match)
    return presenters.events_feed(match=match, viewer=viewer, after=after, limit=limit)


class EventsView(APIView):
    permission_classes = (IsPlayer,)

    @extend_schema(
        parameters=[EventsFilterInput],
        responses={200: EventsOutput, 404: PROBLEMS[404]},
        tags=["game"],
        summary="Read the match's events",
        description="The match's events with a per-match sequence number greater than "
        "`after`, oldest first, each as this player may see it (another player's stock draw "
        "has no card; seeds and hands appear when a hand ends).",
    )
    def get(self, request: Request, match_id: str) -> Response:
        caller = player_principal(request)
        seat = selectors.player_match_seat(player=caller.player, match_id=match_id)
        filters = validated(EventsFilterInput, request.query_params)
        return Response(
            EventsOutput(_events_feed(request, seat.match, seat.position, **filters)).data
        )


# --- Watchers (R11) ------------------------------------------------------------------------
class WatchView(APIView):
    permission_classes = (IsPlayer,)

    @extend_schema(
        responses={200: WatchViewOutput, 404: PROBLEMS[404]},
        tags=["watch"],
        summary="Watch a game",
        description="Watch any game of the operator (R11): the public table only — discard "
        "pile, stock count, card counts, scores, whose turn, the seed commitment. No card of "
        "either hand while it is played; the showdown once a hand has ended.",
    )
    def get(self, request: Request, match_id: str) -> Response:
        caller = player_principal(request)
        match = selectors.watch_match_get(operator=caller.operator, match_id=match_id)
        return Response(presenters.watch_view(match=match))


class WatchEventsView(APIView):
    permission_classes = (IsPlayer,)

    @extend_schema(
        parameters=[EventsFilterInput],
        responses={200: EventsOutput, 404: PROBLEMS[404]},
        tags=["watch"],
        summary="Read a watched game's events",
        description="The events feed as a watcher may see it: nobody's stock draw shows its "
        "card; hands and seeds appear when a hand ends.",
    )
    def get(self, request: Request, match_id: str) -> Response:
        caller = player_principal(request)
        match = selectors.watch_match_get(operator=caller.operator, match_id=match_id)
        filters = validated(EventsFilterInput, request.query_params)
        return Response(EventsOutput(_events_feed(request, match, None, **filters)).data)


# --- Resigning and the house bot (R10, R11) -------------------------------------------------
class ResignView(APIView):
    permission_classes = (IsPlayer,)

    @extend_schema(
        request=ResignInput,
        responses={200: GameViewOutput, **PROBLEMS, 409: examples.RESIGN_REFUSED},
        tags=["game"],
        summary="Resign the game",
        examples=examples.RESIGN,
        description="Give the game up (R10: a forfeit, reason `resigned`): the opponent wins "
        "as if first to knock (FTK) or reaching the target; settlement pays out as usual.",
    )
    def post(self, request: Request, match_id: str) -> Response:
        caller = player_principal(request)
        seat = selectors.player_match_seat(player=caller.player, match_id=match_id)
        data = validated(ResignInput, request.data)
        match = services.match_resign(
            seat=seat, actor=caller.actor, expected_seq=data["expected_seq"]
        )
        match.shown_seats = seat.match.shown_seats  # type: ignore[attr-defined]  # the to_attr of shown_seats_prefetch(), set by hand: the stubs know no such attribute
        seat.match = match
        return Response(_game_view(request, seat))


class BotSeatView(APIView):
    permission_classes = (IsPlayer,)

    @extend_schema(
        request=BotSeatInput,
        responses={
            201: SeatOutput,
            200: OpenApiResponse(SeatOutput, description="The bot already sits there"),
            **PROBLEMS,
            409: examples.BOT_REFUSED,
        },
        tags=["seats"],
        summary="Invite the house bot to my table",
        description="Practice tables only: a player seated alone invites the house bot to the "
        "second seat, which starts the game (R12: at a 3-4 seat table each call seats one more "
        "house bot; the call that fills the table starts the game). The bot plays for chips on "
        "the worker within a short delay, at `bot_level` (`easy`, `strong`: docs/engine.md; by "
        "default the room's); its seat says so in the game view. Real-money tables: 409 "
        "bot-not-allowed, whatever the body. The body may be empty.",
        examples=examples.BOT,
    )
    def post(self, request: Request, table_id: str) -> Response:
        caller = player_principal(request)
        data = validated(BotSeatInput, request.data)
        table = selectors.player_table_get(player=caller.player, table_id=table_id)
        player = caller.player
        result = services.table_seat_bot(
            player=player, table=table, actor=caller.actor, bot_level=data["bot_level"]
        )
        return Response(
            SeatOutput(presenters.player_seat(result.seat, player=player)).data,
            status=status.HTTP_201_CREATED if result.created else status.HTTP_200_OK,
        )


# --- Hand history and fairness ---------------------------------------------------------------
def _readable_match(request: Request, match_id: str) -> Match:
    """The operator's match (API key), or a match the calling player sits in; else 404."""
    caller = operator_or_player_principal(request)
    if isinstance(caller, OperatorPrincipal):
        return selectors.match_get(operator=caller.operator, match_id=match_id)
    return selectors.player_match(player=caller.player, match_id=match_id)


class HandHistoryListView(APIView):
    permission_classes = (IsOperatorOrPlayer,)

    @extend_schema(
        operation_id="matches_hands_list",
        responses={200: HandHistoryListOutput, 404: PROBLEMS[404]},
        tags=["history"],
        summary="List a match's finished hands",
        description="Every hand of the match that is over, with its events, both "
        "arrangements, lay-offs, score and revealed seed. For the players of the match and "
        "the operator. A hand still being played is never listed.",
    )
    def get(self, request: Request, match_id: str) -> Response:
        match = _readable_match(request, match_id)
        return Response(HandHistoryListOutput(presenters.match_hand_history(match=match)).data)


class HandHistoryDetailView(APIView):
    permission_classes = (IsOperatorOrPlayer,)

    @extend_schema(
        responses={200: HandHistoryOutput, 404: PROBLEMS[404], 409: PROBLEMS[409]},
        tags=["history"],
        summary="Show a finished hand",
        description="One hand that is over, every card shown: events, both arrangements, "
        "lay-offs, score and the revealed seed; 409 hand-in-progress while it is played.",
    )
    def get(self, request: Request, match_id: str, number: str) -> Response:
        match = _readable_match(request, match_id)
        return Response(
            HandHistoryOutput(presenters.finished_hand_history(match=match, number=number)).data
        )


class HandFairnessView(APIView):
    permission_classes = (IsOperatorOrPlayer,)

    @extend_schema(
        responses={200: FairnessOutput, 404: PROBLEMS[404], 409: PROBLEMS[409]},
        tags=["history"],
        summary="Verify a hand's deal",
        description="Provable fairness (docs/games.md): re-derives the deck from the "
        "revealed seed and checks it against the commitment published before the deal and "
        "against the cards dealt (dealer, both hands, upcard, stock). docs/fairness.md shows "
        "the same check offline. 409 hand-in-progress while the hand is played.",
    )
    def get(self, request: Request, match_id: str, number: str) -> Response:
        match = _readable_match(request, match_id)
        return Response(FairnessOutput(presenters.hand_fairness(match=match, number=number)).data)
