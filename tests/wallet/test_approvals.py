"""Four eyes (docs/backoffice.md): reversals, manual adjustments and cashier-cap raises are
proposed by one staff member and executed only when another approves, once, atomically."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group

from gin_platform.http.problems import PermissionDeniedProblem
from gin_platform.models import AuditEvent, StaffOperatorScope
from tests.factories import OperatorFactory, PlayerFactory, admin_login, staff_user
from tests.helpers import api_as, assert_problem
from tests.races import race
from tests.wallet.factories import CashierCapsFactory, fund
from wallet import services
from wallet.models import ApprovalRequest, CashierCaps, LedgerTransaction
from wallet.problems import FourEyesRequiredProblem
from wallet.selectors import balances, reconciliation

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


@pytest.fixture
def ana(db):
    return staff_user("ana", "finance")


@pytest.fixture
def ben(db):
    return staff_user("ben", "finance")


def propose_reversal(user, txn, reference: str = "chargeback-1"):
    return api_as(user).post(
        f"/api/v1/staff/ledger/transactions/{txn.pk}/reversal",
        {"reference": reference, "reason": "card chargeback"},
        format="json",
    )


def decide(user, approval_id, verb: str = "approve", note: str = ""):
    return api_as(user).post(
        f"/api/v1/staff/approvals/{approval_id}/{verb}", {"note": note}, format="json"
    )


def reversals() -> int:
    return LedgerTransaction.objects.filter(kind="reversal").count()


def test_a_reversal_needs_two_different_people(player, ana, ben):
    txn = fund(player, 1_000)
    proposed = propose_reversal(ana, txn)
    assert proposed.status_code == 201, proposed.content
    approval_id = proposed.json()["id"]
    assert reversals() == 0 and balances.wallet_balance(player=player) == 1_000

    for verb in ("approve", "reject"):
        assert_problem(decide(ana, approval_id, verb), 403, "four-eyes-required")
    assert ApprovalRequest.objects.get(pk=approval_id).status == "pending"
    assert reversals() == 0

    executed = decide(ben, approval_id, note="checked the bank notice")
    assert executed.status_code == 200, executed.content
    body = executed.json()
    assert body["status"] == "executed" and body["decided_by"] == "ben"
    assert body["proposed_by"] == "ana" and body["decision_note"] == "checked the bank notice"
    reversal = LedgerTransaction.objects.get(kind="reversal")
    assert body["result_ref"] == f"ledger_transaction:{reversal.pk}"
    assert reversal.reverses_id == txn.pk and reversal.reference == "reversal:chargeback-1"
    assert (reversal.actor_type, reversal.actor_id) == ("staff", str(ben.pk))
    assert balances.wallet_balance(player=player) == 0

    # Idempotent: approving again returns it as it is, and posts nothing more.
    assert decide(ben, approval_id).json() == body
    assert reversals() == 1
    # Both steps are in the audit log, each with its own person.
    steps = {
        e.action: e.actor_id
        for e in AuditEvent.objects.filter(object_type="wallet.approvalrequest")
    }
    assert steps == {"approval.proposed": str(ana.pk), "approval.executed": str(ben.pk)}


def test_the_service_refuses_the_proposer_too(player, ana):
    txn = fund(player, 100)
    approval = services.approval_propose(
        kind="reversal",
        payload={"transaction_id": txn.pk, "reference": "r"},
        reason="x",
        user=ana,
    )
    with pytest.raises(FourEyesRequiredProblem):
        services.approval_approve(approval=approval, user=ana)
    with pytest.raises(FourEyesRequiredProblem):
        services.approval_reject(approval=approval, user=ana)
    assert reversals() == 0


def test_a_rejected_request_never_executes(player, ana, ben):
    txn = fund(player, 1_000)
    approval_id = propose_reversal(ana, txn).json()["id"]
    rejected = decide(ben, approval_id, "reject", note="not a chargeback")
    assert rejected.json()["status"] == "rejected"
    later = decide(staff_user("cleo", "finance"), approval_id)
    body = assert_problem(later, 409, "approval-not-pending")
    assert body["approval_status"] == "rejected"
    assert reversals() == 0
    assert AuditEvent.objects.filter(action="approval.rejected").count() == 1


def test_an_action_the_ledger_refuses_marks_the_request_failed(player, ana, ben):
    txn = fund(player, 1_000)
    first = propose_reversal(ana, txn, "one").json()["id"]
    second = propose_reversal(ana, txn, "two").json()["id"]
    assert decide(ben, first).json()["status"] == "executed"
    refused = decide(ben, second)
    assert_problem(refused, 409, "already-reversed")
    failed = ApprovalRequest.objects.get(pk=second)
    assert failed.status == "failed" and "already reversed" in failed.decision_note
    assert reversals() == 1
    assert_problem(decide(ben, second), 409, "approval-not-pending")


def test_roles_decide_only_their_kinds(player, operator, ana):
    txn = fund(player, 1_000)
    approval_id = propose_reversal(ana, txn).json()["id"]
    risk = staff_user("rui", "risk")
    assert_problem(decide(risk, approval_id), 403, "permission-denied")
    assert reversals() == 0
    caps = api_as(ana).post(
        "/api/v1/staff/approvals",
        {
            "kind": "cashier_caps",
            "operator_id": str(operator.pk),
            "reason": "VIP",
            "payload": {"currency": "EUR", "caps": {"max_deposit": "900.00"}},
        },
        format="json",
    )
    assert_problem(caps, 403, "permission-denied")  # finance proposes no cap raise


# --- The proposer's right, checked again at approval and execution ---------------------------
def lose(user, loss: str, other_operator) -> None:
    if loss == "role":
        user.groups.set([Group.objects.get(name="support")])
    elif loss == "deactivated":
        user.is_active = False
        user.save()
    else:  # limited to another operator than the request's
        StaffOperatorScope.objects.create(user=user, operator=other_operator)


@pytest.mark.parametrize("loss", ["role", "deactivated", "scope"])
def test_a_request_whose_proposer_lost_the_right_is_refused_and_never_runs(player, ana, ben, loss):
    txn = fund(player, 1_000)
    approval_id = propose_reversal(ana, txn).json()["id"]
    lose(ana, loss, OperatorFactory())
    refused = assert_problem(decide(ben, approval_id), 409, "proposer-not-entitled")
    assert "may no longer propose a reversal" in refused["detail"]
    assert reversals() == 0 and balances.wallet_balance(player=player) == 1_000
    approval = ApprovalRequest.objects.get(pk=approval_id)
    assert approval.status == "failed" and approval.decided_by == ben
    assert "may no longer propose" in approval.decision_note
    failed = AuditEvent.objects.get(action="approval.failed")
    assert failed.actor_id == str(ben.pk) and failed.data["problem"] == "proposer-not-entitled"
    assert not AuditEvent.objects.filter(action="approval.executed").exists()
    # Decided: it cannot run later, even once the proposer is entitled again.
    assert_problem(decide(ben, approval_id), 409, "approval-not-pending")


def test_the_admin_refuses_such_a_request_with_the_reason(client, player, ana, ben):
    txn = fund(player, 1_000)
    approval_id = propose_reversal(ana, txn).json()["id"]
    ana.groups.clear()
    admin_login(client, ben)
    response = client.post(
        "/admin/wallet/approvalrequest/",
        {"action": "approve_selected", "_selected_action": [approval_id]},
        follow=True,
    )
    assert "The proposer may no longer propose a reversal" in response.content.decode()
    assert ApprovalRequest.objects.get(pk=approval_id).status == "failed"
    assert reversals() == 0


def test_a_proposal_outside_the_proposers_scope_is_refused_by_the_service(player, ana):
    StaffOperatorScope.objects.create(user=ana, operator=OperatorFactory())
    txn = fund(player, 100)
    with pytest.raises(PermissionDeniedProblem, match="operator scope"):
        services.approval_propose(
            kind="reversal",
            payload={"transaction_id": txn.pk, "reference": "r"},
            reason="x",
            user=ana,
        )
    assert not ApprovalRequest.objects.exists()


# --- Adjustments --------------------------------------------------------------------------
def propose_adjustment(user, player, direction: str, amount: str, reference: str):
    return api_as(user).post(
        "/api/v1/staff/approvals",
        {
            "kind": "adjustment",
            "operator_id": str(player.operator_id),
            "reason": "goodwill, ticket 88",
            "payload": {
                "player_id": str(player.pk),
                "direction": direction,
                "amount": amount,
                "currency": "EUR",
                "reference": reference,
            },
        },
        format="json",
    )


def test_an_adjustment_credits_or_debits_the_wallet_once_approved(player, ana, ben):
    fund(player, 1_000)
    credit = propose_adjustment(ana, player, "credit", "15.00", "gw-88")
    assert credit.status_code == 201, credit.content
    assert credit.json()["payload"]["amount"] == "15.00"
    assert balances.wallet_balance(player=player) == 1_000
    executed = decide(ben, credit.json()["id"]).json()
    assert executed["status"] == "executed"
    assert balances.wallet_balance(player=player) == 2_500
    txn = LedgerTransaction.objects.get(kind="adjustment")
    assert txn.reference == f"adjustment:{player.operator_id}:gw-88"
    assert txn.metadata == {"reason": "goodwill, ticket 88", "direction": "credit"}
    entries = {e.account.kind: e.amount for e in txn.entries.select_related("account")}
    assert entries == {"player": 1_500, "outside": -1_500}

    debit = propose_adjustment(ana, player, "debit", "5.00", "fix-89").json()["id"]
    assert decide(ben, debit).json()["status"] == "executed"
    assert balances.wallet_balance(player=player) == 2_000
    assert reconciliation.reconcile().ok


def test_a_debit_larger_than_the_wallet_fails_and_posts_nothing(player, ana, ben):
    fund(player, 1_000)
    approval_id = propose_adjustment(ana, player, "debit", "50.00", "too-much").json()["id"]
    assert_problem(decide(ben, approval_id), 409, "insufficient-funds")
    assert ApprovalRequest.objects.get(pk=approval_id).status == "failed"
    assert not LedgerTransaction.objects.filter(kind="adjustment").exists()
    assert balances.wallet_balance(player=player) == 1_000


@pytest.mark.parametrize(
    ("payload", "slug"),
    [
        ({"direction": "sideways", "amount": "1.00", "reference": "a"}, "approval-invalid"),
        ({"direction": "credit", "amount": "0", "reference": "a"}, "amount-not-positive"),
        ({"direction": "credit", "amount": "1.00", "reference": ""}, "reference-invalid"),
    ],
)
def test_adjustment_proposals_are_checked(player, ana, payload, slug):
    body = {"player_id": str(player.pk), "currency": "EUR", **payload}
    response = api_as(ana).post(
        "/api/v1/staff/approvals",
        {"kind": "adjustment", "operator_id": str(player.operator_id), "reason": "x",
         "payload": body},
        format="json",
    )  # fmt: skip
    assert response.json()["type"] == f"/problems/{slug}", response.content
    assert ApprovalRequest.objects.count() == 0


# --- Cashier caps -------------------------------------------------------------------------
def test_raising_caps_needs_approval_and_lowering_does_not(operator):
    CashierCapsFactory(operator=operator, max_deposit=500_00, min_deposit=10_00)
    risk, other_risk = staff_user("rui", "risk"), staff_user("rita", "risk")
    url = f"/api/v1/staff/operators/{operator.pk}/cashier-caps/EUR"
    lowered = api_as(risk).put(url, {"min_deposit": "10.00", "max_deposit": "400.00"})
    assert lowered.status_code == 200 and lowered.json()["max_deposit"] == "400.00"
    no_reason = api_as(risk).put(url, {"min_deposit": "10.00", "max_deposit": "900.00"})
    assert_problem(no_reason, 422, "approval-invalid")
    raised = api_as(risk).put(
        url, {"min_deposit": "10.00", "max_deposit": "900.00", "reason": "VIP"}, format="json"
    )
    assert raised.status_code == 201, raised.content
    assert raised.json()["payload"]["caps"]["max_deposit"] == "900.00"
    assert CashierCaps.objects.get(operator=operator).max_deposit == 400_00
    assert_problem(decide(risk, raised.json()["id"]), 403, "four-eyes-required")
    assert decide(other_risk, raised.json()["id"]).json()["status"] == "executed"
    caps = CashierCaps.objects.get(operator=operator)
    assert (caps.max_deposit, caps.min_deposit) == (900_00, 10_00)
    assert AuditEvent.objects.filter(action="cashier_caps.set").count() == 2


@pytest.mark.parametrize(
    ("caps", "field"),
    [
        ({"min_deposit": "950.00", "max_deposit": "900.00"}, "min_deposit"),
        ({"max_deposit": "900.00", "min_withdrawal": "50.00", "max_withdrawal": "20.00"},
         "min_withdrawal"),
    ],
)  # fmt: skip
def test_a_raise_the_approval_would_refuse_is_refused_when_proposed(operator, caps, field):
    """A loosening PUT is a proposal; one whose minimum is above its maximum is refused at
    once with the approval's own check, and never becomes a pending request."""
    CashierCapsFactory(operator=operator, max_deposit=500_00, min_deposit=10_00)
    risk = staff_user("rui", "risk")
    url = f"/api/v1/staff/operators/{operator.pk}/cashier-caps/EUR"
    refused = api_as(risk).put(url, {**caps, "reason": "VIP"}, format="json")
    assert_problem(refused, 422, "cashier-caps-invalid")
    assert refused.json()["field"] == field
    assert not ApprovalRequest.objects.exists()
    caps_row = CashierCaps.objects.get(operator=operator)
    assert (caps_row.min_deposit, caps_row.max_deposit) == (10_00, 500_00)


@pytest.mark.parametrize(
    ("payload", "slug"),
    [
        ({"currency": "EUR", "caps": {"min_deposit": "10.00", "max_deposit": "5.00"}},
         "cashier-caps-invalid"),
        ({"currency": "EUR", "caps": {"min_withdrawal": "10.00", "max_withdrawal": "9.99"}},
         "cashier-caps-invalid"),
        ({"currency": "EUR", "caps": {"hourly_deposit_cap": "10.00"}}, "cashier-caps-invalid"),
        ({"currency": "XGC", "caps": {"max_deposit": "900"}}, "practice-chips-not-convertible"),
        ({"currency": "EUR", "caps": ["max_deposit"]}, "approval-invalid"),
    ],
)  # fmt: skip
def test_cap_proposals_are_checked_like_their_approval(operator, payload, slug):
    risk = staff_user("rui", "risk")
    response = api_as(risk).post(
        "/api/v1/staff/approvals",
        {"kind": "cashier_caps", "operator_id": str(operator.pk), "reason": "VIP",
         "payload": payload},
        format="json",
    )  # fmt: skip
    assert_problem(response, 422, slug)
    assert not ApprovalRequest.objects.exists()


def test_the_approval_checks_the_caps_again(operator):
    """A request recorded before the proposal check (or by hand) is refused by the same
    check when approved: failed, nothing set."""
    CashierCapsFactory(operator=operator, max_deposit=500_00, min_deposit=10_00)
    rui, rita = staff_user("rui", "risk"), staff_user("rita", "risk")
    caps = {name: None for name in CashierCaps.FIELDS} | {"min_deposit": 900_00}
    caps["max_deposit"] = 800_00
    approval = ApprovalRequest.objects.create(
        kind="cashier_caps",
        operator=operator,
        payload={"currency": "EUR", "caps": caps},
        reason="VIP",
        proposed_by=rui,
    )
    assert_problem(decide(rita, approval.pk), 422, "cashier-caps-invalid")
    assert ApprovalRequest.objects.get(pk=approval.pk).status == "failed"
    assert CashierCaps.objects.get(operator=operator).max_deposit == 500_00


def test_what_counts_as_a_raise(operator):
    CashierCapsFactory(operator=operator, min_deposit=10_00, max_deposit=500_00)
    now = {"min_deposit": 10_00, "max_deposit": 500_00}

    def raise_(**caps):
        return services.caps_are_raise(operator=operator, currency="EUR", caps={**now, **caps})

    assert not raise_()
    assert not raise_(max_deposit=100_00, daily_deposit_cap=50_00)  # tighter, new cap
    assert raise_(max_deposit=600_00)
    assert raise_(max_deposit=None)  # a cap removed
    assert raise_(min_deposit=5_00)  # a lower minimum lets smaller deposits in
    assert raise_(min_deposit=None)
    other = OperatorFactory()
    assert not services.caps_are_raise(operator=other, currency="EUR", caps={"max_deposit": 1})


# --- The admin goes through the same services -----------------------------------------------
def test_the_admin_approves_and_rejects_through_the_services(client, player, ana, ben):
    txn = fund(player, 1_000)
    mine = propose_reversal(ana, txn, "one").json()["id"]
    admin_login(client, ana)
    changelist = "/admin/wallet/approvalrequest/"
    response = client.post(
        changelist, {"action": "approve_selected", "_selected_action": [mine]}, follow=True
    )
    assert "another staff member must decide it" in response.content.decode()
    assert ApprovalRequest.objects.get(pk=mine).status == "pending"

    admin_login(client, ben)
    client.post(changelist, {"action": "approve_selected", "_selected_action": [mine]})
    assert ApprovalRequest.objects.get(pk=mine).status == "executed"
    assert reversals() == 1
    other = PlayerFactory(operator=player.operator)
    txn2 = fund(other, 300)
    theirs = propose_reversal(ana, txn2, "two").json()["id"]
    client.post(changelist, {"action": "reject_selected", "_selected_action": [theirs]})
    assert ApprovalRequest.objects.get(pk=theirs).status == "rejected"
    assert AuditEvent.objects.filter(action="approval.rejected", actor_id=str(ben.pk)).exists()


def test_support_cannot_decide_in_the_admin(client, player, ana):
    txn = fund(player, 1_000)
    mine = propose_reversal(ana, txn).json()["id"]
    admin_login(client, staff_user("sam", "support"))
    response = client.post(
        "/admin/wallet/approvalrequest/", {"action": "approve_selected", "_selected_action": [mine]}
    )
    assert response.status_code == 403
    assert ApprovalRequest.objects.get(pk=mine).status == "pending"


# --- Races (PostgreSQL, real threads) ---------------------------------------------------------
@pytest.mark.django_db(transaction=True)
def test_two_approvers_racing_execute_the_reversal_once():
    operator = OperatorFactory()
    player = PlayerFactory(operator=operator)
    txn = fund(player, 1_000)
    proposer = staff_user("proposer", "finance")
    approvers = [staff_user(f"approver-{n}", "finance") for n in range(4)]
    approval = services.approval_propose(
        kind="reversal",
        payload={"transaction_id": txn.pk, "reference": "race"},
        reason="race",
        user=proposer,
    )

    def approve(i: int):
        return services.approval_approve(
            approval=ApprovalRequest.objects.get(pk=approval.pk), user=approvers[i]
        )

    results = race(len(approvers), approve)
    assert all(isinstance(r, ApprovalRequest) for r in results), results
    assert {r.status for r in results} == {"executed"}
    assert len({r.decided_by_id for r in results}) == 1  # one of them decided
    assert LedgerTransaction.objects.filter(kind="reversal").count() == 1
    assert AuditEvent.objects.filter(action="approval.executed").count() == 1
    assert balances.wallet_balance(player=player) == 0
