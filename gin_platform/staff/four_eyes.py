"""What every four-eyes request shares (the wallet's approvals, the staff access changes):
its reason and decision note, and who may propose it, checked again when it is approved
and executed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib.auth import get_user_model

from gin_platform.http.problems import ApprovalInvalidProblem

if TYPE_CHECKING:
    pass
from gin_platform.staff.scope import operator_scope

# The reason and decision note of a four-eyes request (the wallet's and the staff access').
REQUEST_TEXT_LENGTH = 500


def request_text(value: object, field: str, *, required: bool = True) -> str:
    """A request's reason or note, stripped; approval-invalid naming ``field`` otherwise."""
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise ApprovalInvalidProblem(f"{field} must be a non-empty string", field=field)
    if len(value) > REQUEST_TEXT_LENGTH:
        raise ApprovalInvalidProblem(f"{field} is longer than {REQUEST_TEXT_LENGTH}", field=field)
    return value.strip()


def proposer_refusal(
    *, user_id: Any, permission: str, operator_id: Any = None, every_operator: bool = False
) -> str | None:
    """Why the staff user ``user_id`` may not (or may no longer) propose a request needing
    ``permission`` ("app.codename") about ``operator_id``, or None if they may. Read afresh
    from the database (role, active flag and scope as they are now, not as a cached user
    object remembers them); ``every_operator``: only an unscoped user may propose it."""
    user = get_user_model()._default_manager.filter(pk=user_id).first()
    if user is None or not user.is_active or not user.is_staff:
        return "not an active staff user"
    if not user.has_perm(permission):
        return f"the role does not hold {permission}"
    scope = operator_scope(user)
    if every_operator and scope is not None:
        return "limited to some operators"
    if operator_id is not None and scope is not None and operator_id not in scope:
        return "the request's operator is outside the operator scope"
    return None
