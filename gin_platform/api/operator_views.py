"""The calling operator: who it is, its webhook URL and signing, its network membership, its webhook
secret, its request-signing secrets, its registered origins."""

from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from gin_platform.api import examples
from gin_platform.api.inputs import NoBody, validated
from gin_platform.api.output import represent
from gin_platform.api.serializers import (
    NetworkMembershipInput,
    NetworkMembershipOutput,
    OperatorOriginInput,
    OperatorOriginOutput,
    OperatorOutput,
    OperatorUpdateInput,
    SecretIssuedOutput,
    SigningSecretOutput,
)
from gin_platform.http.idempotency import idempotent
from gin_platform.http.permissions import IsOperator
from gin_platform.http.problems import (
    NotFoundProblem,
)
from gin_platform.tenancy import selectors, services
from gin_platform.tenancy.principals import operator_principal


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
        caller = operator_principal(request)
        return Response(represent(OperatorOutput, caller.operator))

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
        caller = operator_principal(request)
        data = validated(OperatorUpdateInput, request.data)
        operator = services.operator_update(operator=caller.operator, actor=caller.actor, **data)
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
        caller = operator_principal(request)
        return Response(NetworkMembershipOutput(_network_membership(caller.operator)).data)

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
        caller = operator_principal(request)
        data = validated(NetworkMembershipInput, request.data)
        operator = caller.operator
        services.network_membership_update(operator=operator, actor=caller.actor, **data)
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
        caller = operator_principal(request)
        validated(NoBody, request.data)
        operator = services.webhook_secret_rotate(operator=caller.operator, actor=caller.actor)
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
        caller = operator_principal(request)
        validated(NoBody, request.data)
        secret = services.signing_secret_create(operator=caller.operator, actor=caller.actor)
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
        caller = operator_principal(request)
        validated(NoBody, request.data)
        secret = selectors.signing_secret_get(operator=caller.operator, secret_id=secret_id)
        secret = services.signing_secret_revoke(secret=secret, actor=caller.actor)
        return Response(SigningSecretOutput(secret).data)


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
        caller = operator_principal(request)
        page = self.paginate_queryset(selectors.operator_origin_list(operator=caller.operator))
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
        caller = operator_principal(request)
        data = validated(OperatorOriginInput, request.data)
        origin = services.operator_origin_create(
            operator=caller.operator, actor=caller.actor, **data
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
        caller = operator_principal(request)
        validated(NoBody, request.data)
        origin = selectors.operator_origin_get(operator=caller.operator, origin_id=origin_id)
        services.operator_origin_delete(origin=origin, actor=caller.actor)
        return Response(status=status.HTTP_204_NO_CONTENT)
