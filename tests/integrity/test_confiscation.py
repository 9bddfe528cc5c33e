"""Confiscation with four eyes (docs/integrity.md "Confiscation"): who may propose and
decide, the proposer never deciding, one live request per case, a posting the ledger
refuses recorded failed, a rejection, racing approvers posting once (PostgreSQL), and the
posting's legs for a seamless colluder and within one operator."""

from __future__ import annotations

import pytest

from gin_platform.http.problems import (
    ApprovalNotPendingProblem,
    FourEyesRequiredProblem,
    PermissionDeniedProblem,
    ProposerNotEntitledProblem,
)
from gin_platform.models import AuditEvent
from integrity import services
from integrity.models import CaseAction, Confiscation
from integrity.problems import CaseActionInvalidProblem, CaseClosedProblem
from tests.factories import SYSTEM, OperatorFactory, PlayerFactory, staff_user
from tests.integrity.world import alert_make
from tests.races import race
from tests.wallet.factories import fund
from wallet import services as wallet_services
from wallet.models import Account, LedgerTransaction, OperatorWallet, WalletCall
from wallet.problems import ConfiscationInvalidProblem, InsufficientFundsProblem
from wallet.selectors import balances, reconciliation


def _case(*players):
    colluder, *victims = players
    alerts = [alert_make(colluder, victim) for victim in victims]
    return services.case_open(alerts=alerts, title="pair", opened_by="detection", actor=SYSTEM)


def _players(funds=5_000):
    operator = OperatorFactory()
    colluder, victim = PlayerFactory(operator=operator), PlayerFactory(operator=operator)
    fund(colluder, funds)
    return colluder, victim


def _propose(case, colluder, victim, user, amount=1_200):
    return services.confiscation_propose(
        case=case,
        colluder_id=colluder.pk,
        refunds=[(victim.pk, amount)],
        currency=colluder.wallet_currency,
        reason="soft play",
        user=user,
    )


@pytest.mark.django_db
def test_the_proposer_never_decides_and_a_support_user_neither_proposes_nor_decides():
    colluder, victim = _players()
    case = _case(colluder, victim)
    # ana holds both sides (risk and finance): only four eyes stop her deciding her own.
    ana, sam = staff_user("ana", "risk", "finance"), staff_user("sam", "support")
    with pytest.raises(PermissionDeniedProblem):
        _propose(case, colluder, victim, sam)
    row = _propose(case, colluder, victim, ana)
    with pytest.raises(FourEyesRequiredProblem):
        services.confiscation_approve(confiscation=row, user=ana)
    with pytest.raises(FourEyesRequiredProblem):
        services.confiscation_reject(confiscation=row, user=ana)
    with pytest.raises(PermissionDeniedProblem):
        services.confiscation_approve(confiscation=row, user=sam)
    row.refresh_from_db()
    assert row.status == "pending" and not LedgerTransaction.objects.filter(kind="confiscation")


@pytest.mark.django_db
def test_one_live_confiscation_per_case_and_only_the_cases_players():
    colluder, victim = _players()
    stranger = PlayerFactory(operator=colluder.operator)
    case = _case(colluder, victim)
    ana = staff_user("ana", "risk")
    with pytest.raises(CaseActionInvalidProblem) as outside:
        _propose(case, colluder, stranger, ana)
    assert outside.value.extensions["field"] == "refunds"
    with pytest.raises(ConfiscationInvalidProblem):
        _propose(case, colluder, colluder, ana)
    _propose(case, colluder, victim, ana)
    with pytest.raises(CaseActionInvalidProblem) as twice:
        _propose(case, colluder, victim, ana)
    assert twice.value.extensions["field"] == "case"


@pytest.mark.django_db
def test_a_rejected_request_posts_nothing_and_a_new_one_may_follow():
    colluder, victim = _players()
    case = _case(colluder, victim)
    ana, ben = staff_user("ana", "risk"), staff_user("ben", "finance")
    row = services.confiscation_reject(
        confiscation=_propose(case, colluder, victim, ana), user=ben, note="not enough"
    )
    assert row.status == "rejected" and row.decided_by == ben
    with pytest.raises(ApprovalNotPendingProblem):
        services.confiscation_approve(confiscation=row, user=ben)
    again = _propose(case, colluder, victim, ana, amount=700)
    assert services.confiscation_approve(confiscation=again, user=ben).status == "executed"
    assert balances.wallet_balance(player=victim) == 700
    assert list(
        CaseAction.objects.filter(case=case).order_by("pk").values_list("kind", flat=True)
    ) == [
        "confiscation_proposed",
        "confiscation_rejected",
        "confiscation_proposed",
        "confiscation_executed",
    ]


@pytest.mark.django_db
def test_a_posting_the_ledger_refuses_marks_the_request_failed():
    colluder, victim = _players(funds=1_000)
    case = _case(colluder, victim)
    ana, ben = staff_user("ana", "risk"), staff_user("ben", "finance")
    row = _propose(case, colluder, victim, ana, amount=1_001)
    with pytest.raises(InsufficientFundsProblem):
        services.confiscation_approve(confiscation=row, user=ben)
    row.refresh_from_db()
    assert (row.status, row.result_ref) == ("failed", "insufficient-funds")
    assert balances.wallet_balance(player=colluder) == 1_000
    assert not LedgerTransaction.objects.filter(kind="confiscation").exists()


@pytest.mark.django_db
def test_a_proposer_who_lost_the_role_leaves_a_request_nobody_can_execute():
    colluder, victim = _players()
    case = _case(colluder, victim)
    ana, ben = staff_user("ana", "risk"), staff_user("ben", "finance")
    row = _propose(case, colluder, victim, ana)
    ana.groups.clear()
    with pytest.raises(ProposerNotEntitledProblem):
        services.confiscation_approve(confiscation=Confiscation.objects.get(pk=row.pk), user=ben)
    row.refresh_from_db()
    assert row.status == "failed"


@pytest.mark.django_db
def test_a_closed_case_takes_no_proposal():
    colluder, victim = _players()
    case = _case(colluder, victim)
    ana = staff_user("ana", "risk")
    services.case_close(case=case, resolution="nothing found", user=ana)
    with pytest.raises(CaseClosedProblem):
        _propose(case, colluder, victim, ana)


@pytest.mark.django_db
def test_a_seamless_colluders_side_comes_from_the_operators_outside_account():
    seamless = OperatorFactory()
    # The operator's wallet is never called here: the credit is sent after a commit.
    OperatorWallet.objects.create(
        operator=seamless, mode="seamless", base_url="https://wallet.invalid", timeout_ms=250
    )
    colluder = PlayerFactory(operator=seamless)
    victim = PlayerFactory(operator=seamless)
    txn = wallet_services.winnings_confiscate(
        colluder=colluder,
        refunds=[(victim, 800)],
        currency=colluder.wallet_currency,
        reference="confiscation:test-seamless",
        actor=SYSTEM,
    )
    lines = {(e.account.kind, e.component): e.amount for e in txn.entries.all()}
    assert lines == {("outside", "confiscated"): -800, ("player", "restitution"): 800}
    assert txn.metadata["colluder_seamless"] is True
    # The victim's credit goes on to the operator's wallet like a refund.
    credits = WalletCall.objects.filter(player=victim, kind="credit", reason="refund", amount=800)
    assert credits.count() == 1
    replay = wallet_services.winnings_confiscate(
        colluder=colluder,
        refunds=[(victim, 800)],
        currency=colluder.wallet_currency,
        reference="confiscation:test-seamless",
        actor=SYSTEM,
    )
    assert replay.pk == txn.pk
    assert reconciliation.reconcile().ok


@pytest.mark.django_db
def test_players_of_two_operators_outside_a_network_cannot_be_confiscated_between():
    colluder, _ = _players()
    other = PlayerFactory(operator=OperatorFactory())
    with pytest.raises(ConfiscationInvalidProblem):
        wallet_services.winnings_confiscate(
            colluder=colluder,
            refunds=[(other, 100)],
            currency=colluder.wallet_currency,
            reference="confiscation:no-network",
            actor=SYSTEM,
        )
    assert Account.objects.filter(kind="network_position").count() == 0


# --- Races (PostgreSQL, real threads) ---------------------------------------------------------
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_racing_approvers_post_the_confiscation_once():
    colluder, victim = _players()
    case = _case(colluder, victim)
    proposer = staff_user("proposer", "risk")
    approvers = [staff_user(f"approver-{n}", "finance") for n in range(4)]
    row = _propose(case, colluder, victim, proposer)

    def approve(i: int):
        return services.confiscation_approve(
            confiscation=Confiscation.objects.get(pk=row.pk), user=approvers[i]
        )

    results = race(len(approvers), approve)
    assert all(isinstance(r, Confiscation) for r in results), results
    assert {r.status for r in results} == {"executed"}
    assert len({r.decided_by_id for r in results}) == 1
    assert LedgerTransaction.objects.filter(kind="confiscation").count() == 1
    assert CaseAction.objects.filter(kind="confiscation_executed").count() == 1
    assert AuditEvent.objects.filter(action="ledger.confiscation").count() == 1
    assert balances.wallet_balance(player=victim) == 1_200
    assert balances.wallet_balance(player=colluder) == 5_000 - 1_200
    assert reconciliation.reconcile().ok
