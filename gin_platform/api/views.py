"""Platform endpoints: operator identity, origins, players, player sessions, game launch,
socket tickets, health, problem docs."""

from django.conf import settings
from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from gin_platform.api import examples
from gin_platform.api.inputs import NoBody, validated
from gin_platform.api.output import represent
from gin_platform.api.serializers import (
    ApiKeyCreateInput,
    ApiKeyIssuedOutput,
    ApiKeyListQuery,
    ApiKeyOutput,
    ApiKeyRotatedOutput,
    ApiKeyRotateInput,
    HealthOutput,
    LaunchInput,
    LaunchIssuedOutput,
    LaunchSessionInput,
    LaunchSessionOutput,
    LivenessOutput,
    NetworkMembershipInput,
    NetworkMembershipOutput,
    OperatorOriginInput,
    OperatorOriginOutput,
    OperatorOutput,
    OperatorUpdateInput,
    PlayerCreateInput,
    PlayerOutput,
    PlayerSessionCreateInput,
    PlayerSessionIssuedOutput,
    PlayerSessionOutput,
    PlayerUpdateInput,
    ProblemTypeOutput,
    SecretIssuedOutput,
    SigningSecretOutput,
    SocketTicketOutput,
    WebhookDeliveryOutput,
)
from gin_platform.events.selectors import webhook_delivery_get, webhook_delivery_list
from gin_platform.events.webhooks import webhook_redeliver
from gin_platform.health import health_report, server_kind
from gin_platform.http.idempotency import idempotent
from gin_platform.http.permissions import IsOperator, IsPlayer, IsStaff
from gin_platform.http.problems import (
    REGISTRY,
    LaunchTokenInvalidProblem,
    NotFoundProblem,
    Problem,
    ValidationProblem,
)
from gin_platform.http.throttling import AuthFailureGuard
from gin_platform.tenancy import selectors, services


def _text_filter(request: Request, name: str) -> str | None:
    """A free-text query filter. NUL characters are refused (400) like in JSON bodies:
    PostgreSQL cannot compare text with them and the query would fail (a 500)."""
    value = request.query_params.get(name)
    if value is not None and "\x00" in value:
        raise ValidationProblem(
            "One or more fields are invalid", errors={name: ["Null characters are not allowed."]}
        )
    return value


class OperatorMeView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        responses=OperatorOutput,
        tags=["operators"],
        operation_id="operators_me",
        summary="Show the calling operator",
        description="The operator the API key belongs to: name, mode (live, or test for "
        "the sandbox a gop_test_ key acts in), status, base currency, webhook URL and whether "
        "every request must be signed.",
    )
    def get(self, request: Request) -> Response:
        return Response(represent(OperatorOutput, request.user.operator))

    @extend_schema(
        request=OperatorUpdateInput,
        responses={200: OperatorOutput, 422: examples.OPERATOR_UPDATE_REFUSED},
        tags=["operators"],
        operation_id="operators_me_update",
        summary="Set the webhook URL or require signed requests",
        description="Change the URL webhooks go to (checked now and at every delivery: "
        "docs/webhooks.md; empty turns them off) and whether every request must carry an "
        "X-Signature. 422 webhook-url-invalid for a URL we will not post to.",
        examples=examples.OPERATOR_UPDATE,
    )
    @idempotent
    def patch(self, request: Request) -> Response:
        data = OperatorUpdateInput(data=request.data)
        data.is_valid(raise_exception=True)
        operator = services.operator_update(
            operator=request.user.operator, actor=request.user.actor, **data.validated_data
        )
        return Response(OperatorOutput(operator).data)


def _network_membership(operator) -> dict:
    network = selectors.network_get()
    if network is None:
        raise NotFoundProblem("The platform has no network")
    membership = selectors.network_membership_get(operator=operator)
    return {
        "member": membership is not None and membership.is_member,
        "all_rooms": membership is not None and membership.all_rooms,
        "joined_at": membership.joined_at if membership is not None else None,
        "left_at": membership.left_at if membership is not None else None,
        "fee_share_bps": network.fee_share_bps,
        "reveal_operators": network.reveal_operators,
    }


class NetworkMembershipView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        responses={200: NetworkMembershipOutput, 404: OpenApiResponse(description="No network")},
        tags=["network"],
        operation_id="operators_me_network",
        summary="Show the operator's network membership",
        description="Whether the operator is a member of the player network (docs/network.md), "
        "whether it offers every network room, and the network's fee share and operator "
        "disclosure. 404 when the platform has no network.",
    )
    def get(self, request: Request) -> Response:
        return Response(NetworkMembershipOutput(_network_membership(request.user.operator)).data)

    @extend_schema(
        request=NetworkMembershipInput,
        responses={200: NetworkMembershipOutput, 404: OpenApiResponse(description="No network")},
        tags=["network"],
        operation_id="operators_me_network_update",
        summary="Join or leave the network, or offer every room",
        description="`member` true joins the network (again after leaving), false leaves it: "
        "players already seated at network tables play on, nobody of the operator sits "
        "down at one again. `all_rooms` offers every network room in the lobby, or (false) "
        "only those opted into one by one.",
        examples=examples.NETWORK_MEMBERSHIP_UPDATE,
    )
    @idempotent
    def put(self, request: Request) -> Response:
        data = NetworkMembershipInput(data=request.data)
        data.is_valid(raise_exception=True)
        operator = request.user.operator
        services.network_membership_update(
            operator=operator, actor=request.user.actor, **data.validated_data
        )
        return Response(NetworkMembershipOutput(_network_membership(operator)).data)


class WebhookSecretRotateView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        request=None,
        responses={201: SecretIssuedOutput},
        tags=["operators"],
        summary="Rotate the webhook signing secret",
        description="Replace the secret that signs outgoing webhooks (X-Gin-Signature); "
        "shown once. No body. Accept both secrets while your receivers switch over.",
        examples=examples.WEBHOOK_SECRET,
    )
    @idempotent
    def post(self, request: Request) -> Response:
        validated(NoBody, request.data)
        operator = services.webhook_secret_rotate(
            operator=request.user.operator, actor=request.user.actor
        )
        body = {"secret": operator.webhook_secret, "created_at": timezone.now()}
        return Response(SecretIssuedOutput(body).data, status=status.HTTP_201_CREATED)


class SigningSecretCreateView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        request=None,
        responses={201: SecretIssuedOutput},
        tags=["operators"],
        summary="Add a request-signing secret",
        description="Add a secret to sign requests with (X-Signature, docs/webhooks.md "
        "'Signing requests'); several may be active during a rotation. No body; the secret "
        "is shown once.",
        examples=examples.SIGNING_SECRET_CREATE,
    )
    @idempotent
    def post(self, request: Request) -> Response:
        validated(NoBody, request.data)
        secret = services.signing_secret_create(
            operator=request.user.operator, actor=request.user.actor
        )
        body = {"id": secret.pk, "secret": secret.secret, "created_at": secret.created_at}
        return Response(SecretIssuedOutput(body).data, status=status.HTTP_201_CREATED)


class SigningSecretRevokeView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        request=None,
        responses=SigningSecretOutput,
        tags=["operators"],
        summary="Revoke a request-signing secret",
        description="Stop accepting signatures made with this secret, at once. No body.",
        examples=examples.SIGNING_SECRET_REVOKE,
    )
    @idempotent
    def post(self, request: Request, secret_id: str) -> Response:
        validated(NoBody, request.data)
        secret = selectors.signing_secret_get(operator=request.user.operator, secret_id=secret_id)
        secret = services.signing_secret_revoke(secret=secret, actor=request.user.actor)
        return Response(SigningSecretOutput(secret).data)


class ApiKeyListCreateView(GenericAPIView):
    permission_classes = (IsOperator,)
    serializer_class = ApiKeyOutput

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "mode",
                str,
                enum=["live", "test"],
                description="Whose keys: the calling key's mode by default; a live key may "
                "list its sandbox's test keys (test), a test key never live keys (403 "
                "live-mode-forbidden).",
            )
        ],
        responses=ApiKeyOutput(many=True),
        tags=["operators"],
        summary="List the operator's API keys",
        description="The operator's API keys of one mode (live or test), newest first, "
        "revoked ones included. Never the key itself: only its public prefix.",
    )
    def get(self, request: Request) -> Response:
        query = ApiKeyListQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        keys = selectors.api_key_list(
            operator=request.user.operator, mode=query.validated_data.get("mode")
        )
        page = self.paginate_queryset(keys)
        return self.get_paginated_response(
            ApiKeyOutput(page, many=True, context={"request": request}).data
        )

    @extend_schema(
        request=ApiKeyCreateInput,
        responses={201: ApiKeyIssuedOutput, 403: examples.API_KEY_CREATE_LIVE_FROM_TEST},
        tags=["operators"],
        summary="Create an API key",
        description="Create an API key. The key is in this response only: store it now (a "
        "replay of the request does not show it again). `mode` test (from a live key) "
        "issues a gop_test_ key of the operator's sandbox, created on first use "
        '(docs/api.md "Sandbox"); a test key cannot create live keys (403 '
        "live-mode-forbidden).",
        examples=examples.API_KEY_CREATE,
    )
    @idempotent
    def post(self, request: Request) -> Response:
        data = ApiKeyCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        issued = services.api_key_create(
            operator=request.user.operator, actor=request.user.actor, **data.validated_data
        )
        body = ApiKeyIssuedOutput(issued.api_key, context={"request": request}).data
        return Response(body | {"key": issued.key}, status=status.HTTP_201_CREATED)


class ApiKeyRevokeView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        request=None,
        responses={200: ApiKeyOutput, 409: examples.API_KEY_REVOKE_REFUSED},
        tags=["operators"],
        operation_id="api_keys_revoke",
        summary="Revoke an API key",
        description="Revoke a key at once (the calling key too, if another stays active). The "
        "operator's last active key cannot be revoked: 409 last-api-key. A live key may "
        "also revoke its sandbox's test keys, the last one included (it can issue another). "
        "No body.",
        examples=examples.API_KEY_REVOKE,
    )
    @idempotent
    def post(self, request: Request, api_key_id: str) -> Response:
        validated(NoBody, request.data)
        operator = request.user.operator
        api_key = selectors.api_key_get(
            operator=operator, api_key_id=api_key_id, include_sandbox=True
        )
        api_key = services.api_key_revoke(
            api_key=api_key,
            actor=request.user.actor,
            # A live key can always issue test keys again: no lock-out to guard against.
            allow_last=api_key.operator_id != operator.pk,
        )
        return Response(ApiKeyOutput(api_key, context={"request": request}).data)


class ApiKeyRotateView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        request=ApiKeyRotateInput,
        responses={201: ApiKeyRotatedOutput, 422: examples.API_KEY_ROTATE_REFUSED},
        tags=["operators"],
        operation_id="api_keys_rotate",
        summary="Rotate an API key",
        description="Replace a key: a new key of the same mode (shown once, in this response "
        "only) and the old one revoked at once or, with grace_seconds, when the grace period "
        "ends. A live key may also rotate its sandbox's test keys.",
        examples=examples.API_KEY_ROTATE,
    )
    @idempotent
    def post(self, request: Request, api_key_id: str) -> Response:
        api_key = selectors.api_key_get(
            operator=request.user.operator, api_key_id=api_key_id, include_sandbox=True
        )
        data = ApiKeyRotateInput(data=request.data)
        data.is_valid(raise_exception=True)
        issued = services.api_key_rotate(
            api_key=api_key, actor=request.user.actor, **data.validated_data
        )
        api_key.refresh_from_db()
        context = {"request": request}
        body = ApiKeyIssuedOutput(issued.api_key, context=context).data | {
            "key": issued.key,
            "replaces": ApiKeyOutput(api_key, context=context).data,
        }
        return Response(body, status=status.HTTP_201_CREATED)


class WebhookDeliveryListView(GenericAPIView):
    permission_classes = (IsOperator,)
    serializer_class = WebhookDeliveryOutput

    @extend_schema(
        parameters=[
            OpenApiParameter("status", str, enum=["pending", "delivered", "failed"]),
            OpenApiParameter("event_type", str, description="An event type (docs/webhooks.md)"),
        ],
        responses=WebhookDeliveryOutput(many=True),
        tags=["webhooks"],
        summary="List webhook deliveries",
        description="Every event sent (or being sent) to the operator's webhook URL, newest "
        "first, with each attempt's status code, duration and error.",
    )
    def get(self, request: Request) -> Response:
        deliveries = webhook_delivery_list(
            operator=request.user.operator,
            status=_text_filter(request, "status"),
            event_type=_text_filter(request, "event_type"),
        )
        page = self.paginate_queryset(deliveries)
        return self.get_paginated_response(WebhookDeliveryOutput(page, many=True).data)


class WebhookDeliveryDetailView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        responses=WebhookDeliveryOutput,
        tags=["webhooks"],
        summary="Show a webhook delivery",
        description="One event sent to the operator's webhook URL: its payload and every attempt.",
    )
    def get(self, request: Request, delivery_id: str) -> Response:
        delivery = webhook_delivery_get(operator=request.user.operator, delivery_id=delivery_id)
        return Response(WebhookDeliveryOutput(delivery).data)


class WebhookRedeliverView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        request=None,
        responses={202: WebhookDeliveryOutput, 404: examples.REDELIVER_NOT_FOUND},
        tags=["webhooks"],
        summary="Send a webhook again",
        description="Queue one more attempt at once, e.g. after fixing the receiving "
        "endpoint; a failed delivery becomes pending again. No body.",
        examples=examples.REDELIVER,
    )
    @idempotent
    def post(self, request: Request, delivery_id: str) -> Response:
        validated(NoBody, request.data)
        delivery = webhook_delivery_get(operator=request.user.operator, delivery_id=delivery_id)
        delivery = webhook_redeliver(delivery=delivery)
        return Response(WebhookDeliveryOutput(delivery).data, status=status.HTTP_202_ACCEPTED)


class PlayerListCreateView(GenericAPIView):
    permission_classes = (IsOperator,)
    serializer_class = PlayerOutput

    @extend_schema(
        parameters=[OpenApiParameter("external_ref", str, description="Exact match")],
        responses=PlayerOutput(many=True),
        tags=["players"],
        summary="List players",
        description="The operator's players, newest first; `external_ref` finds one by your "
        "own reference.",
    )
    def get(self, request: Request) -> Response:
        players = selectors.player_list(
            operator=request.user.operator, external_ref=_text_filter(request, "external_ref")
        )
        page = self.paginate_queryset(players)
        return self.get_paginated_response(PlayerOutput(page, many=True).data)

    @extend_schema(
        request=PlayerCreateInput,
        responses={201: PlayerOutput, 409: examples.PLAYER_CREATE_EXISTS},
        tags=["players"],
        summary="Create a player",
        description="Register one of your players under your own `external_ref` (unique per "
        "operator) with a wallet currency (the operator's base currency by default) and a "
        "display currency (R11). 409 player-exists when the reference is taken.",
        examples=examples.PLAYER_CREATE,
    )
    @idempotent
    def post(self, request: Request) -> Response:
        data = PlayerCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        player = services.player_create(
            operator=request.user.operator, actor=request.user.actor, **data.validated_data
        )
        return Response(PlayerOutput(player).data, status=status.HTTP_201_CREATED)


class PlayerDetailView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        responses=PlayerOutput,
        tags=["players"],
        summary="Show a player",
        description="One of the operator's players (another operator's is 404).",
    )
    def get(self, request: Request, player_id: str) -> Response:
        player = selectors.player_get(operator=request.user.operator, player_id=player_id)
        return Response(PlayerOutput(player).data)

    @extend_schema(
        request=PlayerUpdateInput,
        responses={200: PlayerOutput, 400: examples.PLAYER_UPDATE_INVALID},
        tags=["players"],
        summary="Update a player",
        description="Change the screen name, locale, display currency, status (active, "
        "suspended, closed) or KYC status; fields left out stay as they are.",
        examples=examples.PLAYER_UPDATE,
    )
    @idempotent
    def patch(self, request: Request, player_id: str) -> Response:
        player = selectors.player_get(operator=request.user.operator, player_id=player_id)
        data = PlayerUpdateInput(data=request.data)
        data.is_valid(raise_exception=True)
        player = services.player_update(
            player=player, actor=request.user.actor, **data.validated_data
        )
        return Response(PlayerOutput(player).data)


class PlayerSessionCreateView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        request=PlayerSessionCreateInput,
        responses={201: PlayerSessionIssuedOutput, 422: examples.SESSION_CREATE_REFUSED},
        tags=["players"],
        summary="Mint a player session token",
        description="Mint a short-lived bearer token for the player (ttl_seconds, 60 to "
        "86400). The token is shown once.",
        examples=examples.SESSION_CREATE,
    )
    @idempotent
    def post(self, request: Request, player_id: str) -> Response:
        player = selectors.player_get(operator=request.user.operator, player_id=player_id)
        data = PlayerSessionCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        issued = services.player_session_create(
            player=player,
            ttl_seconds=data.validated_data.get("ttl_seconds"),
            actor=request.user.actor,
        )
        body = PlayerSessionIssuedOutput(issued.session).data | {"token": issued.token}
        return Response(body, status=status.HTTP_201_CREATED)


class PlayerSessionRevokeView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        request=None,
        responses=PlayerSessionOutput,
        tags=["players"],
        summary="Revoke a player session",
        description="End the session at once: its token and the socket tickets minted with "
        "it stop working. No body.",
        examples=examples.SESSION_REVOKE,
    )
    @idempotent
    def post(self, request: Request, player_id: str, session_id: str) -> Response:
        validated(NoBody, request.data)
        operator = request.user.operator
        player = selectors.player_get(operator=operator, player_id=player_id)
        session = selectors.player_session_get(
            operator=operator, player=player, session_id=session_id
        )
        session = services.player_session_revoke(session=session, actor=request.user.actor)
        return Response(PlayerSessionOutput(session).data)


class OperatorOriginListCreateView(GenericAPIView):
    permission_classes = (IsOperator,)
    serializer_class = OperatorOriginOutput

    @extend_schema(
        responses=OperatorOriginOutput(many=True),
        tags=["operators"],
        operation_id="operator_origins_list",
        summary="List registered origins",
        description="The origins of the operator's sites (CORS and sockets), newest first.",
    )
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(
            selectors.operator_origin_list(operator=request.user.operator)
        )
        return self.get_paginated_response(OperatorOriginOutput(page, many=True).data)

    @extend_schema(
        request=OperatorOriginInput,
        responses={
            201: OperatorOriginOutput,
            409: examples.ORIGIN_CREATE_EXISTS,
            422: examples.ORIGIN_CREATE_INVALID,
        },
        tags=["operators"],
        operation_id="operator_origins_create",
        summary="Register an origin",
        examples=examples.ORIGIN_CREATE,
        description="Register an origin (scheme://host[:port], https://): browsers on it may "
        "call the API and open sockets for the operator's players (docs/browser-clients.md). "
        "422 origin-invalid for anything else, 409 origin-exists when already registered.",
    )
    @idempotent
    def post(self, request: Request) -> Response:
        data = OperatorOriginInput(data=request.data)
        data.is_valid(raise_exception=True)
        origin = services.operator_origin_create(
            operator=request.user.operator, actor=request.user.actor, **data.validated_data
        )
        return Response(OperatorOriginOutput(origin).data, status=status.HTTP_201_CREATED)


class OperatorOriginDetailView(APIView):
    permission_classes = (IsOperator,)

    @extend_schema(
        request=None,
        responses={204: None},
        tags=["operators"],
        operation_id="operator_origins_delete",
        summary="Remove a registered origin",
        description="Remove a registered origin: its pages can no longer call the API or "
        "open sockets for the operator's players. No body; 204 with none.",
    )
    @idempotent
    def delete(self, request: Request, origin_id: str) -> Response:
        validated(NoBody, request.data)
        origin = selectors.operator_origin_get(operator=request.user.operator, origin_id=origin_id)
        services.operator_origin_delete(origin=origin, actor=request.user.actor)
        return Response(status=status.HTTP_204_NO_CONTENT)


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
        "token is shown once: a replay of the request answers 409 secret-not-replayable.",
    )
    @idempotent
    def post(self, request: Request, player_id: str) -> Response:
        player = selectors.player_get(operator=request.user.operator, player_id=player_id)
        data = LaunchInput(data=request.data)
        data.is_valid(raise_exception=True)
        issued = services.launch_token_create(
            player=player, actor=request.user.actor, **data.validated_data
        )
        body = {
            "url": f"{_public_base_url(request)}/play/#launch={issued.token}",
            "launch_token": issued.token,
            "launch_token_expires_at": issued.launch_token.expires_at,
            "player_id": player.pk,
            "options": issued.launch_token.options,
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
        data = LaunchSessionInput(data=request.data)
        data.is_valid(raise_exception=True)
        guard = AuthFailureGuard(request)
        guard.check()
        try:
            launched = services.launch_token_redeem(
                launch_token=data.validated_data["launch_token"],
                origin=request.META.get("HTTP_ORIGIN"),
                host=request.get_host(),
            )
        except LaunchTokenInvalidProblem:
            guard.failed()
            raise
        body = {
            "token": launched.issued.token,
            "expires_at": launched.issued.session.expires_at,
            "player": launched.player,
            "options": launched.options,
        }
        return Response(LaunchSessionOutput(body).data, status=status.HTTP_201_CREATED)


class SocketTicketCreateView(APIView):
    permission_classes = (IsPlayer,)

    @extend_schema(
        request=None,
        responses={201: SocketTicketOutput},
        tags=["realtime"],
        operation_id="socket_tickets_create",
        summary="Get a ticket to open a WebSocket",
        description="A ticket that opens one WebSocket (/ws/v1/..., ?ticket=) for this "
        "player within ttl_seconds, while this session stays valid (docs/realtime.md). No "
        "body.",
        examples=examples.SOCKET_TICKET,
    )
    def post(self, request: Request) -> Response:
        validated(NoBody, request.data)
        issued = services.socket_ticket_create(
            session=request.user.session, actor=request.user.actor
        )
        body = {
            "ticket": issued.ticket,
            "expires_at": issued.socket_ticket.expires_at,
            "ttl_seconds": settings.SOCKET_TICKET_TTL_SECONDS,
        }
        return Response(SocketTicketOutput(body).data, status=status.HTTP_201_CREATED)


class HealthView(APIView):
    """Readiness: the database and the broker answer. Never throttled (probes poll it).
    Anyone gets the verdicts; staff also get the reasons (gin_platform/health.py)."""

    permission_classes = (AllowAny,)
    throttle_classes = ()

    @extend_schema(
        responses={200: HealthOutput, 503: HealthOutput},
        tags=["health"],
        auth=[{"cookieAuth": []}, {"basicAuth": []}, {}],
        summary="Check readiness",
        description="No credentials needed: the readiness probe (database and broker). Staff "
        "(session or basic auth) also get the channel-layer check, `detail` and `server`.",
    )
    def get(self, request: Request) -> Response:
        body, healthy = health_report(
            detailed=IsStaff().has_permission(request, self), server=server_kind(request._request)
        )
        return Response(body, status=200 if healthy else 503)


class LivenessView(APIView):
    """Liveness: the process serves requests. Checks no dependency, so an outage of the
    database does not make an orchestrator restart healthy web processes."""

    permission_classes = (AllowAny,)
    authentication_classes = ()
    throttle_classes = ()

    @extend_schema(
        responses={200: LivenessOutput},
        tags=["health"],
        auth=[],
        summary="Check liveness",
        description="The process serves requests; checks no dependency (a database outage "
        "must not make an orchestrator restart healthy web processes). Never throttled.",
    )
    def get(self, request: Request) -> Response:
        return Response({"status": "ok"})


def _problem_type(problem: type[Problem]) -> dict:
    return {
        "type": problem.type_uri(),
        "slug": problem.slug,
        "status": problem.status,
        "title": problem.title,
        "description": problem.description or problem.title,
    }


class ProblemTypeListView(APIView):
    permission_classes = (AllowAny,)
    authentication_classes = ()

    @extend_schema(
        responses=ProblemTypeOutput(many=True),
        tags=["problems"],
        auth=[],
        summary="List problem types",
        description="Every error `type` the API answers (RFC 9457 problem+json), with its "
        "status, title and what it means (docs/api-errors.md).",
    )
    def get(self, request: Request) -> Response:
        types = [_problem_type(p) for slug, p in sorted(REGISTRY.items()) if slug != "about-blank"]
        return Response(types)


class ProblemTypeDetailView(APIView):
    """What a problem ``type`` means: its URI ``/problems/<slug>`` resolves here."""

    permission_classes = (AllowAny,)
    authentication_classes = ()

    @extend_schema(
        responses={200: ProblemTypeOutput, 404: OpenApiResponse(description="Unknown type")},
        tags=["problems"],
        auth=[],
        summary="Explain a problem type",
        description="What a problem `type` means: its URI `/problems/<slug>` resolves here.",
    )
    def get(self, request: Request, slug: str) -> Response:
        problem = REGISTRY.get(slug)
        if problem is None or slug == "about-blank":
            raise NotFoundProblem(f"No problem type {slug!r}")
        return Response(_problem_type(problem))
