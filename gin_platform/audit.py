"""The audit log: every service that changes state writes one row in its own transaction.

A secret never reaches the log: ``data`` passes through gin_platform/redaction.py, so a
service that put an API key, a session token or a signing secret in it by mistake stores
``[withheld]`` instead."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import models

from gin_platform.models import AuditEvent, Operator
from gin_platform.redaction import withhold_secrets
from gin_platform.request_path.precompiled import insert_rows, save_fields_and_insert
from gin_platform.tenancy.principals import Actor


def audit_record(
    *,
    actor: Actor,
    action: str,
    obj: models.Model,
    operator: Operator | None,
    data: dict[str, Any] | None = None,
) -> AuditEvent:
    event = audit_event(actor=actor, action=action, model=type(obj), operator=operator, data=data)
    event.object_id = str(obj.pk)
    insert_rows([event])  # its INSERT built once per process: every state change writes one
    return event


def audit_saved(
    *,
    obj: models.Model,
    fields: tuple[str, ...],
    actor: Actor,
    action: str,
    operator: Operator | None,
    data: dict[str, Any] | None = None,
    rows: Sequence[models.Model] = (),
) -> AuditEvent:
    """Save ``fields`` of ``obj`` (locked by the caller), write its audit row and insert the
    caller's new ``rows`` of the same change: one statement on PostgreSQL."""
    event = audit_event(actor=actor, action=action, model=type(obj), operator=operator, data=data)
    event.object_id = str(obj.pk)
    save_fields_and_insert(obj, fields=fields, rows=[*rows, event])
    return event


def audit_event(
    *,
    actor: Actor,
    action: str,
    model: type[models.Model],
    operator: Operator | None,
    data: dict[str, Any] | None = None,
) -> AuditEvent:
    """The audit row about a ``model`` row, not saved yet and without its ``object_id``: for
    a writer that inserts it in the same statement as the row (wallet.ledger.write)."""
    return AuditEvent(
        operator=operator,
        actor_type=actor.type,
        actor_id=actor.id,
        action=action,
        object_type=model._meta.label_lower,
        data=withhold_secrets(data or {})[0],
    )


def audit_changes(
    *, obj: models.Model, values: dict[str, Any], actor: Actor, action: str, operator: Operator
) -> dict[str, list[Any]]:
    """Set each field of ``values`` that is not None and differs, save those fields and
    write one audit row of ``[before, after]`` per field (nothing at all when nothing
    changed). ``obj`` is locked by the caller. Returns the changes."""
    changes: dict[str, list[Any]] = {}
    for field, value in values.items():
        if value is not None and getattr(obj, field) != value:
            changes[field] = [getattr(obj, field), value]
            setattr(obj, field, value)
    if changes:
        obj.save(update_fields=list(changes))
        audit_record(actor=actor, action=action, obj=obj, operator=operator, data=changes)
    return changes


def audit_record_for(
    *,
    actor: Actor,
    action: str,
    object_type: str,
    object_id: str,
    operator: Operator | None,
    data: dict[str, Any] | None = None,
) -> AuditEvent:
    """An audit row about something that is not one row, such as a changelist exported as
    CSV (``object_type`` the model's label, ``object_id`` what was exported)."""
    return AuditEvent.objects.create(
        operator=operator,
        actor_type=actor.type,
        actor_id=actor.id,
        action=action,
        object_type=object_type,
        object_id=object_id,
        data=withhold_secrets(data or {})[0],
    )
