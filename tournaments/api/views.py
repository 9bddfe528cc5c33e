"""The tournaments API (docs/tournaments.md "API"): the lobby, a tournament with its prizes
and its bracket, registering (the player, or the operator for its player in one call),
taking the seat of a match that is ready, the player's tournaments; an operator creates and
cancels its own. Thin views: parse, one service or selector, render."""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.services.tournament_matches import tournament_seat_claim
from gin_platform.api.inputs import NoBody, text_filter, validated
from gin_platform.http.idempotency import idempotent
from gin_platform.http.pagination import CheckedCursorPagination
from gin_platform.http.permissions import IsOperator, IsOperatorOrPlayer, IsPlayer
from gin_platform.models import Operator
from gin_platform.tenancy import selectors as tenancy
from gin_platform.tenancy.principals import (
    OperatorPrincipal,
    PlayerPrincipal,
    operator_principal,
    player_principal,
)
from tournaments import selectors
from tournaments.api import examples, presenters
from tournaments.api.serializers import (
    BracketTableOutput,
    EntryCreateInput,
    EntryOutput,
    RegisterInput,
    TournamentCreateInput,
    TournamentDetailOutput,
    TournamentOutput,
    TournamentSeatOutput,
)
from tournaments.models import Tournament
from tournaments.problems import TournamentSeatProblem, tournament_not_found
from tournaments.services.creation import TournamentOptions, tournament_create
from tournaments.services.lifecycle import tournament_cancel
from tournaments.services.registration import entry_register, entry_unregister
from wallet.amounts import parse_currency, parse_money

TAGS = ["tournaments"]


def _caller_operator(request: Request) -> tuple[Operator, object]:
    """The operator whose view the caller has, and the viewer id names are shown to."""
    user = request.user
    if isinstance(user, PlayerPrincipal):
        return user.player.operator, user.player.operator_id
    caller: OperatorPrincipal = operator_principal(request)
    return caller.operator, caller.operator.pk


def _tickets_held(request: Request, tournaments: list[Tournament]) -> dict[int, int]:
    """A player's own tickets to ``tournaments`` (one read for them all); an operator holds
    none."""
    user = request.user
    if not isinstance(user, PlayerPrincipal):
        return {}
    return selectors.tickets_held(player=user.player, tournaments=tournaments)


class TournamentPagination(CheckedCursorPagination):
    ordering = ("-registration_opens_at", "-pk")
    page_size = 50


class TournamentListView(GenericAPIView):
    permission_classes = (IsOperatorOrPlayer,)
    serializer_class = TournamentOutput
    pagination_class = TournamentPagination

    def get_queryset(self) -> QuerySet:
        operator, _ = _caller_operator(self.request)
        return selectors.tournament_list(
            operator=operator,
            kind=text_filter(self.request, "kind"),
            status=text_filter(self.request, "status"),
        )

    @extend_schema(
        responses=TournamentOutput(many=True),
        tags=TAGS,
        operation_id="tournaments_list",
        summary="List tournaments",
        description="The tournament lobby: the caller's operator's tournaments and, for a "
        "member of the network, the network's; newest registration first. Filters: `kind` "
        "(sit_and_go, scheduled), `status`. With a player's session each carries "
        "`my_ticket`: the ticket the player holds to it, if any.",
        parameters=[
            OpenApiParameter("kind", OpenApiTypes.STR, enum=["sit_and_go", "scheduled"]),
            OpenApiParameter("status", OpenApiTypes.STR),
        ],
        examples=examples.LIST,
    )
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        assert page is not None  # None only for a view without a paginator
        held = _tickets_held(request, page)
        return self.get_paginated_response(
            [
                presenters.tournament_dict(tournament, ticket=held.get(tournament.pk))
                for tournament in page
            ]
        )

    @extend_schema(
        request=TournamentCreateInput,
        responses={201: TournamentDetailOutput},
        tags=TAGS,
        operation_id="tournaments_create",
        summary="Create a tournament",
        description="A tournament for your players (R14): a sit and go that starts when "
        "full, or a scheduled one; its seed's SHA-256 is published at once. Amounts are "
        "decimal strings in `currency`.",
        examples=examples.CREATE,
    )
    @idempotent
    def post(self, request: Request) -> Response:
        caller = operator_principal(request)
        data = validated(TournamentCreateInput, request.data)
        currency = parse_currency(data.pop("currency"))
        for name in ("buy_in", "entry_fee", "guaranteed"):
            data[name] = parse_money(data[name], currency, field=name)
        tournament = tournament_create(
            operator=caller.operator,
            options=TournamentOptions(currency=currency, **data),
            actor=caller.actor,
        )
        tournament = selectors.tournament_get(operator=caller.operator, tournament_id=tournament.pk)
        return Response(
            presenters.tournament_detail_dict(tournament), status=status.HTTP_201_CREATED
        )


class TournamentDetailView(APIView):
    permission_classes = (IsOperatorOrPlayer,)

    @extend_schema(
        responses=TournamentDetailOutput,
        tags=TAGS,
        operation_id="tournaments_retrieve",
        summary="Show a tournament",
        description="Its options, status, prize pool and what each paid place is worth, the "
        "draw's seed commitment, and the seed once it has ended. With a player's session, "
        "`my_ticket`: the ticket the player holds to it (register with `ticket: true` when it "
        "`covers_entry`), or null.",
        examples=examples.DETAIL,
    )
    def get(self, request: Request, tournament_id: str) -> Response:
        operator, _ = _caller_operator(request)
        tournament = selectors.tournament_get(operator=operator, tournament_id=tournament_id)
        held = _tickets_held(request, [tournament])
        return Response(
            presenters.tournament_detail_dict(tournament, ticket=held.get(tournament.pk))
        )


class TournamentBracketView(APIView):
    permission_classes = (IsOperatorOrPlayer,)

    @extend_schema(
        responses=BracketTableOutput(many=True),
        tags=TAGS,
        operation_id="tournaments_bracket",
        summary="Show a tournament's bracket",
        description="Every table of the bracket (or one round's, `round`): its players once "
        "known, named as at the tables, its match, and who went on.",
        parameters=[OpenApiParameter("round", OpenApiTypes.INT)],
    )
    def get(self, request: Request, tournament_id: str) -> Response:
        operator, viewer = _caller_operator(request)
        tournament = selectors.tournament_get(operator=operator, tournament_id=tournament_id)
        round_number = tenancy.as_id(request.query_params.get("round"))
        entries = selectors.entries_by_id(tournament=tournament)
        return Response(
            [
                presenters.bracket_table_dict(
                    table, tournament=tournament, entries=entries, viewer=viewer
                )
                for table in selectors.bracket_tables(
                    tournament=tournament, round_number=round_number
                )
            ]
        )


class TournamentEntriesView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        responses=EntryOutput(many=True),
        tags=TAGS,
        operation_id="tournaments_entries_list",
        summary="List your players' entries",
        description="The entries of your own players in this tournament (never another "
        "operator's).",
    )
    def get(self, request: Request, tournament_id: str) -> Response:
        caller = operator_principal(request)
        tournament = selectors.tournament_get(operator=caller.operator, tournament_id=tournament_id)
        entries = selectors.operator_entries(operator=caller.operator, tournament=tournament)
        return Response([presenters.entry_dict(entry) for entry in entries])

    @extend_schema(
        request=EntryCreateInput,
        responses={201: EntryOutput, 200: EntryOutput},
        tags=TAGS,
        operation_id="tournaments_entries_create",
        summary="Register one of your players",
        description="Join in one call: your player's entry, paid from their wallet (or "
        "yours, seamless), with their ticket (`ticket`), or free. Registering again returns "
        "the entry (200) and charges nothing.",
        examples=examples.ENTRY_CREATE,
    )
    def post(self, request: Request, tournament_id: str) -> Response:
        caller = operator_principal(request)
        data = validated(EntryCreateInput, request.data)
        tournament = selectors.tournament_get(operator=caller.operator, tournament_id=tournament_id)
        player = tenancy.player_get(operator=caller.operator, player_id=data["player_id"])
        result = entry_register(
            player=player, tournament=tournament, actor=caller.actor, ticket=data["ticket"]
        )
        return Response(
            presenters.entry_dict(result.entry),
            status=status.HTTP_201_CREATED if result.created else status.HTTP_200_OK,
        )


class TournamentEntryDetailView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        request=NoBody,
        responses={200: EntryOutput},
        tags=TAGS,
        operation_id="tournaments_entries_destroy",
        summary="Withdraw one of your players",
        description="Before the start: the entry refunded in full (buy-in and fee, or the ticket).",
        examples=examples.UNREGISTER,
    )
    def delete(self, request: Request, tournament_id: str, player_id: str) -> Response:
        caller = operator_principal(request)
        validated(NoBody, request.data)
        tournament = selectors.tournament_get(operator=caller.operator, tournament_id=tournament_id)
        player = tenancy.player_get(operator=caller.operator, player_id=player_id)
        entry = entry_unregister(player=player, tournament=tournament, actor=caller.actor)
        return Response(presenters.entry_dict(entry))


class TournamentCancelView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        request=NoBody,
        responses=TournamentDetailOutput,
        tags=TAGS,
        operation_id="tournaments_cancel",
        summary="Cancel your tournament",
        description="R14: before any result every entry is refunded in full and the overlay "
        "comes back; after one, the players still in share the prize pool not yet paid.",
        examples=examples.CANCEL,
    )
    def post(self, request: Request, tournament_id: str) -> Response:
        caller = operator_principal(request)
        validated(NoBody, request.data)
        tournament = selectors.tournament_get(operator=caller.operator, tournament_id=tournament_id)
        if tournament.operator_id != caller.operator.pk:
            raise tournament_not_found()  # the network's is staff's to cancel
        tournament_cancel(tournament_id=tournament.pk, reason="operator", actor=caller.actor)
        tournament = selectors.tournament_get(operator=caller.operator, tournament_id=tournament.pk)
        return Response(presenters.tournament_detail_dict(tournament))


class MyRegistrationView(APIView):
    permission_classes = (IsPlayer,)

    @extend_schema(
        request=RegisterInput,
        responses={201: EntryOutput, 200: EntryOutput},
        tags=["me"],
        operation_id="tournaments_register",
        summary="Register for a tournament",
        description="My entry: the buy-in and fee from my wallet, my ticket (`ticket`), or "
        "free. Registering again returns my entry and charges nothing.",
        examples=examples.REGISTER,
    )
    def post(self, request: Request, tournament_id: str) -> Response:
        principal = player_principal(request)
        player = principal.player
        data = validated(RegisterInput, request.data)
        tournament = selectors.tournament_get(operator=player.operator, tournament_id=tournament_id)
        result = entry_register(
            player=player, tournament=tournament, actor=principal.actor, ticket=data["ticket"]
        )
        return Response(
            presenters.entry_dict(result.entry),
            status=status.HTTP_201_CREATED if result.created else status.HTTP_200_OK,
        )

    @extend_schema(
        request=NoBody,
        responses={200: EntryOutput},
        tags=["me"],
        operation_id="tournaments_unregister",
        summary="Withdraw from a tournament",
        description="Before the start: my entry refunded in full.",
        examples=examples.UNREGISTER,
    )
    def delete(self, request: Request, tournament_id: str) -> Response:
        principal = player_principal(request)
        validated(NoBody, request.data)
        player = principal.player
        tournament = selectors.tournament_get(operator=player.operator, tournament_id=tournament_id)
        entry = entry_unregister(player=player, tournament=tournament, actor=principal.actor)
        return Response(presenters.entry_dict(entry))


class MySeatView(APIView):
    permission_classes = (IsPlayer,)

    @extend_schema(
        request=NoBody,
        responses=TournamentSeatOutput,
        tags=["me"],
        operation_id="tournaments_seat",
        summary="Take my seat",
        description="Take the seat of my match that is ready (within `no_show_seconds` of "
        "it being seated, else it is forfeited, R14); then play it at /api/v1/matches/{id}.",
        examples=examples.SEAT,
    )
    def post(self, request: Request, tournament_id: str) -> Response:
        principal = player_principal(request)
        player = principal.player
        validated(NoBody, request.data)
        tournament = selectors.tournament_get(operator=player.operator, tournament_id=tournament_id)
        entry = (
            selectors.operator_entries(operator=player.operator, tournament=tournament)
            .filter(player=player)
            .exclude(status="unregistered")
            .first()
        )
        table = None if entry is None else selectors.entry_waiting_table(entry=entry)
        if table is None or table.match is None:
            raise TournamentSeatProblem()
        tournament_seat_claim(player=player, match=table.match, actor=principal.actor)
        return Response({"match_id": table.match_id, "round": table.round, "table": table.number})


class MyTournamentsView(GenericAPIView):
    permission_classes = (IsPlayer,)
    serializer_class = EntryOutput

    class Pagination(CheckedCursorPagination):
        ordering = ("-registered_at", "-pk")
        page_size = 50

    pagination_class = Pagination

    @extend_schema(
        responses=EntryOutput(many=True),
        tags=["me"],
        operation_id="me_tournaments_list",
        summary="List my tournaments",
        description="My entries, newest first: status, draw position, the round I went out "
        "in, my places and prize, and the match waiting for me, if any.",
    )
    def get(self, request: Request) -> Response:
        player = player_principal(request).player
        page = self.paginate_queryset(selectors.player_entries(player=player))
        assert page is not None  # None only for a view without a paginator
        return self.get_paginated_response(
            [
                presenters.entry_dict(
                    entry,
                    match_id=getattr(selectors.entry_waiting_table(entry=entry), "match_id", None),
                )
                for entry in page
            ]
        )
