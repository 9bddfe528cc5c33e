"""Confiscating a colluder's winnings for the victims (docs/integrity.md "Confiscation"),
with four eyes (the pattern of wallet/services/approvals.py, with
gin_platform/staff/four_eyes.py):

- ``confiscation_propose``: a risk user (``integrity.propose_confiscation``) proposes, on an
  open case, what each victim gets from the colluder (minor units of one currency; all of
  them players of the case). One live request per case (pending or executed): a case posts
  at most one confiscation.
- ``confiscation_approve``: a finance or admin user (``integrity.approve_confiscation``:
  a role with a second factor, gin_platform/staff/roles.py; never the proposer:
  ``four-eyes-required``) approves: under the request's row lock (integrity/locks.py)
  the posting runs (``wallet.services.winnings_confiscate``: ONE
  balanced ledger transaction, reference ``confiscation:<case id>``) and the request is
  marked executed, in one transaction. Two approvers racing execute it once; approving an
  executed request again returns it unchanged. The proposer's right is checked again (role,
  active, scope over every operator of the players: ``proposer-not-entitled``). A posting
  the ledger refuses (``insufficient-funds``...) marks the request failed with the
  problem's slug, and the problem is raised.
- ``confiscation_reject``: an approver closes a pending request with a note.
Every step writes a ``CaseAction``, an audit row and the ``integrity.case_action`` webhook
to the operators concerned: each sees its own players' amounts in full, the others masked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from gin_platform.http.problems import (
    ApprovalNotPendingProblem,
    FourEyesRequiredProblem,
    PermissionDeniedProblem,
    Problem,
    ProposerNotEntitledProblem,
)
from gin_platform.models import Player
from gin_platform.money import money_dict
from gin_platform.staff.four_eyes import REQUEST_TEXT_LENGTH, proposer_refusal, request_text
from gin_platform.tenancy.principals import actor_for
from integrity.locks import lock_case, lock_confiscation
from integrity.models import Case, CaseAction, Confiscation
from integrity.problems import CaseActionInvalidProblem
from integrity.services.actions import action_record
from integrity.services.cases import check_case_player, check_open
from integrity.services.events import player_shown
from wallet.services import check_confiscation, confiscation_reference, winnings_confiscate

Status = Confiscation.Status
Kind = CaseAction.Kind
PROPOSE, APPROVE = "integrity.propose_confiscation", "integrity.approve_confiscation"


def _refusal(*, user_id: Any, permission: str, operator_ids: set[Any]) -> str | None:
    """Why the user may not act on a confiscation touching ``operator_ids`` (their scope
    must cover every one), or None."""
    for operator_id in sorted(operator_ids, key=str):
        refusal = proposer_refusal(user_id=user_id, permission=permission, operator_id=operator_id)
        if refusal is not None:
            return refusal
    return None


def _parties(row: Confiscation) -> tuple[Player, list[tuple[Player, int]]]:
    ids = [entry["player_id"] for entry in row.refunds]
    players = {str(p.pk): p for p in Player.objects.filter(pk__in=ids).select_related("operator")}
    return row.colluder, [(players[str(e["player_id"])], int(e["amount"])) for e in row.refunds]


def _operator_ids(row: Confiscation) -> set[Any]:
    colluder, refunds = _parties(row)
    return {colluder.operator_id} | {victim.operator_id for victim, _ in refunds}


def _record(row: Confiscation, kind: str, user: Any, *, seamless: bool = False) -> None:
    """The step's action row, audit row and webhook: each operator's copy names its own
    players in full and the others masked, with every amount."""
    colluder, refunds = _parties(row)

    def public_for(operator_id: Any) -> dict[str, Any]:
        shown = player_shown(colluder, operator_id=operator_id)
        if seamless and colluder.operator_id == operator_id:
            # A seamless colluder's side came out of the operator's outside account: the
            # operator recovers it from its player's balance, which it keeps.
            shown["operator_recovers"] = True
        return {
            "confiscation_id": row.pk,
            "status": row.status,
            "amount": money_dict(row.amount, row.currency),
            "colluder": shown,
            "refunds": [
                player_shown(victim, operator_id=operator_id)
                | {"amount": money_dict(amount, row.currency)}
                for victim, amount in refunds
            ],
        }

    action_record(
        case=row.case,
        kind=kind,
        user=user,
        reason=row.reason if kind == Kind.CONFISCATION_PROPOSED else row.decision_note,
        player=colluder,
        data={"confiscation": row.pk, "result": row.result_ref},
        operator_ids=_operator_ids(row),
        public_for=public_for,
    )


# --- The proposal ------------------------------------------------------------------------------
@transaction.atomic
def confiscation_propose(
    *,
    case: Case,
    colluder_id: object,
    refunds: Sequence[tuple[object, int]],
    currency: str,
    reason: str,
    user: Any,
) -> Confiscation:
    """Record a pending confiscation of the case: ``refunds`` pairs each victim's player id
    with what they get (minor units of ``currency``)."""
    if not user.has_perm(PROPOSE):
        raise PermissionDeniedProblem("Your back-office role may not propose a confiscation")
    reason = request_text(reason, "reason")
    locked = lock_case(case_id=case.pk)
    check_open(locked)
    colluder = check_case_player(locked, colluder_id, "colluder_id")
    victims = [
        (check_case_player(locked, player_id, "refunds"), amount) for player_id, amount in refunds
    ]
    code = check_confiscation(colluder=colluder, refunds=victims, currency=currency)
    operator_ids = {colluder.operator_id} | {victim.operator_id for victim, _ in victims}
    refusal = _refusal(user_id=user.pk, permission=PROPOSE, operator_ids=operator_ids)
    if refusal is not None:
        raise PermissionDeniedProblem(f"You may not propose this confiscation: {refusal}")
    try:
        with transaction.atomic():
            row = Confiscation.objects.create(
                case=locked,
                colluder=colluder,
                currency=code,
                amount=sum(amount for _, amount in victims),
                refunds=[{"player_id": str(v.pk), "amount": amount} for v, amount in victims],
                reason=reason,
                proposed_by=user,
            )
    except IntegrityError:
        raise CaseActionInvalidProblem(
            "the case has a confiscation pending or executed already", field="case"
        ) from None
    _record(row, Kind.CONFISCATION_PROPOSED, user)
    return row


# --- Decisions -----------------------------------------------------------------------------------
def _check_decider(row: Confiscation, user: Any) -> None:
    if not user.has_perm(APPROVE):
        raise PermissionDeniedProblem("Your back-office role may not decide a confiscation")
    if row.proposed_by_id == user.pk:
        raise FourEyesRequiredProblem(
            "You proposed this confiscation: another staff member must decide it"
        )
    refusal = _refusal(user_id=user.pk, permission=APPROVE, operator_ids=_operator_ids(row))
    if refusal is not None:
        raise PermissionDeniedProblem(f"You may not decide this confiscation: {refusal}")


def _check_proposer(row: Confiscation) -> None:
    refusal = _refusal(
        user_id=row.proposed_by_id, permission=PROPOSE, operator_ids=_operator_ids(row)
    )
    if refusal is not None:
        raise ProposerNotEntitledProblem(
            f"The proposer may no longer propose this confiscation ({refusal}): nothing was "
            "executed; an entitled staff member must propose it again"
        )


def _decide(row: Confiscation, user: Any, status: str, note: str) -> None:
    row.status = status
    row.decided_by = user
    row.decided_at = timezone.now()
    row.decision_note = note
    row.save(update_fields=["status", "decided_by", "decided_at", "decision_note", "result_ref"])


def confiscation_approve(*, confiscation: Confiscation, user: Any, note: str = "") -> Confiscation:
    """Approve and post, atomically, under the request's row lock (then the accounts').
    Executed already: returned unchanged. Refused by the ledger, or proposed by someone who
    may no longer propose it: recorded failed, nothing posted, the problem raised."""
    note = request_text(note, "note", required=False)
    _check_decider(confiscation, user)
    try:
        with transaction.atomic():
            locked = lock_confiscation(confiscation_id=confiscation.pk)
            if locked.status == Status.EXECUTED:
                return locked
            if locked.status != Status.PENDING:
                raise ApprovalNotPendingProblem(
                    f"The confiscation is {locked.status}", approval_status=locked.status
                )
            _check_proposer(locked)
            colluder, refunds = _parties(locked)
            txn = winnings_confiscate(
                colluder=colluder,
                refunds=refunds,
                currency=locked.currency,
                reference=confiscation_reference(case_id=locked.case_id),
                actor=actor_for(user),
                metadata={"case_id": locked.case_id, "confiscation_id": locked.pk},
            )
            locked.result_ref = f"ledger_transaction:{txn.pk}"
            _decide(locked, user, Status.EXECUTED, note)
            _record(
                locked,
                Kind.CONFISCATION_EXECUTED,
                user,
                seamless=bool(txn.metadata.get("colluder_seamless")),
            )
            return locked
    except (ApprovalNotPendingProblem, FourEyesRequiredProblem, PermissionDeniedProblem):
        raise
    except Problem as problem:
        with transaction.atomic():
            locked = lock_confiscation(confiscation_id=confiscation.pk)
            if locked.status == Status.PENDING:
                locked.result_ref = problem.slug
                detail = f"{note} [{problem.detail}]".strip()[:REQUEST_TEXT_LENGTH]
                _decide(locked, user, Status.FAILED, detail)
                _record(locked, Kind.CONFISCATION_FAILED, user)
        raise


@transaction.atomic
def confiscation_reject(*, confiscation: Confiscation, user: Any, note: str = "") -> Confiscation:
    """Close a pending confiscation without posting it."""
    note = request_text(note, "note", required=False)
    _check_decider(confiscation, user)
    locked = lock_confiscation(confiscation_id=confiscation.pk)
    if locked.status != Status.PENDING:
        raise ApprovalNotPendingProblem(
            f"The confiscation is {locked.status}", approval_status=locked.status
        )
    _decide(locked, user, Status.REJECTED, note)
    _record(locked, Kind.CONFISCATION_REJECTED, user)
    return locked
