"""The operator's API keys: listing, issuing, revoking, rotating."""

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from gin_platform.api import examples
from gin_platform.api.inputs import NoBody, validated
from gin_platform.api.serializers import (
    ApiKeyCreateInput,
    ApiKeyIssuedOutput,
    ApiKeyListQuery,
    ApiKeyOutput,
    ApiKeyRotatedOutput,
    ApiKeyRotateInput,
)
from gin_platform.http.idempotency import idempotent
from gin_platform.http.permissions import IsOperator
from gin_platform.tenancy import selectors, services
from gin_platform.tenancy.principals import operator_principal


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
        caller = operator_principal(request)
        query = validated(ApiKeyListQuery, request.query_params)
        keys = selectors.api_key_list(operator=caller.operator, mode=query.get("mode"))
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
        caller = operator_principal(request)
        data = validated(ApiKeyCreateInput, request.data)
        issued = services.api_key_create(operator=caller.operator, actor=caller.actor, **data)
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
        caller = operator_principal(request)
        validated(NoBody, request.data)
        operator = caller.operator
        api_key = selectors.api_key_get(
            operator=operator, api_key_id=api_key_id, include_sandbox=True
        )
        api_key = services.api_key_revoke(
            api_key=api_key,
            actor=caller.actor,
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
        caller = operator_principal(request)
        api_key = selectors.api_key_get(
            operator=caller.operator, api_key_id=api_key_id, include_sandbox=True
        )
        data = validated(ApiKeyRotateInput, request.data)
        issued = services.api_key_rotate(api_key=api_key, actor=caller.actor, **data)
        api_key.refresh_from_db()
        context = {"request": request}
        body = ApiKeyIssuedOutput(issued.api_key, context=context).data | {
            "key": issued.key,
            "replaces": ApiKeyOutput(api_key, context=context).data,
        }
        return Response(body, status=status.HTTP_201_CREATED)
