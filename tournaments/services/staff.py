"""Staff's tournaments, with four eyes (docs/backoffice.md "Four-eyes approval"; the pattern
of wallet/services/approvals.py and integrity/services/confiscation.py, with
gin_platform/staff/four_eyes.py):

- ``network_tournament_propose``: a staff user (``tournaments.propose_create``) proposes a
  network tournament: its owner the network's operator, its players every member's (R14
  "Network tournaments"). Its options are checked now with creation's own checks
  (``creation.tournament_options_check``), so a request the approval would refuse for its
  options is never recorded. Every staff creation is a request, with a guarantee or not:
  a guarantee's overlay is the network's money at risk, and any tournament takes the
  players' money into the network's escrow; one rule is simpler to keep (and to audit) than
  a line drawn between them.
- ``tournament_cancel_propose``: a staff user (``tournaments.propose_cancel``) proposes
  cancelling any tournament in their scope that has not ended; one pending per tournament.
- ``tournament_request_approve``: another staff user (``tournaments.approve_<kind>``;
  never the proposer: ``four-eyes-required``) approves: under the request's row lock
  (tournaments/locks.py) the action runs with the approver as its actor (the tournament
  created, or ``lifecycle.tournament_cancel``) and the request is marked executed, in one
  transaction. Two approvers racing execute it once; approving an executed request again
  returns it unchanged. The proposer's right is checked again (active, role, scope:
  ``proposer-not-entitled``). An action refused (its options no longer valid, the
  tournament ended meanwhile) marks the request failed with the problem's slug, and the
  problem is raised.
- ``tournament_request_reject``: an approver closes a pending request with a note.

A network tournament spans every member operator, so only an unscoped staff user proposes
or decides one (its creation, or its cancellation); an operator's own tournament needs that
operator in the user's scope. Every step writes its audit row (``tournament_request.*``).
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
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
from gin_platform.models import Operator
from gin_platform.staff.four_eyes import REQUEST_TEXT_LENGTH, proposer_refusal, request_text
from gin_platform.tenancy.principals import Actor, actor_for
from gin_platform.tenancy.selectors import is_network_operator, network_get
from tournaments.locks import lock_tournament, lock_tournament_request
from tournaments.models import Tournament, TournamentRequest
from tournaments.problems import TournamentEndedProblem
from tournaments.services.creation import (
    TournamentOptions,
    tournament_create,
    tournament_options_check,
)
from tournaments.services.lifecycle import tournament_cancel

Kind = TournamentRequest.Kind
Status = TournamentRequest.Status
STAFF_CANCEL = "staff"  # the tournament's cancel_reason; the request's reason says why
MOMENTS = ("registration_opens_at", "starts_at")  # the options' date-times, ISO 8601 stored


def _permission(action: str, kind: str) -> str:
    return f"tournaments.{action}_{kind}"


def _refusal(*, user_id: Any, permission: str, operator_id: Any) -> str | None:
    """Why the user may not act on a request about ``operator_id``'s tournament, or None:
    a network tournament's needs an unscoped user (it spans every member operator)."""
    return proposer_refusal(
        user_id=user_id,
        permission=permission,
        operator_id=operator_id,
        every_operator=is_network_operator(operator_id),
    )


def options_payload(options: TournamentOptions) -> dict[str, Any]:
    """The options as a request stores them: JSON, money in minor units, moments in ISO
    8601 with their offset."""
    payload = dataclasses.asdict(options)
    for name in MOMENTS:
        moment = payload[name]
        payload[name] = moment.isoformat() if moment is not None else None
    payload["round_settings"] = [dict(setting) for setting in options.round_settings]
    payload["prize_table"] = list(options.prize_table)
    payload["rules"] = dict(options.rules)
    return payload


def options_from_payload(payload: dict[str, Any]) -> TournamentOptions:
    values = dict(payload)
    for name in MOMENTS:
        values[name] = datetime.fromisoformat(values[name]) if values.get(name) else None
    return TournamentOptions(**values)


def _record(row: TournamentRequest, user: Any, step: str, data: dict[str, Any]) -> None:
    """The step's audit row (``tournament_request.proposed``, ``.executed``, ...)."""
    audit_record(
        actor=actor_for(user),
        action=f"tournament_request.{step}",
        obj=row,
        operator=row.operator,
        data={"kind": row.kind, "tournament": row.tournament_id, **data},
    )


# --- Proposals -----------------------------------------------------------------------------------
def _proposable(*, user: Any, kind: str, operator: Operator) -> None:
    permission = _permission("propose", kind)
    if not user.has_perm(permission):
        raise PermissionDeniedProblem(f"Your back-office role may not propose a tournament {kind}")
    refusal = _refusal(user_id=user.pk, permission=permission, operator_id=operator.pk)
    if refusal is not None:
        raise PermissionDeniedProblem(f"You may not propose this tournament {kind}: {refusal}")


@transaction.atomic
def network_tournament_propose(
    *, options: TournamentOptions, reason: str, user: Any
) -> TournamentRequest:
    """Record a pending request to create a network tournament with ``options`` (money in
    minor units of its currency), checked as creation checks them."""
    network = network_get()
    if network is None:
        raise ApprovalInvalidProblem(
            "there is no network: staff create network tournaments only", field="network"
        )
    owner = network.operator
    _proposable(user=user, kind=Kind.CREATE, operator=owner)
    reason = request_text(reason, "reason")
    tournament_options_check(operator=owner, options=options)
    row = TournamentRequest.objects.create(
        kind=Kind.CREATE,
        operator=owner,
        payload=options_payload(options),
        reason=reason,
        proposed_by=user,
    )
    _record(row, user, "proposed", {"payload": row.payload, "reason": reason})
    return row


@transaction.atomic
def tournament_cancel_propose(
    *, tournament: Tournament, reason: str, user: Any
) -> TournamentRequest:
    """Record a pending request to cancel ``tournament`` (R14 "Cancellation")."""
    _proposable(user=user, kind=Kind.CANCEL, operator=tournament.operator)
    reason = request_text(reason, "reason")
    if tournament.status in Tournament.ENDED_STATUSES:
        raise TournamentEndedProblem(tournament_status=tournament.status)
    try:
        with transaction.atomic():
            row = TournamentRequest.objects.create(
                kind=Kind.CANCEL,
                operator=tournament.operator,
                tournament=tournament,
                reason=reason,
                proposed_by=user,
            )
    except IntegrityError:
        raise ApprovalInvalidProblem(
            "a cancellation of this tournament is pending already", field="tournament"
        ) from None
    _record(row, user, "proposed", {"reason": reason})
    return row


# --- Decisions -----------------------------------------------------------------------------------
def _check_decider(row: TournamentRequest, user: Any) -> None:
    permission = _permission("approve", row.kind)
    if not user.has_perm(permission):
        raise PermissionDeniedProblem(
            f"Your back-office role may not decide a tournament {row.kind}"
        )
    if row.proposed_by_id == user.pk:
        raise FourEyesRequiredProblem(
            "You proposed this request: another staff member must decide it"
        )
    refusal = _refusal(user_id=user.pk, permission=permission, operator_id=row.operator_id)
    if refusal is not None:
        raise PermissionDeniedProblem(f"You may not decide this request: {refusal}")


def _check_proposer(row: TournamentRequest) -> None:
    """The proposer may still propose the request, as they are now (role, active, scope)."""
    refusal = _refusal(
        user_id=row.proposed_by_id,
        permission=_permission("propose", row.kind),
        operator_id=row.operator_id,
    )
    if refusal is not None:
        raise ProposerNotEntitledProblem(
            f"The proposer may no longer propose a tournament {row.kind} ({refusal}): nothing "
            "was executed; an entitled staff member must propose it again"
        )


def _execute(row: TournamentRequest, actor: Actor) -> None:
    """Run the approved action inside the approval's transaction (the request locked)."""
    if row.kind == Kind.CREATE:
        row.tournament = tournament_create(
            operator=row.operator, options=options_from_payload(row.payload), actor=actor
        )
    else:
        assert row.tournament_id is not None  # a cancellation names its tournament (CHECK)
        tournament = lock_tournament(row.tournament_id)  # after the request's lock
        if tournament.status in Tournament.ENDED_STATUSES:
            raise TournamentEndedProblem(tournament_status=tournament.status)
        tournament_cancel(tournament_id=tournament.pk, reason=STAFF_CANCEL, actor=actor)
    row.result_ref = f"tournament:{row.tournament_id}"


def _decide(row: TournamentRequest, user: Any, status: str, note: str, problem: str = "") -> None:
    row.status = status
    row.decided_by = user
    row.decided_at = timezone.now()
    row.decision_note = note
    row.save(
        update_fields=[
            "status",
            "decided_by",
            "decided_at",
            "decision_note",
            "result_ref",
            "tournament",
        ]
    )
    data: dict[str, Any] = {"note": note, "result": row.result_ref}
    if problem:
        data["problem"] = problem  # why it failed: the problem type's slug
    _record(row, user, status, data)


def tournament_request_approve(
    *, tournament_request: TournamentRequest, user: Any, note: str = ""
) -> TournamentRequest:
    """Approve and execute, atomically, under the request's row lock (then the
    tournament's). Executed already: returned unchanged. Refused (the options or the
    tournament's state), or proposed by someone who may no longer propose it: recorded
    failed, nothing executed, the problem raised."""
    note = request_text(note, "note", required=False)
    _check_decider(tournament_request, user)
    try:
        with transaction.atomic():
            locked = lock_tournament_request(request_id=tournament_request.pk)
            if locked.status == Status.EXECUTED:
                return locked
            if locked.status != Status.PENDING:
                raise ApprovalNotPendingProblem(
                    f"The request is {locked.status}", approval_status=locked.status
                )
            _check_proposer(locked)
            _execute(locked, actor_for(user))
            _decide(locked, user, Status.EXECUTED, note)
            return locked
    except (ApprovalNotPendingProblem, FourEyesRequiredProblem, PermissionDeniedProblem):
        raise
    except Problem as problem:
        with transaction.atomic():
            locked = lock_tournament_request(request_id=tournament_request.pk)
            if locked.status == Status.PENDING:
                locked.result_ref = problem.slug
                detail = f"{note} [{problem.detail}]".strip()[:REQUEST_TEXT_LENGTH]
                _decide(locked, user, Status.FAILED, detail, problem=problem.slug)
        raise


@transaction.atomic
def tournament_request_reject(
    *, tournament_request: TournamentRequest, user: Any, note: str = ""
) -> TournamentRequest:
    """Close a pending request without running it."""
    note = request_text(note, "note", required=False)
    _check_decider(tournament_request, user)
    locked = lock_tournament_request(request_id=tournament_request.pk)
    if locked.status != Status.PENDING:
        raise ApprovalNotPendingProblem(
            f"The request is {locked.status}", approval_status=locked.status
        )
    _decide(locked, user, Status.REJECTED, note)
    return locked
