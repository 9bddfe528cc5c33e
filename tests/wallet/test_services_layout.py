"""The shape of the wallet's code: one concern per module, one posting skeleton, the row locks
in wallet/locks.py, durable transactions where nobody nests them, the ledger reference
formats built by the services, and rules named by R-number (never by tracker numbers)."""

import ast
import importlib
import re
import uuid
from pathlib import Path

import pytest
from django.db import transaction

from tests.factories import OperatorFactory
from tests.wallet.factories import SYSTEM, fund, ref
from wallet import services
from wallet.models import CashierCaps, LedgerTransaction

ROOT = Path(__file__).resolve().parents[2]
WALLET = ROOT / "wallet"
SERVICES = WALLET / "services"

# Where each service lives: a newcomer finds a rule from the file name.
CONCERNS = {
    "posting": ["shard_for", "house_shards", "AccountKey", "LedgerInvariantError"],
    "cashier": ["deposit", "withdraw", "cashier_caps_set", "deposit_reference"],
    "escrow": ["table_buy_in", "table_refund"],
    "escrow_settle": ["escrow_settle", "EscrowPayout"],
    "practice": ["practice_chips_top_up", "practice_grant_amount", "practice_top_up_window"],
    "rates": ["exchange_rate_record", "exchange_rates_load", "RateRowError", "fx_max_age"],
    "responsible_gaming": [
        "player_limit_set",
        "self_exclusion_create",
        "check_withdrawal_kyc",
        "check_not_self_excluded",
        "check_loss_limits",
    ],
    "corrections": ["transaction_reverse", "reversal_reference"],
    "approvals": ["approval_propose", "approval_approve", "approval_reject", "wallet_adjust"],
    "seamless": ["seamless_debit", "seamless_credit", "seamless_rollback", "operator_wallet_set"],
    "seamless_retry": ["seamless_call_retry", "seamless_calls_sweep", "seamless_balance"],
    "network": ["network_fee_split", "network_position_settle", "check_net_settlement"],
}

# Every name another app, view, command, test, benchmark or doc imports from wallet.services.
PUBLIC_NAMES = [
    "EscrowPayout",
    "ExchangeRateLoadResult",
    "RateRowError",
    "cashier_caps_set",
    "deposit",
    "escrow_settle",
    "exchange_rate_record",
    "exchange_rates_load",
    "player_limit_set",
    "practice_chips_top_up",
    "practice_grant_amount",
    "self_exclusion_create",
    "shard_for",
    "table_buy_in",
    "table_refund",
    "transaction_reverse",
    "withdraw",
]


def _python_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "migrations" not in p.parts)


@pytest.mark.parametrize("concern", sorted(CONCERNS))
def test_each_concern_of_the_services_is_its_own_module(concern):
    module = importlib.import_module(f"wallet.services.{concern}")
    for name in CONCERNS[concern]:
        assert getattr(module, name).__module__ == module.__name__, name


def test_the_withdrawal_kyc_rule_is_found_from_the_file_names():
    from wallet.services import cashier, responsible_gaming

    source = (SERVICES / "responsible_gaming.py").read_text()
    assert "KycRequiredProblem(" in source
    assert "KycRequiredProblem(" not in (SERVICES / "cashier.py").read_text()
    assert cashier.check_withdrawal_kyc is responsible_gaming.check_withdrawal_kyc


def test_the_package_still_exports_every_public_name():
    for name in PUBLIC_NAMES:
        assert callable(getattr(services, name)), name
    assert set(services.__all__) >= set(PUBLIC_NAMES)


@pytest.mark.parametrize(
    "name",
    [
        "display_amount",
        "escrow_balance",
        "escrow_contributions",
        "reconcile",
        "ReconciliationReport",
    ],
)
def test_services_do_not_re_export_selectors(name):
    assert not hasattr(services, name), f"import {name} from wallet.selectors"


def test_no_wallet_module_is_longer_than_600_lines():
    long = {
        str(path.relative_to(ROOT)): n
        for path in _python_files(WALLET)
        if (n := len(path.read_text().splitlines())) > 600
    }
    assert long == {}


def _calls(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call):
            func = node.func
            names.add(func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", ""))
    return names


def test_only_the_posting_core_locks_accounts_checks_replays_and_posts():
    """One skeleton (resolve, lock in key order, replay check, rules, post) in posting.py;
    the cashier, escrow, practice and correction services call it, never its steps."""
    steps = {"lock_accounts", "_replay", "_accounts", "select_for_update"}
    offenders = {
        str(path.relative_to(ROOT)): sorted(steps & _calls(path))
        for path in _python_files(WALLET)
        if path.name not in ("posting.py", "locks.py") and steps & _calls(path)
    }
    assert offenders == {}
    for concern in ("cashier", "escrow", "practice", "corrections", "seamless"):
        assert "posting_make" in _calls(SERVICES / f"{concern}.py"), concern


def test_every_row_lock_of_the_wallet_is_taken_in_locks_py():
    for path in _python_files(WALLET):
        if path.name != "locks.py":
            assert "select_for_update" not in path.read_text(), path


def test_the_wallet_views_make_no_orm_queries():
    """Views parse, call one service or selector, and render: no ``Model.objects`` there."""
    for path in _python_files(WALLET / "api"):
        queries = [
            node.lineno
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Attribute) and node.attr == "objects"
        ]
        assert queries == [], path


def test_an_unknown_operator_has_no_cashier_caps_to_set(staff_client):
    for operator_id in ("not-a-uuid", str(uuid.uuid4())):
        response = staff_client.put(
            f"/api/v1/staff/operators/{operator_id}/cashier-caps/EUR", {}, format="json"
        )
        assert response.status_code == 404, response.content
        assert response.json()["detail"] == f"No operator {operator_id}"


def test_the_wallet_names_no_tracker_numbers():
    tracker = re.compile(r"\b(issue|item)s? \d+", re.IGNORECASE)
    files = [*_python_files(WALLET), ROOT / "docs" / "wallet.md"]
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in files
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if tracker.search(line)
    ]
    assert found == []


def test_the_wallet_doc_maps_every_services_module():
    doc = (ROOT / "docs" / "wallet.md").read_text()
    modules = sorted(p.name for p in SERVICES.glob("*.py") if p.name != "__init__.py")
    assert modules == sorted(f"{name}.py" for name in CONCERNS)
    for module in modules:
        assert f"wallet/services/{module}" in doc, module


# --- Reference formats: built by the services, used by the views -------------------------
def test_the_cashier_and_correction_reference_formats():
    operator_id = uuid.uuid4()
    assert services.deposit_reference(operator_id=operator_id, reference="psp-1") == (
        f"deposit:{operator_id}:psp-1"
    )
    assert services.withdrawal_reference(operator_id=operator_id, reference="psp-1") == (
        f"withdrawal:{operator_id}:psp-1"
    )
    assert services.reversal_reference(reference="chargeback-7") == "reversal:chargeback-7"


def test_the_views_post_under_the_services_reference_formats(
    operator_client, player, staff_client, approver_client
):
    response = operator_client.post(
        f"/api/v1/players/{player.pk}/deposits",
        {"amount": "5.00", "currency": "EUR", "reference": "psp-9"},
        format="json",
        HTTP_IDEMPOTENCY_KEY="key-1",
    )
    assert response.status_code == 201, response.content
    expected = services.deposit_reference(operator_id=player.operator_id, reference="psp-9")
    assert response.json()["reference"] == expected
    reversal = staff_client.post(
        f"/api/v1/staff/ledger/transactions/{response.json()['id']}/reversal",
        {"reference": "undo-9", "reason": "test"},
        format="json",
    )
    assert reversal.status_code == 201, reversal.content
    executed = approver_client.post(
        f"/api/v1/staff/approvals/{reversal.json()['id']}/approve", {}, format="json"
    ).json()
    posted = LedgerTransaction.objects.get(pk=executed["result_ref"].split(":")[1])
    assert posted.reference == services.reversal_reference(reference="undo-9")


# --- Durable transactions -----------------------------------------------------------------
@pytest.mark.django_db
def test_cashier_caps_set_refuses_to_run_inside_another_transaction():
    """Nobody nests it (the staff endpoint calls it on its own): durable, so that nesting it
    by accident fails loudly instead of holding the caps row lock for a caller's time."""
    operator = OperatorFactory()
    with pytest.raises(RuntimeError, match="durable"), transaction.atomic():
        services.cashier_caps_set(operator=operator, currency="EUR", actor=SYSTEM, max_deposit=5)
    assert not CashierCaps.objects.filter(operator=operator).exists()
    services.cashier_caps_set(operator=operator, currency="EUR", actor=SYSTEM, max_deposit=5)
    assert CashierCaps.objects.get(operator=operator).max_deposit == 5


@pytest.mark.django_db
def test_services_designed_for_a_callers_transaction_still_nest(player):
    """Games seat a player, settlement settles and the idempotent views answer inside their
    own transaction: those services stay savepoints of the caller's transaction."""
    with transaction.atomic():
        fund(player, 1000)
        services.withdraw(player=player, amount=100, currency="EUR", reference=ref(), actor=SYSTEM)
        buy_in = services.table_buy_in(
            player=player,
            game_ref="match:1",
            amount=300,
            currency="EUR",
            reference=ref(),
            actor=SYSTEM,
        )
        services.transaction_reverse(
            ledger_transaction=buy_in, reference=ref(), reason="test", actor=SYSTEM
        )
        services.practice_chips_top_up(player=player, actor=SYSTEM)
        services.self_exclusion_create(player=player, days=1, actor=SYSTEM)
        services.player_limit_set(player=player, kind="loss", period="day", amount=5, actor=SYSTEM)
    kinds = LedgerTransaction.objects.filter(player=player).values_list("kind", flat=True)
    assert sorted(kinds) == sorted(
        ["deposit", "withdrawal", "buy_in", "reversal", "practice_top_up"]
    )
