"""The seamless tests' operator wallet (tests/wallet/test_seamless_*.py): the reference one
(gin_platform/demo/seamless_wallet.py), an operator switched to it, and its players with a
session."""

from __future__ import annotations

from decimal import Decimal

from rest_framework.test import APIClient

from tests.factories import SYSTEM, PlayerFactory
from tests.helpers import session_client
from wallet import services

# The operator's timeout for a wallet call; the reference wallet's injected timeouts sleep
# longer (0.45 s).
TIMEOUT_MS = 250
START = Decimal("100.00")  # what each player holds in the operator's wallet at first


def seamless_mode(operator, server) -> None:
    """``operator`` in seamless mode against the reference wallet ``server``."""
    services.operator_wallet_set(
        operator=operator,
        mode="seamless",
        base_url=server.base_url,
        timeout_ms=TIMEOUT_MS,
        actor=SYSTEM,
    )


def player_client(operator, server, name: str) -> APIClient:
    """A new player of ``operator`` named ``name`` holding ``START`` in the operator's wallet,
    and a client with its session token (the player is ``client.player``)."""
    player = PlayerFactory(operator=operator, display_name=name)
    server.set_balance(player.external_ref, START)
    return session_client(player)
