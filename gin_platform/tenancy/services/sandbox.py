"""The sandbox (test mode, docs/api.md "Sandbox"): a live operator's sandbox twin, created
on first use, and which of the two a caller acts on in a mode."""

from __future__ import annotations

import secrets

from django.db import transaction

from gin_platform.audit import audit_record
from gin_platform.http.problems import LiveModeForbiddenProblem
from gin_platform.locks import lock_operator_row
from gin_platform.models import Operator
from gin_platform.tenancy.principals import Actor
from gin_platform.tenancy.tokens import new_signing_secret

SANDBOX_SLUG_SUFFIX = "-sandbox"


def _sandbox_slug(operator: Operator) -> str:
    """``<slug>-sandbox``, or with a random tail when a live operator already took it."""
    base = operator.slug[: 64 - len(SANDBOX_SLUG_SUFFIX) - 5] + SANDBOX_SLUG_SUFFIX
    slug = base
    while Operator.objects.filter(slug=slug).exists():
        slug = f"{base}-{secrets.token_hex(2)}"
    return slug


@transaction.atomic
def sandbox_operator_get_or_create(*, operator: Operator, actor: Actor) -> Operator:
    """The sandbox twin of the live ``operator``, created (and audited, on the live
    operator) on first use: an operator of its own, "<name> (sandbox)" with slug
    ``<slug>-sandbox``, the same base currency, its own webhook secret, no webhook URL, no
    signing secret or origin. A sandbox operator is its own sandbox."""
    if operator.is_sandbox:
        return operator
    lock_operator_row(operator.pk)  # two first uses racing create one twin
    twin = Operator.objects.filter(live_operator=operator).first()
    if twin is not None:
        return twin
    twin = Operator.objects.create(
        name=f"{operator.name} (sandbox)"[:200],
        slug=_sandbox_slug(operator),
        base_currency=operator.base_currency,
        webhook_secret=new_signing_secret(),
        is_sandbox=True,
        live_operator=operator,
    )
    audit_record(
        actor=actor,
        action="operator.sandbox_created",
        obj=twin,
        operator=operator,
        data={"sandbox": str(twin.pk), "slug": twin.slug},
    )
    return twin


def operator_for_mode(*, operator: Operator, mode: str | None, actor: Actor) -> Operator:
    """The tenant a caller authenticated as ``operator`` acts on in ``mode``: itself (no mode
    or its own), or a live operator's sandbox twin (created on first use). A sandbox
    operator never reaches live mode (LiveModeForbiddenProblem)."""
    if mode is None or mode == operator.mode:
        return operator
    if operator.is_sandbox:
        raise LiveModeForbiddenProblem("A test-mode key cannot act in live mode", field="mode")
    return sandbox_operator_get_or_create(operator=operator, actor=actor)
