"""The ``integrity.*`` webhooks (docs/integrity.md "Who sees what"): each operator
concerned gets its own copy, recorded in the transaction that makes the event true and sent
after the commit (gin_platform.events.webhooks). Across the network an operator never
sees another operator's player ids or references: its own players are named as usual
(``player_id``, ``external_ref``), every other player by screen name and an opaque id (a
keyed hash of the player for that operator: stable, so two mentions of one player match,
but useless anywhere else)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from django.utils.crypto import salted_hmac

from gin_platform.events.webhooks import webhook_enqueue
from gin_platform.models import NetworkMembership, Operator, Player

MASK_SALT = "integrity.masked-player"


def player_shown(player: Player, *, operator_id: Any) -> dict[str, Any]:
    """How an event for ``operator_id`` names ``player``: in full if it is the operator's,
    else masked (screen name and opaque id only)."""
    if player.operator_id == operator_id:
        return {
            "player_id": str(player.pk),
            "external_ref": player.external_ref,
            "screen_name": player.screen_name,
            "own": True,
        }
    return {
        "masked_id": masked_id(player, operator_id=operator_id),
        "screen_name": player.screen_name,
        "own": False,
    }


def masked_id(player: Player, *, operator_id: Any) -> str:
    """The opaque id of another operator's player, as ``operator_id`` sees it."""
    return "mp_" + salted_hmac(MASK_SALT, f"{operator_id}:{player.pk}").hexdigest()[:24]


def network_member_ids() -> set[Any]:
    """The operators that are members of the network now (a ban is shared with them)."""
    return set(
        NetworkMembership.objects.filter(left_at__isnull=True).values_list("operator_id", flat=True)
    )


def event_send(
    *,
    operator_ids: Iterable[Any],
    event_type: str,
    data_for: Callable[[Any], dict[str, Any]],
) -> int:
    """Record ``event_type`` for each operator of ``operator_ids``, with the data built for
    it (``data_for(operator_id)``); how many operators it went to."""
    ids = sorted(set(operator_ids), key=str)
    for operator in Operator.objects.filter(pk__in=ids).order_by("pk"):
        webhook_enqueue(operator=operator, event_type=event_type, data=data_for(operator.pk))
    return len(ids)
