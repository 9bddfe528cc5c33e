"""The audit log: every service that changes state writes one row in its own transaction.

A secret never reaches the log: ``data`` passes through gin_platform/redaction.py, so a
service that put an API key, a session token or a signing secret in it by mistake stores
``[withheld]`` instead."""

from __future__ import annotations

from typing import Any

from django.db import models

from gin_platform.models import AuditEvent, Operator
from gin_platform.principals import Actor
from gin_platform.redaction import withhold_secrets


def audit_record(
    *,
    actor: Actor,
    action: str,
    obj: models.Model,
    operator: Operator | None,
    data: dict[str, Any] | None = None,
) -> AuditEvent:
    return AuditEvent.objects.create(
        operator=operator,
        actor_type=actor.type,
        actor_id=actor.id,
        action=action,
        object_type=obj._meta.label_lower,
        object_id=str(obj.pk),
        data=withhold_secrets(data or {})[0],
    )
