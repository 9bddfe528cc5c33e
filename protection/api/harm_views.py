"""The markers of harm for the risk team (docs/player-protection.md "Markers of harm"; the
staff API's conventions: docs/backoffice.md). Thin views: parse, call one service or
selector, render.

Reading the rules needs ``protection.view_harmrule``, changing one
``protection.change_harmrule`` (risk, admin) and an unscoped user: a rule applies to every
operator's players. The flags need ``protection.view_harmflag``; a staff user limited to
some operators reads their players' flags only.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from gin_platform.api.inputs import validated
from gin_platform.http.pagination import CreatedCursorPagination
from gin_platform.http.permissions import HasStaffPermission, IsStaff
from gin_platform.staff.scope import operator_scope
from protection.api import harm_examples as examples
from protection.api import harm_presenters as presenters
from protection.api.harm_serializers import (
    HarmFlagFilterInput,
    HarmFlagOutput,
    HarmRuleOutput,
    HarmRuleUpdateInput,
)
from protection.harm import selectors
from protection.services import harm as services

TAGS = ["protection-staff"]


class StaffHarmRuleListView(APIView):
    permission_classes = (IsStaff, HasStaffPermission("protection.view_harmrule"))  # type: ignore[assignment]  # DRF calls each entry; the stubs take classes only

    @extend_schema(
        responses=HarmRuleOutput(many=True),
        tags=TAGS,
        summary="List the markers of harm",
        description="The four rules the daily job applies (deposits_rising, long_sessions, "
        "chasing_losses, night_play), in the order it applies them: whether each is "
        "enabled, its parameters in force and its documented defaults.",
        examples=examples.RULE_LIST,
    )
    def get(self, request: Request) -> Response:
        rows = selectors.harm_rule_list()
        return Response(HarmRuleOutput([presenters.harm_rule(row) for row in rows], many=True).data)


class StaffHarmRuleDetailView(APIView):
    permission_classes = (  # type: ignore[assignment]  # DRF calls each entry; the stubs take classes only
        IsStaff,
        HasStaffPermission(
            "protection.view_harmrule",
            PATCH="protection.change_harmrule",
            all_operators=("PATCH",),
        ),
    )

    @extend_schema(
        responses=HarmRuleOutput,
        tags=TAGS,
        summary="Show a marker of harm",
        description="One rule (by its code): enabled or not, its parameters and defaults.",
    )
    def get(self, request: Request, code: str) -> Response:
        return Response(
            HarmRuleOutput(presenters.harm_rule(selectors.harm_rule_get(code=code))).data
        )

    @extend_schema(
        request=HarmRuleUpdateInput,
        responses={200: HarmRuleOutput, 422: examples.RULE_UPDATE_INVALID},
        tags=TAGS,
        summary="Change a marker of harm",
        description="Enable or disable the rule, and set the parameters `params` names (the "
        "others keep their values). The whole set is checked by the rule: a parameter out of "
        "its bounds, of the wrong type or unknown to it is 422 harm-rule-invalid naming it, "
        "and nothing changes. Audited with the settings before and after; the next run of "
        "the job applies them. Applies to every operator: a user limited to some operators "
        "is refused.",
        examples=examples.RULE_UPDATE,
    )
    def patch(self, request: Request, code: str) -> Response:
        values = validated(HarmRuleUpdateInput, request.data)
        row = services.harm_rule_update(
            code=code,
            user=request.user,
            enabled=values.get("enabled"),
            params=values.get("params"),
        )
        return Response(
            HarmRuleOutput(presenters.harm_rule(selectors.harm_rule_get(code=row.code))).data
        )


class StaffHarmFlagListView(GenericAPIView):
    permission_classes = (IsStaff, HasStaffPermission("protection.view_harmflag"))  # type: ignore[assignment]  # DRF calls each entry; the stubs take classes only
    serializer_class = HarmFlagOutput
    pagination_class = CreatedCursorPagination

    @extend_schema(
        parameters=[HarmFlagFilterInput],
        responses=HarmFlagOutput(many=True),
        tags=TAGS,
        summary="List the players flagged by the markers of harm",
        description="Flags about players in the caller's scope, newest first; optionally of "
        "one player, one rule, and UTC days from day_from to day_to (both included). Each "
        "has the figures that met its rule.",
        examples=examples.FLAG_LIST,
    )
    def get(self, request: Request) -> Response:
        values = validated(HarmFlagFilterInput, request.query_params)
        rows = selectors.harm_flag_list(
            operator_ids=operator_scope(request.user),
            player_id=values.get("player_id"),
            rule=values.get("rule"),
            day_from=values.get("day_from"),
            day_to=values.get("day_to"),
        )
        page = self.paginate_queryset(rows)
        assert page is not None  # None only for a view without a paginator
        body = [presenters.harm_flag(row) for row in page]
        return self.get_paginated_response(HarmFlagOutput(body, many=True).data)
