"""Staff access changes, four eyes (docs/backoffice.md "Staff access").

A staff user's **access** is what decides what they may do: the active, staff and superuser
flags, their roles (groups), their own permissions and their operator scope
(``StaffOperatorScope`` rows). None of it changes in one person's hands, and nobody changes
their own access alone:

- ``staff_change_propose``: an unscoped staff member whose role holds
  ``platform.propose_staff_change`` records a pending ``StaffChangeRequest`` with the fields
  that change, each as ``[before, after]``;
- ``staff_change_approve``: another unscoped staff member with
  ``platform.approve_staff_change`` approves it, and it executes at once under the request's
  row lock (gin_platform/locks.py), then the user's: two approvers racing execute it once,
  approving an executed request again returns it unchanged. If the user's access no longer
  matches the proposal's ``before`` (another request changed it), nothing changes and the
  request is recorded ``failed``;
- ``staff_change_reject``: closes a pending request.

The decider is neither the proposer nor the user whose access changes
(``four-eyes-required``). When a request is approved and again when it executes, the
proposer must still be entitled to propose it (``four_eyes.proposer_refusal``): a proposer who
was deactivated, lost the permission or was limited to some operators since leaves a request
that fails (``proposer-not-entitled``) and changes nothing. Every step writes its audit row;
the execution also writes ``staff.access_changed`` on the user.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import Group, Permission
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from gin_platform.audit import audit_record
from gin_platform.http.problems import (
    ApprovalInvalidProblem,
    ApprovalNotPendingProblem,
    FourEyesRequiredProblem,
    PermissionDeniedProblem,
    Problem,
    ProposerNotEntitledProblem,
)
from gin_platform.locks import lock_staff_change, lock_staff_user
from gin_platform.models import Operator, StaffChangeRequest, StaffOperatorScope
from gin_platform.staff.four_eyes import REQUEST_TEXT_LENGTH, proposer_refusal, request_text
from gin_platform.staff.scope import unscoped
from gin_platform.tenancy.principals import actor_for

FLAGS = ("is_active", "is_staff", "is_superuser")
ACCESS_FIELDS = (*FLAGS, "groups", "user_permissions", "operator_scope")
PROPOSE = "platform.propose_staff_change"
APPROVE = "platform.approve_staff_change"
REASON_LENGTH = REQUEST_TEXT_LENGTH
Status = StaffChangeRequest.Status


# --- Reads ------------------------------------------------------------------------------------
def staff_access(*, user: Any) -> dict[str, Any]:
    """A user's access as a request stores it: the flags, role names, own permissions as
    ``app_label.codename`` and the scope's operator ids, each list sorted."""
    permissions = user.user_permissions.values_list("content_type__app_label", "codename")
    scope = StaffOperatorScope.objects.filter(user_id=user.pk).values_list("operator_id", flat=True)
    return {
        "is_active": user.is_active,
        "is_staff": user.is_staff,
        "is_superuser": user.is_superuser,
        "groups": sorted(user.groups.values_list("name", flat=True)),
        "user_permissions": sorted(f"{app}.{codename}" for app, codename in permissions),
        "operator_scope": sorted(str(pk) for pk in scope),
    }


def _names(value: object, field: str) -> list[str]:
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise ApprovalInvalidProblem(f"{field} is a list of strings", field=field)
    return sorted(set(value))


def _clean(access: Mapping[str, Any]) -> dict[str, Any]:
    """``access`` (some of ACCESS_FIELDS) checked: flags are booleans, and every role,
    permission and operator it names exists."""
    unknown = set(access) - set(ACCESS_FIELDS)
    if unknown:
        raise ApprovalInvalidProblem(f"not an access field: {', '.join(sorted(unknown))}")
    clean: dict[str, Any] = {}
    for name in FLAGS:
        if name in access:
            if not isinstance(access[name], bool):
                raise ApprovalInvalidProblem(f"{name} is true or false", field=name)
            clean[name] = access[name]
    if "groups" in access:
        groups = _names(access["groups"], "groups")
        if Group.objects.filter(name__in=groups).count() != len(groups):
            raise ApprovalInvalidProblem("groups names a role that does not exist", field="groups")
        clean["groups"] = groups
    if "user_permissions" in access:
        wanted = _names(access["user_permissions"], "user_permissions")
        pairs = _permissions(wanted).values_list("content_type__app_label", "codename")
        if {f"{app}.{codename}" for app, codename in pairs} != set(wanted):
            raise ApprovalInvalidProblem(
                "user_permissions names a permission that does not exist",
                field="user_permissions",
            )
        clean["user_permissions"] = wanted
    if "operator_scope" in access:
        ids = _names(access["operator_scope"], "operator_scope")
        try:
            found = Operator.objects.filter(pk__in=ids).values_list("pk", flat=True)
            known = {str(pk) for pk in found}
        except (ValueError, ValidationError):  # not an operator id at all
            known = set()
        if known != set(ids):
            raise ApprovalInvalidProblem(
                "operator_scope names an operator that does not exist", field="operator_scope"
            )
        clean["operator_scope"] = ids
    return clean


def _permissions(names: list[str]):
    rows = Permission.objects.none()
    for name in names:
        app_label, _, codename = name.partition(".")
        rows = rows | Permission.objects.filter(
            content_type__app_label=app_label, codename=codename
        )
    return rows


def staff_access_changes(*, user: Any, access: Mapping[str, Any]) -> dict[str, list[Any]]:
    """What ``access`` (some of ACCESS_FIELDS, checked) would change of the user's access:
    ``{field: [before, after]}``, only the fields that differ."""
    clean = _clean(access)
    current = staff_access(user=user)
    return {
        name: [current[name], clean[name]]
        for name in ACCESS_FIELDS
        if name in clean and clean[name] != current[name]
    }


def may_propose(*, user: Any) -> bool:
    return proposer_refusal(user_id=user.pk, permission=PROPOSE, every_operator=True) is None


def may_decide(*, user: Any) -> bool:
    return bool(user.has_perm(APPROVE)) and unscoped(user)


# --- Proposals ----------------------------------------------------------------------------------
@transaction.atomic
def staff_change_propose(
    *, user: Any, subject: Any, access: Mapping[str, Any], reason: str
) -> StaffChangeRequest:
    """Record a pending change of ``subject``'s access (``access``: the fields to set, some
    of ACCESS_FIELDS) for another staff member to approve; ``user`` proposes."""
    refusal = proposer_refusal(user_id=user.pk, permission=PROPOSE, every_operator=True)
    if refusal is not None:
        raise PermissionDeniedProblem(f"You may not propose a staff access change: {refusal}")
    reason = request_text(reason, "reason")
    changes = staff_access_changes(user=subject, access=access)
    if not changes:
        raise ApprovalInvalidProblem("The proposal changes nothing of the user's access")
    change = StaffChangeRequest.objects.create(
        user=subject, changes=changes, reason=reason, proposed_by=user
    )
    audit_record(
        actor=actor_for(user),
        action="staff_change.proposed",
        obj=change,
        operator=None,
        data={"user": subject.get_username(), "changes": changes, "reason": reason},
    )
    return change


# --- Decisions ----------------------------------------------------------------------------------
def _check_decider(change: StaffChangeRequest, user: Any) -> None:
    if not may_decide(user=user):
        raise PermissionDeniedProblem(
            "Only an unscoped staff member whose role may approve staff access changes decides them"
        )
    if change.proposed_by_id == user.pk:
        raise FourEyesRequiredProblem(
            "You proposed this request: another staff member must decide it"
        )
    if change.user_id == user.pk:
        raise FourEyesRequiredProblem(
            "The request changes your own access: another staff member must decide it"
        )


def _check_proposer(change: StaffChangeRequest) -> None:
    """The proposer may still propose it (checked at approval and at execution)."""
    refusal = proposer_refusal(
        user_id=change.proposed_by_id, permission=PROPOSE, every_operator=True
    )
    if refusal is not None:
        raise ProposerNotEntitledProblem(
            f"The proposer may no longer propose a staff access change ({refusal}): "
            "nothing was changed; an entitled staff member must propose it again"
        )


def _execute(change: StaffChangeRequest, user: Any) -> None:
    """Apply the request to the user (inside the request's transaction, under its lock)."""
    _check_proposer(change)
    subject = lock_staff_user(change.user_id)
    current = staff_access(user=subject)
    stale = sorted(name for name, (before, _) in change.changes.items() if current[name] != before)
    if stale:
        raise ApprovalInvalidProblem(
            f"The user's {', '.join(stale)} changed since the proposal: nothing was changed; "
            "propose again",
            field=stale[0],
        )
    after = _clean({name: pair[1] for name, pair in change.changes.items()})
    flags = [name for name in FLAGS if name in after]
    for name in flags:
        setattr(subject, name, after[name])
    if flags:
        subject.save(update_fields=flags)
    if "groups" in after:
        subject.groups.set(Group.objects.filter(name__in=after["groups"]))
    if "user_permissions" in after:
        subject.user_permissions.set(_permissions(after["user_permissions"]))
    if "operator_scope" in after:
        wanted = set(after["operator_scope"])
        rows = StaffOperatorScope.objects.filter(user_id=subject.pk)
        rows.exclude(operator_id__in=wanted).delete()
        kept = {str(pk) for pk in rows.values_list("operator_id", flat=True)}
        StaffOperatorScope.objects.bulk_create(
            StaffOperatorScope(user_id=subject.pk, operator_id=pk) for pk in sorted(wanted - kept)
        )
    audit_record(
        actor=actor_for(user),
        action="staff.access_changed",
        obj=subject,
        operator=None,
        data={
            "changes": change.changes,
            "request": change.pk,
            "proposed_by": change.proposed_by_id,
        },
    )


def _decide(
    change: StaffChangeRequest, user: Any, status: str, note: str, problem: str = ""
) -> None:
    change.status = status
    change.decided_by = user
    change.decided_at = timezone.now()
    change.decision_note = note[:REASON_LENGTH]
    change.save(update_fields=["status", "decided_by", "decided_at", "decision_note"])
    data = {"user_id": change.user_id, "changes": change.changes, "note": change.decision_note}
    if problem:
        data["problem"] = problem
    audit_record(
        actor=actor_for(user),
        action=f"staff_change.{status}",
        obj=change,
        operator=None,
        data=data,
    )


def staff_change_approve(
    *, change: StaffChangeRequest, user: Any, note: str = ""
) -> StaffChangeRequest:
    """Approve and execute, atomically. Executed already: returned unchanged. A proposer no
    longer entitled, or a user whose access changed since the proposal: recorded failed,
    nothing changed, the problem raised."""
    note = request_text(note, "note", required=False)
    _check_decider(change, user)
    try:
        with transaction.atomic():
            locked = lock_staff_change(change.pk)
            if locked.status == Status.EXECUTED:
                return locked
            if locked.status != Status.PENDING:
                raise ApprovalNotPendingProblem(
                    f"The request is {locked.status}", approval_status=locked.status
                )
            _check_proposer(locked)
            _execute(locked, user)
            _decide(locked, user, Status.EXECUTED, note)
            return locked
    except (ApprovalNotPendingProblem, FourEyesRequiredProblem, PermissionDeniedProblem):
        raise
    except Problem as problem:
        with transaction.atomic():
            locked = lock_staff_change(change.pk)
            if locked.status == Status.PENDING:
                detail = f"{note} [{problem.detail}]".strip()
                _decide(locked, user, Status.FAILED, detail, problem=problem.slug)
        raise


@transaction.atomic
def staff_change_reject(
    *, change: StaffChangeRequest, user: Any, note: str = ""
) -> StaffChangeRequest:
    """Close a pending request without changing anything."""
    note = request_text(note, "note", required=False)
    _check_decider(change, user)
    locked = lock_staff_change(change.pk)
    if locked.status != Status.PENDING:
        raise ApprovalNotPendingProblem(
            f"The request is {locked.status}", approval_status=locked.status
        )
    _decide(locked, user, Status.REJECTED, note)
    return locked
