"""The game launch (a launch URL for a player, its exchange for a session by the hosted page) and
the socket tickets of a player's session or an operator's API key."""

from django.conf import settings
from django.utils import translation
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from gin_platform.api import examples
from gin_platform.api.inputs import NoBody, validated
from gin_platform.api.serializers import (
    LaunchInput,
    LaunchIssuedOutput,
    LaunchSessionInput,
    LaunchSessionOutput,
    SocketTicketOutput,
)
from gin_platform.http.idempotency import idempotent
from gin_platform.http.permissions import IsOperator, IsOperatorOrPlayer
from gin_platform.http.problems import (
    LaunchTokenInvalidProblem,
)
from gin_platform.http.throttling import AuthFailureGuard, client_address
from gin_platform.i18n.languages import request_language
from gin_platform.tenancy import selectors, services
from gin_platform.tenancy.principals import (
    OperatorPrincipal,
    operator_or_player_principal,
    operator_principal,
)


def _public_base_url(request: Request) -> str:
    """Where players reach the platform: PUBLIC_BASE_URL, else this request's own scheme and
    host (which respect the proxy settings, SECURE_PROXY_SSL_HEADER and ALLOWED_HOSTS)."""
    return settings.PUBLIC_BASE_URL or request.build_absolute_uri("/").rstrip("/")


class PlayerLaunchView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        request=LaunchInput,
        responses={201: LaunchIssuedOutput, 422: examples.LAUNCH_REFUSED},
        tags=["players"],
        operation_id="players_launch",
        summary="Get a game-launch URL for a player",
        examples=examples.LAUNCH,
        description="The game-launch URL: the hosted table page, signed in as the player "
        "through a single-use launch token good for LAUNCH_TOKEN_TTL_SECONDS (120 s). The "
        "token is shown once: a replay of the request answers 409 secret-not-replayable. Send "
        "the player's `device_id` and `client_address` when you have them: players seen on one "
        "device or at one household address are never seated together (kept only as keyed "
        "hashes, docs/integrity.md).",
    )
    @idempotent
    def post(self, request: Request, player_id: str) -> Response:
        caller = operator_principal(request)
        player = selectors.player_get(operator=caller.operator, player_id=player_id)
        data = validated(LaunchInput, request.data)
        issued = services.launch_token_create(player=player, actor=caller.actor, **data)
        language = f"?lang={issued.page_language}" if issued.page_language else ""
        body = {
            "url": f"{_public_base_url(request)}/play/{language}#launch={issued.token}",
            "launch_token": issued.token,
            "launch_token_expires_at": issued.launch_token.expires_at,
            "player_id": player.pk,
            "options": issued.launch_token.options,
            "lang": issued.page_language,
        }
        return Response(LaunchIssuedOutput(body).data, status=status.HTTP_201_CREATED)


class LaunchSessionView(APIView):
    """The hosted page's first call: the launch token for a player session. No credentials;
    failures are counted like a bad bearer token (gin_platform.http.throttling.AuthFailureGuard)."""

    permission_classes = (AllowAny,)
    authentication_classes = ()

    @extend_schema(
        request=LaunchSessionInput,
        responses={
            201: LaunchSessionOutput,
            401: examples.LAUNCH_SESSION_REFUSED,
            403: OpenApiResponse(
                description="origin-not-allowed: a page the player's operator did not register"
            ),
        },
        tags=["players"],
        auth=[],
        operation_id="launch_session_create",
        summary="Exchange a launch token for a player session",
        examples=examples.LAUNCH_SESSION,
        description="Exchange a launch token (once) for a player session token. 401 "
        "launch-token-invalid when it is unknown, used or expired.",
    )
    def post(self, request: Request) -> Response:
        data = validated(LaunchSessionInput, request.data)
        guard = AuthFailureGuard(request)
        guard.check()
        try:
            launched = services.launch_token_redeem(
                launch_token=data["launch_token"],
                origin=request.META.get("HTTP_ORIGIN"),
                host=request.get_host(),
                client_address=client_address(request),
            )
        except LaunchTokenInvalidProblem:
            guard.failed()
            raise
        language = request_language(
            session=launched.issued.session,
            player=launched.player,
            accept_language=request.META.get("HTTP_ACCEPT_LANGUAGE"),
        )
        translation.activate(language)  # this answer's Content-Language, as the session's
        body = {
            "token": launched.issued.token,
            "expires_at": launched.issued.session.expires_at,
            "player": launched.player,
            "options": launched.options,
            "lang": language,
        }
        return Response(LaunchSessionOutput(body).data, status=status.HTTP_201_CREATED)


class SocketTicketCreateView(APIView):
    permission_classes = (IsOperatorOrPlayer,)

    @extend_schema(
        request=None,
        responses={201: SocketTicketOutput},
        tags=["realtime"],
        operation_id="socket_tickets_create",
        summary="Get a ticket to open a WebSocket",
        description="A ticket that opens one WebSocket (/ws/v1/..., ?ticket=) within "
        "ttl_seconds (docs/realtime.md). A player's (session token) opens any of their "
        "sockets while this session stays valid; an operator's (API key) opens only a "
        "socket that watches, a tournament's bracket (/ws/v1/tournaments/{id}/watch), while "
        "the key is in force. No body; single use, so no Idempotency-Key.",
        examples=examples.SOCKET_TICKET,
    )
    def post(self, request: Request) -> Response:
        caller = operator_or_player_principal(request)
        validated(NoBody, request.data)
        if isinstance(caller, OperatorPrincipal):
            issued = services.operator_socket_ticket_create(
                api_key=caller.api_key, actor=caller.actor
            )
        else:
            issued = services.socket_ticket_create(
                session=caller.session, actor=caller.actor, client_address=client_address(request)
            )
        body = {
            "ticket": issued.ticket,
            "expires_at": issued.socket_ticket.expires_at,
            "ttl_seconds": settings.SOCKET_TICKET_TTL_SECONDS,
        }
        return Response(SocketTicketOutput(body).data, status=status.HTTP_201_CREATED)
