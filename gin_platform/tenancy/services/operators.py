"""Operators: creation (staff), their settings (webhook URL, signed requests, jurisdiction
profile and reality-check interval), the webhook
secret's rotation and their request-signing secrets; the real-currency rule every tenant's
amounts follow."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from gin_platform.audit import audit_record
from gin_platform.events.webhook_targets import target_url_problem
from gin_platform.http.problems import Problem
from gin_platform.locks import lock_operator, lock_signing_secret
from gin_platform.models import Operator, OperatorSigningSecret
from gin_platform.money import CurrencyError, is_real_currency, normalize_currency
from gin_platform.tenancy.jurisdictions import (
    REALITY_CHECK_LONGEST_MINUTES,
    REALITY_CHECK_MIN_MINUTES,
    reality_check_minutes_allowed,
)
from gin_platform.tenancy.principals import Actor
from gin_platform.tenancy.tokens import new_signing_secret


class UnknownCurrencyProblem(Problem):
    slug = "unknown-currency"
    status = 422
    title = _("Unknown currency")
    description = "The currency is not an ISO 4217 code in circulation."


class SigningSecretRequiredProblem(Problem):
    slug = "signing-secret-required"
    status = 409
    title = _("No active signing secret")


class WebhookUrlInvalidProblem(Problem):
    slug = "webhook-url-invalid"
    status = 422
    title = _("The webhook URL is not allowed")
    description = (
        "https:// only in production (http:// also in development), a valid host name or IP "
        "address, no user name or password, no fragment, at most 200 characters, and a host "
        "that is not (in any spelling) and does not resolve to a loopback, private, link-local "
        "or reserved address (docs/webhooks.md). `field` is `webhook_url`."
    )


class RealityCheckIntervalInvalidProblem(Problem):
    slug = "reality-check-interval-invalid"
    status = 422
    title = _("The reality-check interval is not allowed")
    description = (
        "The operator's reality-check interval is between `minimum` and `maximum` minutes, "
        'the longest its jurisdiction profile allows (docs/player-protection.md "Profiles"); '
        "null takes the profile's default. Changing the profile checks the interval again."
    )


class _Unset:
    """A keyword argument not given (where None is a value: the default)."""


_UNSET = _Unset()


def _webhook_url(url: str) -> str:
    problem = target_url_problem(url)
    if problem:
        raise WebhookUrlInvalidProblem(f"webhook_url: {problem}", field="webhook_url")
    return url


def real_currency(code: str, *, field: str) -> str:
    """``code`` as an ISO 4217 code in circulation (UnknownCurrencyProblem naming
    ``field`` otherwise); practice play money is no wallet currency."""
    try:
        normalized = normalize_currency(code)
    except CurrencyError as exc:
        raise UnknownCurrencyProblem(str(exc), field=field) from exc
    if not is_real_currency(normalized):
        raise UnknownCurrencyProblem(
            f"{normalized} is practice play money, not a wallet currency", field=field
        )
    return normalized


@transaction.atomic
def operator_create(
    *,
    name: str,
    slug: str,
    base_currency: str,
    webhook_url: str = "",
    actor: Actor,
) -> Operator:
    operator = Operator.objects.create(
        name=name,
        slug=slug,
        base_currency=real_currency(base_currency, field="base_currency"),
        webhook_url=_webhook_url(webhook_url),
        webhook_secret=new_signing_secret(),
    )
    audit_record(
        actor=actor,
        action="operator.created",
        obj=operator,
        operator=operator,
        data={"slug": slug, "base_currency": operator.base_currency},
    )
    return operator


@transaction.atomic
def operator_update(
    *,
    operator: Operator,
    actor: Actor,
    webhook_url: str | None = None,
    require_signed_requests: bool | None = None,
    jurisdiction: str | None = None,
    reality_check_minutes: int | _Unset | None = _UNSET,
) -> Operator:
    """Change the operator's settings; each change is audited with its old and new value.
    ``reality_check_minutes`` (None: the profile's default) must be one the jurisdiction
    profile allows (422 ``reality-check-interval-invalid``)."""
    if webhook_url is not None:
        _webhook_url(webhook_url)  # before the lock: the check may ask DNS
    locked = lock_operator(operator.pk)
    changes: dict[str, list] = {}
    for field, value in (
        ("webhook_url", webhook_url),
        ("require_signed_requests", require_signed_requests),
        ("jurisdiction", jurisdiction),
    ):
        if value is not None and getattr(locked, field) != value:
            changes[field] = [getattr(locked, field), value]
            setattr(locked, field, value)
    if not isinstance(reality_check_minutes, _Unset) and (
        locked.reality_check_minutes != reality_check_minutes
    ):
        changes["reality_check_minutes"] = [locked.reality_check_minutes, reality_check_minutes]
        locked.reality_check_minutes = reality_check_minutes
    if not reality_check_minutes_allowed(locked.protection_profile, locked.reality_check_minutes):
        profile = locked.protection_profile
        longest = profile.reality_check_max_minutes or REALITY_CHECK_LONGEST_MINUTES
        raise RealityCheckIntervalInvalidProblem(
            f"under the {profile.code} profile a reality check comes every "
            f"{REALITY_CHECK_MIN_MINUTES} to {longest} minutes",
            field="reality_check_minutes",
            minimum=REALITY_CHECK_MIN_MINUTES,
            maximum=longest,
        )
    if (
        require_signed_requests
        and not locked.signing_secrets.filter(revoked_at__isnull=True).exists()
    ):
        raise SigningSecretRequiredProblem(
            "Create a signing secret before requiring signed requests"
        )
    if changes:
        locked.save(update_fields=list(changes))
        audit_record(
            actor=actor, action="operator.updated", obj=locked, operator=locked, data=changes
        )
    return locked


@transaction.atomic
def webhook_secret_rotate(*, operator: Operator, actor: Actor) -> Operator:
    locked = lock_operator(operator.pk)
    locked.webhook_secret = new_signing_secret()
    locked.save(update_fields=["webhook_secret"])
    audit_record(actor=actor, action="operator.webhook_secret_rotated", obj=locked, operator=locked)
    return locked


@transaction.atomic
def signing_secret_create(*, operator: Operator, actor: Actor) -> OperatorSigningSecret:
    secret = OperatorSigningSecret.objects.create(operator=operator, secret=new_signing_secret())
    audit_record(actor=actor, action="signing_secret.created", obj=secret, operator=operator)
    return secret


@transaction.atomic
def signing_secret_revoke(*, secret: OperatorSigningSecret, actor: Actor) -> OperatorSigningSecret:
    locked = lock_signing_secret(secret.pk)
    if locked.revoked_at is None:
        locked.revoked_at = timezone.now()
        locked.save(update_fields=["revoked_at"])
        audit_record(
            actor=actor, action="signing_secret.revoked", obj=locked, operator=locked.operator
        )
    return locked
