"""Operators' API keys: issuing one (in the operator's mode or its sandbox's), revoking it
(never the last active one), rotating it with a grace period."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from gin_platform.audit import audit_record
from gin_platform.http.problems import Problem
from gin_platform.locks import lock_api_key, lock_operator_row
from gin_platform.models import Operator, OperatorApiKey
from gin_platform.tenancy.principals import Actor
from gin_platform.tenancy.services.sandbox import operator_for_mode
from gin_platform.tenancy.tokens import new_api_key

API_KEY_NAME_MAX_LENGTH = 100
API_KEY_MAX_GRACE_SECONDS = 7 * 24 * 3600


class LastApiKeyProblem(Problem):
    slug = "last-api-key"
    status = 409
    title = _("The operator's last active API key cannot be revoked")
    description = (
        "Revoking it would lock the operator out of the API. Create another key first "
        "(POST /api/v1/api-keys) or rotate this one (POST /api/v1/api-keys/{id}/rotate)."
    )


class ApiKeyRevokedProblem(Problem):
    slug = "api-key-revoked"
    status = 409
    title = _("The API key is revoked")
    description = "A revoked key cannot be rotated; create a new key instead."


class ApiKeyGraceProblem(Problem):
    slug = "api-key-grace-out-of-range"
    status = 422
    title = _("Grace period out of range")
    description = "grace_seconds is a whole number of seconds from 0 to 604800 (7 days)."


@dataclass(frozen=True)
class IssuedApiKey:
    api_key: OperatorApiKey
    key: str  # the full key: returned once, never stored


def _locked_keys(operator: Operator) -> None:
    """Serialise key changes per operator (the operator row, then the keys), so two revokes
    racing on an operator's last two keys cannot both see the other one as still active."""
    lock_operator_row(operator.pk)


@transaction.atomic
def api_key_create(
    *, operator: Operator, name: str = "default", actor: Actor, mode: str | None = None
) -> IssuedApiKey:
    """A new key. ``mode`` test from a live operator issues a ``gop_test_`` key of its
    sandbox twin (created on first use); no mode, or the operator's own, a key of
    ``operator`` (``gop_test_`` when it is a sandbox). A sandbox cannot create live keys."""
    operator = operator_for_mode(operator=operator, mode=mode, actor=actor)
    full, prefix, key_hash = new_api_key(test=operator.is_sandbox)
    api_key = OperatorApiKey.objects.create(
        operator=operator, name=name, prefix=prefix, key_hash=key_hash
    )
    audit_record(
        actor=actor,
        action="api_key.created",
        obj=api_key,
        operator=operator,
        data={"name": name, "prefix": prefix, "mode": operator.mode},
    )
    return IssuedApiKey(api_key=api_key, key=full)


@transaction.atomic
def api_key_revoke(
    *, api_key: OperatorApiKey, actor: Actor, allow_last: bool = False
) -> OperatorApiKey:
    """Revoke a key at once (a key scheduled to be revoked later by a rotation included).

    Refused (LastApiKeyProblem) when no other key of the operator would stay active (not
    revoked and not scheduled to be): the API never locks an operator out of itself. A key
    may revoke itself when another stays active. ``allow_last`` is for staff in a shell who
    mean to cut an operator off. Revoking a revoked key changes nothing.
    """
    _locked_keys(api_key.operator)
    locked = lock_api_key(api_key.pk)
    now = timezone.now()
    if locked.revoked_at is not None and locked.revoked_at <= now:
        return locked
    others_active = (
        OperatorApiKey.objects.filter(operator_id=locked.operator_id, revoked_at__isnull=True)
        .exclude(pk=locked.pk)
        .exists()
    )
    if not others_active and not allow_last:
        raise LastApiKeyProblem(
            f"Key {locked.prefix} is the operator's last active API key; create or rotate "
            "a key before revoking it"
        )
    scheduled = locked.revoked_at
    locked.revoked_at = now
    locked.save(update_fields=["revoked_at"])
    audit_record(
        actor=actor,
        action="api_key.revoked",
        obj=locked,
        operator=locked.operator,
        data={"prefix": locked.prefix, **({"was_scheduled_for": scheduled} if scheduled else {})},
    )
    return locked


@transaction.atomic
def api_key_rotate(
    *,
    api_key: OperatorApiKey,
    actor: Actor,
    grace_seconds: int = 0,
    name: str | None = None,
) -> IssuedApiKey:
    """Issue a new key in place of ``api_key`` and revoke the old one, at once or after a
    grace period (``grace_seconds``, 0 to 7 days) during which both work.

    The new key keeps the old one's name unless given one. Rotating a key that is already
    scheduled to be revoked brings its revocation forward if the new grace ends sooner,
    never later. A revoked key cannot be rotated (ApiKeyRevokedProblem).
    """
    if not 0 <= grace_seconds <= API_KEY_MAX_GRACE_SECONDS:
        raise ApiKeyGraceProblem(
            f"grace_seconds must be between 0 and {API_KEY_MAX_GRACE_SECONDS}",
            field="grace_seconds",
        )
    _locked_keys(api_key.operator)
    locked = lock_api_key(api_key.pk)
    now = timezone.now()
    if locked.revoked_at is not None and locked.revoked_at <= now:
        raise ApiKeyRevokedProblem(f"Key {locked.prefix} was revoked at {locked.revoked_at}")
    full, prefix, key_hash = new_api_key(test=api_key.operator.is_sandbox)
    new_name = name if name is not None else locked.name
    replacement = OperatorApiKey.objects.create(
        operator_id=locked.operator_id, name=new_name, prefix=prefix, key_hash=key_hash
    )
    revokes_at = now + timedelta(seconds=grace_seconds)
    if locked.revoked_at is not None:
        revokes_at = min(revokes_at, locked.revoked_at)
    locked.revoked_at = revokes_at
    locked.save(update_fields=["revoked_at"])
    audit_record(
        actor=actor,
        action="api_key.created",
        obj=replacement,
        operator=locked.operator,
        data={"name": new_name, "prefix": prefix, "replaces": locked.prefix},
    )
    audit_record(
        actor=actor,
        action="api_key.rotated",
        obj=locked,
        operator=locked.operator,
        data={
            "prefix": locked.prefix,
            "replaced_by": prefix,
            "grace_seconds": grace_seconds,
            "revoked_at": revokes_at,
        },
    )
    return IssuedApiKey(api_key=replacement, key=full)
