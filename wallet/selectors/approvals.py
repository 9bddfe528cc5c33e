"""Reads of the four-eyes approval requests (wallet.services.approvals), scoped to the
operators a staff user may see (gin_platform/staff/scope.py)."""

from __future__ import annotations

from django.db.models import QuerySet

from gin_platform.http.problems import NotFoundProblem
from wallet.models import ApprovalRequest


def approval_list(
    *, operator_ids: frozenset | None, status: str | None = None
) -> QuerySet[ApprovalRequest]:
    """Approval requests, newest first; ``operator_ids``: the staff user's scope (None: all)."""
    rows = ApprovalRequest.objects.select_related("operator", "proposed_by", "decided_by")
    if operator_ids is not None:
        rows = rows.filter(operator_id__in=operator_ids)
    if status:
        rows = rows.filter(status=status)
    return rows.order_by("-proposed_at", "-pk")


def approval_get(*, approval_id: object, operator_ids: frozenset | None) -> ApprovalRequest:
    """One approval request in the staff user's scope, else 404."""
    try:
        pk = int(str(approval_id))
    except ValueError:
        pk = None
    found = approval_list(operator_ids=operator_ids).filter(pk=pk).first() if pk else None
    if found is None:
        raise NotFoundProblem(f"No approval request {approval_id}")
    return found
