"""Reads of the four-eyes approval requests (wallet.services.approvals), scoped to the
operators a staff user may see (gin_platform/staff/scope.py)."""

from __future__ import annotations

from django.db.models import QuerySet

from wallet.models import ApprovalRequest
from wallet.selectors.transactions import by_id


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
    rows = approval_list(operator_ids=operator_ids)
    return by_id(rows, approval_id, f"No approval request {approval_id}")
