"""R13's read for players: the protected turns (reconnect graces) left today."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.api.clocks import ProtectionsOutput
from games.clock_selectors import protections_today
from gin_platform.http.permissions import IsPlayer
from gin_platform.tenancy.principals import player_principal


class MyProtectionsView(APIView):
    permission_classes = (IsPlayer,)

    @extend_schema(
        responses=ProtectionsOutput,
        tags=["me"],
        summary="My protected turns today",
        description="R13: a turn of a disconnected player gets the reconnect grace at most "
        "`per_day` times per UTC day, across all tables; how many are left today.",
    )
    def get(self, request: Request) -> Response:
        protections = protections_today(player_id=player_principal(request).player.pk)
        return Response(
            ProtectionsOutput(
                {
                    "per_day": protections.per_day,
                    "used_today": protections.used_today,
                    "left_today": protections.left_today,
                    "resets_at": protections.resets_at,
                }
            ).data
        )
