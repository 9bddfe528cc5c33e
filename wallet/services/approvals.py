"""Four eyes (docs/backoffice.md "Four-eyes approval"): ledger reversals, manual wallet
adjustments and cashier-cap raises are proposed by one staff member and executed only when
another approves.

- ``approval_propose`` checks the payload and records a pending ``ApprovalRequest``;
- ``approval_approve`` locks the request (wallet/locks.py ``lock_approval``), then runs the
  action in the same transaction and marks it executed: two approvers racing execute it
  once, and approving an executed request again returns it unchanged (idempotent). An action
  the ledger refuses (insufficient funds, already reversed...) rolls back and the request is
  recorded ``failed`` with the problem's detail, which is raised again;
- ``approval_reject`` closes a pending request with a note.
Net settlements of an operator's network position (``net_settlement``: the payment between
the operator and the network that zeroes what was outstanding at a cut-off,
wallet/services/network.py) follow the same path. The proposer can never approve or
reject their own request (``four-eyes-required``), and
each step needs its permission (``wallet.propose_<kind>``, ``wallet.approve_<kind>``: the
roles of gin_platform/staff/roles.py). The proposer's right to propose is checked when the request
is proposed, again when it is approved and again when it executes
(``four_eyes.proposer_refusal``): a proposer deactivated, without the kind's propose permission
any more, or no longer in scope of the request's operator leaves a request that is recorded
``failed`` (``proposer-not-entitled``) and never runs. Every step writes its audit row.

``wallet_adjust`` is the adjustment itself: a staff credit or debit of a player's wallet
against the operator's outside-world account, ledger kind ``adjustment``, reference
``adjustment:<operator id>:<reference>``; it runs only from an approved request.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from gin_platform.audit import audit_record
from gin_platform.http.problems import PermissionDeniedProblem, Problem
from gin_platform.models import Operator, Player
from gin_platform.staff.four_eyes import REQUEST_TEXT_LENGTH, proposer_refusal, request_text
from gin_platform.tenancy import selectors as platform_selectors
from gin_platform.tenancy.principals import Actor, actor_for
from wallet.amounts import parse_currency
from wallet.ledger.checks import check_amount, check_funds, check_reference
from wallet.ledger.post import post_transfer
from wallet.ledger.replay import reference_guard
from wallet.ledger.skeleton import Locked, posting_make
from wallet.locks import lock_approval
from wallet.models import ApprovalRequest, CashierCaps, LedgerTransaction
from wallet.problems import (
    ApprovalInvalidProblem,
    ApprovalNotPendingProblem,
    FourEyesRequiredProblem,
    ProposerNotEntitledProblem,
)
from wallet.selectors import limits, transactions
from wallet.services.cashier import (
    cashier_caps_write,
    cashier_currency,
    cashier_keys,
    check_cashier_caps,
)
from wallet.services.corrections import reversal_reference, transaction_reverse
from wallet.services.network import (
    check_net_settlement,
    network_position_settle,
    network_settlement_reference,
)

Kind = LedgerTransaction.Kind
ApprovalKind = ApprovalRequest.Kind
Status = ApprovalRequest.Status
CREDIT, DEBIT = "credit", "debit"
REASON_LENGTH = REQUEST_TEXT_LENGTH


def adjustment_reference(*, operator_id: Any, reference: str) -> str:
    """The ledger reference of a staff adjustment: ``adjustment:<operator id>:<reference>``."""
    return f"adjustment:{operator_id}:{reference}"


# --- The adjustment -----------------------------------------------------------------------
@reference_guard
@transaction.atomic
def wallet_adjust(
    *,
    player: Player,
    direction: str,
    amount: int,
    currency: str,
    reference: str,
    reason: str,
    actor: Actor,
) -> LedgerTransaction:
    """Credit (``credit``) or debit (``debit``) the player's wallet by ``amount`` against the
    operator's outside-world account, in the wallet currency. No cap, limit or
    self-exclusion applies (a correction, not a deposit); a debit needs the funds. Idempotent
    by ``reference`` (the full ``adjustment:...`` reference)."""
    if direction not in (CREDIT, DEBIT):
        raise ApprovalInvalidProblem("direction must be credit or debit", field="direction")
    code = cashier_currency(player, currency)
    check_amount(amount)
    reference = check_reference(reference)
    same = {"kind": Kind.ADJUSTMENT, "player": player, "amount": amount, "currency": code}

    def rules(locked: Locked) -> LedgerTransaction:
        outside, wallet = locked.resolved
        if direction == DEBIT:
            check_funds(wallet, amount)
        source, target = (outside, wallet) if direction == CREDIT else (wallet, outside)
        return post_transfer(
            locked=locked.accounts,
            player=player,
            kind=Kind.ADJUSTMENT,
            reference=reference,
            source=source,
            target=target,
            amount=amount,
            currency=code,
            actor=actor,
            now=locked.now,
            metadata={"reason": reason, "direction": direction},
        )

    return posting_make(
        reference=reference,
        same=same,
        keys=cashier_keys(player=player, currency=code),
        rules=rules,
    )


# --- Proposals ------------------------------------------------------------------------------
def _need(user: Any, action: str, kind: str) -> None:
    if not user.has_perm(f"wallet.{action}_{kind}"):
        raise PermissionDeniedProblem(f"Your back-office role may not {action} a {kind}")


def _reversal_payload(payload: dict) -> tuple[Operator, dict]:
    original = transactions.transaction_get(transaction_id=payload.get("transaction_id"))
    if original.kind == Kind.REVERSAL:
        raise ApprovalInvalidProblem("a reversal cannot be reversed", field="transaction_id")
    reference = check_reference(payload.get("reference"))
    return original.operator, {"transaction_id": original.pk, "reference": reference}


def _caps_payload(operator: Operator | None, payload: dict) -> tuple[Operator, dict]:
    if operator is None:
        raise ApprovalInvalidProblem("a cap raise names its operator", field="operator")
    caps = payload.get("caps")
    if not isinstance(caps, dict):
        raise ApprovalInvalidProblem(
            f"caps maps some of {', '.join(CashierCaps.FIELDS)} to minor units or null",
            field="caps",
        )
    # The approval's own check (cashier_caps_write), run now: a proposal it would refuse
    # (a minimum above its maximum, practice chips...) never becomes a pending request.
    currency, values = check_cashier_caps(currency=payload.get("currency"), caps=caps)
    return operator, {"currency": currency, "caps": values}


def _adjustment_payload(operator: Operator | None, payload: dict) -> tuple[Operator, dict]:
    if operator is None:
        raise ApprovalInvalidProblem("an adjustment names its operator", field="operator")
    player = platform_selectors.player_get(operator=operator, player_id=payload.get("player_id"))
    direction = payload.get("direction")
    if direction not in (CREDIT, DEBIT):
        raise ApprovalInvalidProblem("direction must be credit or debit", field="direction")
    amount = check_amount(payload.get("amount"))
    currency = cashier_currency(player, payload.get("currency") or "")
    reference = check_reference(payload.get("reference"))
    return operator, {
        "player_id": str(player.pk),
        "direction": direction,
        "amount": amount,
        "currency": currency,
        "reference": reference,
    }


def _net_settlement_payload(operator: Operator | None, payload: dict) -> tuple[Operator, dict]:
    """A network net settlement (docs/network.md "Settling the network"): the member
    operator, the currency and the cut-off; the amount is what is outstanding then (given,
    it must match)."""
    if operator is None:
        raise ApprovalInvalidProblem("a net settlement names its operator", field="operator")
    currency = parse_currency(payload.get("currency"))
    raw = payload.get("cutoff")
    try:
        cutoff = datetime.fromisoformat(raw) if isinstance(raw, str) else None
    except ValueError:
        cutoff = None
    if cutoff is None or cutoff.tzinfo is None:
        raise ApprovalInvalidProblem(
            "cutoff is an ISO date-time with its UTC offset", field="cutoff"
        )
    amount = payload.get("amount")
    if amount is not None and (isinstance(amount, bool) or not isinstance(amount, int)):
        raise ApprovalInvalidProblem("amount is an integer of minor units", field="amount")
    outstanding = check_net_settlement(
        operator=operator, currency=currency, cutoff=cutoff, amount=amount
    )
    return operator, {
        "currency": currency,
        "cutoff": cutoff.isoformat(),
        "amount": outstanding,
        "reference": network_settlement_reference(
            operator_id=operator.pk, currency=currency, cutoff=cutoff
        ),
    }


def caps_are_raise(*, operator: Operator, currency: str, caps: dict[str, int | None]) -> bool:
    """Whether new caps loosen anything: a maximum up or removed, a minimum down or removed,
    or caps where none were (nothing capped is the loosest). Only raises need four eyes."""
    current = limits.cashier_caps_get(operator=operator, currency=currency)
    if current is None:
        return False  # no caps yet: any cap only tightens
    for name in CashierCaps.FIELDS:
        old, new = getattr(current, name), caps.get(name)
        if old is None:
            continue  # uncapped already: nothing looser exists
        if new is None or (new < old if name.startswith("min_") else new > old):
            return True
    return False


@transaction.atomic
def approval_propose(
    *,
    kind: str,
    payload: dict,
    reason: str,
    user: Any,
    operator: Operator | None = None,
) -> ApprovalRequest:
    """Record a pending request for another staff member to approve. ``operator``: the
    operator of a cap raise or an adjustment (a reversal's is its transaction's)."""
    if kind not in ApprovalKind.values:
        raise ApprovalInvalidProblem(f"kind must be one of {', '.join(ApprovalKind.values)}")
    _need(user, "propose", kind)
    if not isinstance(payload, dict):
        raise ApprovalInvalidProblem("payload must be an object", field="payload")
    reason = request_text(reason, "reason")
    if kind == ApprovalKind.REVERSAL:
        operator, clean = _reversal_payload(payload)
    elif kind == ApprovalKind.CASHIER_CAPS:
        operator, clean = _caps_payload(operator, payload)
    elif kind == ApprovalKind.NET_SETTLEMENT:
        operator, clean = _net_settlement_payload(operator, payload)
    else:
        operator, clean = _adjustment_payload(operator, payload)
    refusal = _proposer_refusal(kind=kind, user_id=user.pk, operator=operator)
    if refusal is not None:
        raise PermissionDeniedProblem(f"You may not propose a {kind}: {refusal}")
    approval = ApprovalRequest.objects.create(
        kind=kind, operator=operator, payload=clean, reason=reason, proposed_by=user
    )
    audit_record(
        actor=actor_for(user),
        action="approval.proposed",
        obj=approval,
        operator=operator,
        data={"kind": kind, "payload": clean, "reason": reason},
    )
    return approval


# --- Decisions ------------------------------------------------------------------------------
def _proposer_refusal(*, kind: str, user_id: Any, operator: Operator | None) -> str | None:
    return proposer_refusal(
        user_id=user_id,
        permission=f"wallet.propose_{kind}",
        operator_id=operator.pk if operator is not None else None,
    )


def _check_proposer(approval: ApprovalRequest) -> None:
    """The proposer may still propose the request, as they are now (role, active, scope)."""
    refusal = _proposer_refusal(
        kind=approval.kind, user_id=approval.proposed_by_id, operator=approval.operator
    )
    if refusal is not None:
        raise ProposerNotEntitledProblem(
            f"The proposer may no longer propose a {approval.kind} ({refusal}): nothing was "
            "executed; an entitled staff member must propose it again"
        )


def _execute(approval: ApprovalRequest, actor: Actor) -> str:
    """Run the approved action (inside the approval's transaction); its result reference.
    The proposer's right is checked here too, whenever the execution happens."""
    _check_proposer(approval)
    payload = approval.payload
    if approval.kind == ApprovalKind.REVERSAL:
        original = transactions.transaction_get(transaction_id=payload["transaction_id"])
        txn = transaction_reverse(
            ledger_transaction=original,
            reference=reversal_reference(reference=payload["reference"]),
            reason=approval.reason,
            actor=actor,
        )
        return f"ledger_transaction:{txn.pk}"
    if approval.kind == ApprovalKind.CASHIER_CAPS:
        row = cashier_caps_write(
            operator=approval.operator, currency=payload["currency"], actor=actor, **payload["caps"]
        )
        return f"cashier_caps:{row.pk}"
    if approval.kind == ApprovalKind.NET_SETTLEMENT:
        txn = network_position_settle(
            operator=approval.operator,
            currency=payload["currency"],
            cutoff=datetime.fromisoformat(payload["cutoff"]),
            amount=payload["amount"],
            reference=payload["reference"],
            actor=actor,
            metadata={"reason": approval.reason, "approval": approval.pk},
        )
        return f"ledger_transaction:{txn.pk}"
    player = platform_selectors.player_get(
        operator=approval.operator, player_id=payload["player_id"]
    )
    txn = wallet_adjust(
        player=player,
        direction=payload["direction"],
        amount=payload["amount"],
        currency=payload["currency"],
        reference=adjustment_reference(
            operator_id=approval.operator_id, reference=payload["reference"]
        ),
        reason=approval.reason,
        actor=actor,
    )
    return f"ledger_transaction:{txn.pk}"


def _decide(
    approval: ApprovalRequest, user: Any, status: str, note: str, problem: str = ""
) -> None:
    approval.status = status
    approval.decided_by = user
    approval.decided_at = timezone.now()
    approval.decision_note = note
    approval.save(
        update_fields=["status", "decided_by", "decided_at", "decision_note", "result_ref"]
    )
    data = {"kind": approval.kind, "note": note, "result": approval.result_ref}
    if problem:
        data["problem"] = problem  # why it failed: the problem type's slug
    audit_record(
        actor=actor_for(user),
        action=f"approval.{status}",
        obj=approval,
        operator=approval.operator,
        data=data,
    )


def _check_decider(approval: ApprovalRequest, user: Any) -> None:
    _need(user, "approve", approval.kind)
    if approval.proposed_by_id == user.pk:
        raise FourEyesRequiredProblem(
            "You proposed this request: another staff member must decide it"
        )


def approval_approve(*, approval: ApprovalRequest, user: Any, note: str = "") -> ApprovalRequest:
    """Approve and execute, atomically, under the request's row lock (then the action's own
    locks). Executed already: returned unchanged. Refused by the ledger, or proposed by
    someone who may no longer propose it: recorded failed, nothing executed."""
    note = request_text(note, "note", required=False)
    _check_decider(approval, user)
    try:
        with transaction.atomic():
            locked = lock_approval(approval_id=approval.pk)
            if locked.status == Status.EXECUTED:
                return locked
            if locked.status != Status.PENDING:
                raise ApprovalNotPendingProblem(
                    f"The request is {locked.status}", approval_status=locked.status
                )
            _check_proposer(locked)  # at approval (and _execute checks at execution)
            locked.result_ref = _execute(locked, actor_for(user))
            _decide(locked, user, Status.EXECUTED, note)
            return locked
    except (ApprovalNotPendingProblem, FourEyesRequiredProblem, PermissionDeniedProblem):
        raise
    except Problem as problem:
        with transaction.atomic():
            locked = lock_approval(approval_id=approval.pk)
            if locked.status == Status.PENDING:
                detail = f"{note} [{problem.detail}]".strip()[:REASON_LENGTH]
                _decide(locked, user, Status.FAILED, detail, problem=problem.slug)
        raise


@transaction.atomic
def approval_reject(*, approval: ApprovalRequest, user: Any, note: str = "") -> ApprovalRequest:
    """Close a pending request without running it."""
    note = request_text(note, "note", required=False)
    _check_decider(approval, user)
    locked = lock_approval(approval_id=approval.pk)
    if locked.status != Status.PENDING:
        raise ApprovalNotPendingProblem(
            f"The request is {locked.status}", approval_status=locked.status
        )
    _decide(locked, user, Status.REJECTED, note)
    return locked
