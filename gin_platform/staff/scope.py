"""A staff user's operator scope: with ``StaffOperatorScope`` rows they see only those
operators (no row: every operator); only unscoped staff administer staff."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from django.db.models import QuerySet

from gin_platform.models import StaffOperatorScope

if TYPE_CHECKING:
    pass


def operator_scope(user: Any) -> frozenset | None:
    """The operator ids a staff user may see, or None for every operator (no scope row)."""
    if hasattr(user, "_staff_operator_scope"):  # this user's, looked up already
        return user._staff_operator_scope
    ids = frozenset(
        StaffOperatorScope.objects.filter(user_id=user.pk).values_list("operator_id", flat=True)
    )
    scope = ids or None
    with contextlib.suppress(AttributeError):  # a user object that takes no attributes
        user._staff_operator_scope = scope
    return scope


def in_scope(user: Any, operator_id: Any) -> bool:
    scope = operator_scope(user)
    return scope is None or operator_id in scope


def scope_queryset(queryset: QuerySet, user: Any, field: str = "operator") -> QuerySet:
    """``queryset`` limited to the operators the user may see (``field`` leads to one)."""
    scope = operator_scope(user)
    if scope is None:
        return queryset
    return queryset.filter(**{f"{field}__in": scope})


def unscoped(user: Any) -> bool:
    """Whether a staff user sees every operator (no scope row). Only such users administer
    staff (users, roles, operator scope, second factors): a scoped user never sees them."""
    return bool(getattr(user, "is_authenticated", False)) and operator_scope(user) is None
