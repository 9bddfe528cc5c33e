"""A network for the network tests: its operator and rooms, member operators and their
players (docs/network.md). Rows are made with the services, like staff and operators do."""

from __future__ import annotations

from rest_framework.test import APIClient

from games import services as games_services
from gin_platform.tenancy import services as platform_services
from tests.factories import SYSTEM, OperatorFactory, PlayerFactory
from tests.helpers import session_client


class NetworkPlayerClient(APIClient):
    """An API client holding one player's session token (``.player`` is the player)."""

    player = None


def network_make(**fields):
    """The network (its operator made by the service)."""
    return platform_services.network_create(actor=SYSTEM, **fields)


def member_make(*, name: str, all_rooms: bool = True, **fields):
    """An operator that joined the network (every room unless ``all_rooms`` is False)."""
    operator = OperatorFactory(name=name, **fields)
    platform_services.network_membership_update(
        operator=operator, member=True, all_rooms=all_rooms, actor=SYSTEM
    )
    return operator


def network_room_make(**fields):
    """A real-money Match Play network room (5.00 EUR, to 100) unless ``fields`` say
    otherwise."""
    options = {
        "name": "Network Match Play",
        "variant": "match",
        "target": 100,
        "stake": 500,
        "currency": "EUR",
        "fee_bps": 500,
        "turn_seconds": 30,
        **fields,
    }
    return games_services.network_room_create(actor=SYSTEM, **options)


def player_client(operator, *, screen_name: str | None = None, **fields) -> NetworkPlayerClient:
    player = PlayerFactory(operator=operator, screen_name=screen_name, **fields)
    return session_client(player, NetworkPlayerClient)
