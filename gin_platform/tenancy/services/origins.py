"""Registered origins (gin_platform/http/cors.py, docs/browser-clients.md): the sites whose
pages may call the API and open sockets for an operator's players."""

from __future__ import annotations

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils.translation import gettext_lazy as _

from gin_platform.audit import audit_record
from gin_platform.http.cors import OriginError, forget_origin, normalize_origin
from gin_platform.http.problems import Problem
from gin_platform.models import Operator, OperatorOrigin
from gin_platform.tenancy.principals import Actor


class OriginInvalidProblem(Problem):
    slug = "origin-invalid"
    status = 422
    title = _("The origin is not allowed")
    description = (
        "An origin is scheme://host[:port]: https:// (http:// also for localhost, 127.0.0.1 "
        "and [::1] outside production), no path, query, fragment, user name or wildcard "
        "(docs/browser-clients.md)."
    )


class OriginExistsProblem(Problem):
    slug = "origin-exists"
    status = 409
    title = _("The operator already registered this origin")
    description = "`id` is the registration's id (DELETE /api/v1/operators/me/origins/{id})."


@transaction.atomic
def operator_origin_create(*, operator: Operator, origin: str, actor: Actor) -> OperatorOrigin:
    """Register ``origin`` (normalised) for ``operator``: its pages may then call the API and
    open sockets for the operator's players."""
    try:
        normalized = normalize_origin(
            origin, allow_http_localhost=settings.OPERATOR_ORIGINS_ALLOW_HTTP_LOCALHOST
        )
    except OriginError as exc:
        raise OriginInvalidProblem(f"origin: {exc}", field="origin") from exc
    existing = OperatorOrigin.objects.filter(operator=operator, origin=normalized).first()
    if existing is not None:
        raise OriginExistsProblem(f"{normalized} is already registered", id=existing.pk)
    try:
        with transaction.atomic():
            registered = OperatorOrigin.objects.create(operator=operator, origin=normalized)
    except IntegrityError as exc:  # registered by a concurrent request meanwhile
        raise OriginExistsProblem(f"{normalized} is already registered") from exc
    audit_record(
        actor=actor,
        action="operator_origin.created",
        obj=registered,
        operator=operator,
        data={"origin": normalized},
    )
    transaction.on_commit(lambda: forget_origin(normalized))
    return registered


@transaction.atomic
def operator_origin_delete(*, origin: OperatorOrigin, actor: Actor) -> None:
    """Remove a registration: pages at that origin can no longer act for the operator's
    players (sockets already open stay until they close)."""
    deleted, _ = OperatorOrigin.objects.filter(pk=origin.pk).delete()
    if not deleted:
        return  # deleted by a concurrent request
    audit_record(
        actor=actor,
        action="operator_origin.deleted",
        obj=origin,
        operator=origin.operator,
        data={"origin": origin.origin},
    )
    value = origin.origin
    transaction.on_commit(lambda: forget_origin(value))
