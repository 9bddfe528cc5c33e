"""A network of two member operators for the linked-accounts tests (docs/integrity.md):
their players, operator API clients, and links made the way production makes them."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from django.db import transaction
from rest_framework.test import APIClient

from gin_platform.models import Operator, Player
from integrity import services
from integrity.models import LinkMark
from tests.factories import SYSTEM, PlayerFactory
from tests.games.network_world import member_make, network_make, network_room_make
from tests.helpers import operator_api

_names = itertools.count()


@dataclass
class World:
    a: Operator
    b: Operator
    api_a: APIClient
    api_b: APIClient

    def player(self, operator: Operator, **fields) -> Player:
        n = next(_names)
        return PlayerFactory(operator=operator, screen_name=f"Screen{n}", **fields)


def world_make() -> World:
    network_make()
    a, b = member_make(name="Site A"), member_make(name="Site B")
    return World(a=a, b=b, api_a=operator_api(a), api_b=operator_api(b))


def room_make(**fields):
    """A network Match Play room (5.00 EUR) both member operators' players may sit in."""
    return network_room_make(**fields)


def share_identifier(players: list[Player], *, kind: str, value: str) -> None:
    """Each of ``players`` sent with the same identifier by its own operator (by API, as a
    payment fingerprint would be), then the links derived as the task does after commit."""
    for player in players:
        with transaction.atomic():
            services.player_identifier_record(player=player, kind=kind, value=value, actor=SYSTEM)
    for mark_id in LinkMark.objects.filter(player__in=players, kind=kind).values_list(
        "pk", flat=True
    ):
        services.links_derive(mark_id=mark_id)
