"""OpenAPI examples of the four-eyes approval endpoints (docs/backoffice.md)."""

from __future__ import annotations

from gin_platform.http.openapi import problem_example, problem_response
from wallet.api.examples import OPERATOR_ID, PLAYER_ID, request, response
from wallet.problems import (
    AlreadyReversedProblem,
    ApprovalInvalidProblem,
    ApprovalNotPendingProblem,
    FourEyesRequiredProblem,
    ProposerNotEntitledProblem,
)


def _approval(**changes) -> dict:
    return {
        "id": 41,
        "kind": "reversal",
        "operator_id": OPERATOR_ID,
        "payload": {"transaction_id": 102, "reference": "ticket-4712"},
        "reason": "Bank transfer returned: account closed",
        "status": "pending",
        "proposed_by": "ana.finance",
        "proposed_at": "2026-11-29T16:50:40.100211Z",
        "decided_by": None,
        "decided_at": None,
        "decision_note": "",
        "result_ref": "",
    } | changes


REVERSAL_PROPOSED = response("proposed", _approval(), 201)
APPROVAL_PROPOSE = [
    request(
        "adjustment",
        {
            "kind": "adjustment",
            "operator_id": OPERATOR_ID,
            "reason": "Goodwill credit, ticket 88 (manager OK)",
            "payload": {
                "player_id": PLAYER_ID,
                "direction": "credit",
                "amount": "15.00",
                "currency": "EUR",
                "reference": "goodwill-88",
            },
        },
    ),
    request(
        "reversal",
        {
            "kind": "reversal",
            "reason": "Bank transfer returned: account closed",
            "payload": {"transaction_id": 102, "reference": "ticket-4712"},
        },
    ),
    REVERSAL_PROPOSED,
]
APPROVAL_APPROVED = [
    request("with a note", {"note": "Checked the bank's return notice"}),
    response(
        "executed",
        _approval(
            status="executed",
            decided_by="ben.finance",
            decided_at="2026-11-29T16:52:02.771104Z",
            decision_note="Checked the bank's return notice",
            result_ref="ledger_transaction:115",
        ),
        200,
    ),
]
APPROVAL_REJECTED = [
    request("with a note", {"note": "The transfer was not returned"}),
    response(
        "rejected",
        _approval(
            status="rejected",
            decided_by="ben.finance",
            decided_at="2026-11-29T16:52:02.771104Z",
            decision_note="The transfer was not returned",
        ),
        200,
    ),
]
CAPS_RAISE_PROPOSED = response(
    "raise proposed",
    _approval(
        kind="cashier_caps",
        payload={"currency": "EUR", "caps": {"max_deposit": "5000.00"}},
        reason="VIP tier approved by risk committee",
        proposed_by="rui.risk",
    ),
    201,
)
FOUR_EYES_REQUIRED = problem_response(
    "four-eyes-required",
    problem_example(
        FourEyesRequiredProblem,
        "You proposed this request: another staff member must decide it",
        instance="/api/v1/staff/approvals/41/approve",
    ),
)
APPROVAL_NOT_PENDING = problem_response(
    "approval-not-pending; proposer-not-entitled (the proposer may no longer propose it); or "
    "the action's own refusal (in both of these the request is then failed)",
    problem_example(
        ApprovalNotPendingProblem,
        "The request is rejected",
        instance="/api/v1/staff/approvals/41/approve",
        approval_status="rejected",
    ),
    problem_example(
        ProposerNotEntitledProblem,
        "The proposer may no longer propose a reversal (the role does not hold "
        "wallet.propose_reversal): nothing was executed; an entitled staff member must "
        "propose it again",
        instance="/api/v1/staff/approvals/41/approve",
    ),
    problem_example(
        AlreadyReversedProblem,
        "transaction #102 is already reversed",
        instance="/api/v1/staff/approvals/41/approve",
    ),
)
APPROVAL_INVALID = problem_response(
    "approval-invalid",
    problem_example(
        ApprovalInvalidProblem,
        "a reversal cannot be reversed",
        instance="/api/v1/staff/ledger/transactions/115/reversal",
        field="transaction_id",
    ),
)
