"""Row locks of the platform app (one lock helper module per app: README "Architecture").

Every ``select_for_update`` of gin_platform is here. Each helper locks one row by primary
key; a service that takes several takes them in this one order, so two services can never
wait for each other:

    Operator  ->  OperatorApiKey / OperatorSigningSecret
    Player    ->  PlayerSession
    StaffChangeRequest  ->  the staff user it changes
    IdempotencyRecord, WebhookDelivery, Network, Heartbeat, Outage: alone

(API key changes lock the operator row first, then the key: ``services.api_key_revoke``,
``api_key_rotate``.)
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, TypeVar

from django.contrib.auth import get_user_model
from django.db import models

from gin_platform.models import (
    Heartbeat,
    IdempotencyRecord,
    Network,
    Operator,
    OperatorApiKey,
    OperatorSigningSecret,
    Outage,
    Player,
    PlayerSession,
    StaffChangeRequest,
    WebhookDelivery,
)

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractUser

Row = TypeVar("Row", bound=models.Model)


def lock_row(model: type[Row], pk: object) -> Row:
    """One row of ``model``, locked (``DoesNotExist`` if there is none). For code that locks
    rows of several models alike (re-encrypting the secrets at rest). Through the model's
    default manager: each of these models has one, ``objects``."""
    return model._default_manager.select_for_update().get(pk=pk)


def lock_operator(operator_id: object) -> Operator:
    return lock_row(Operator, operator_id)


def lock_operator_row(operator_id: uuid.UUID) -> None:
    """Lock the operator row without reading it (no secret decrypted): serialises changes
    to the operator's credentials."""
    list(Operator.objects.select_for_update().filter(pk=operator_id).values_list("pk"))


def lock_api_key(api_key_id: object) -> OperatorApiKey:
    return lock_row(OperatorApiKey, api_key_id)


def lock_signing_secret(secret_id: object) -> OperatorSigningSecret:
    return lock_row(OperatorSigningSecret, secret_id)


def lock_player(player_id: object) -> Player:
    return lock_row(Player, player_id)


def lock_player_session(session_id: object) -> PlayerSession:
    return lock_row(PlayerSession, session_id)


def lock_idempotency_record(record_id: int) -> IdempotencyRecord | None:
    """The record, locked; None when it is gone (released, or pruned)."""
    return IdempotencyRecord.objects.select_for_update().filter(pk=record_id).first()


def lock_webhook_delivery(delivery_id: object) -> WebhookDelivery:
    return lock_row(WebhookDelivery, delivery_id)


def lock_network(network_id: object) -> Network:
    """The network's row (docs/network.md): its settings change one at a time."""
    return lock_row(Network, network_id)


def lock_staff_change(change_id: int) -> StaffChangeRequest:
    """A staff access change request (gin_platform/staff/access.py): two approvers of one
    request queue here and it executes once."""
    return StaffChangeRequest.objects.select_for_update(of=("self",)).get(pk=change_id)


def lock_staff_user(user_id: object) -> AbstractUser:
    """The staff user whose access a request changes (after the request's lock)."""
    return lock_row(get_user_model(), user_id)


def lock_heartbeat(source: str) -> Heartbeat | None:
    """A tier's heartbeat row (gin_platform/heartbeat.py); None before its first beat."""
    return Heartbeat.objects.select_for_update().filter(source=source).first()


def lock_outage(outage_id: int) -> Outage | None:
    """An outage not applied yet, locked without waiting: whoever holds it applies it."""
    return (
        Outage.objects.select_for_update(skip_locked=True)
        .filter(pk=outage_id, applied_at__isnull=True)
        .first()
    )
