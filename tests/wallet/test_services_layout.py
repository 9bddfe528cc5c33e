"""The shape of the wallet's code: one concern per module (the services, their plans and the
ledger kernel), one posting skeleton, the row locks in wallet/locks.py, no private name
used from another module, durable transactions where nobody nests them, the ledger
reference formats built by the services, and rules named by R-number (never by tracker
numbers)."""

import ast
import importlib
import re
import uuid
from pathlib import Path

import pytest
from django.db import transaction

from tests.factories import OperatorFactory
from tests.wallet.factories import SYSTEM, fund, ref
from tests.wallet.tables import buy_in
from wallet import services
from wallet.models import CashierCaps, LedgerTransaction
from wallet.services import cashier, responsible_gaming, seamless
from wallet.tasks import seamless_call_retry

ROOT = Path(__file__).resolve().parents[2]
WALLET = ROOT / "wallet"
SERVICES = WALLET / "services"
PLANS = SERVICES / "plans"
LEDGER = WALLET / "ledger"

# Where each service lives: a newcomer finds a rule from the file name.
CONCERNS = {
    "cashier": ["deposit", "withdraw", "cashier_caps_set", "deposit_reference"],
    "escrow": ["table_buy_in", "table_refund", "escrow_void"],
    "escrow_settle": ["escrow_settle", "EscrowPayout"],
    "practice": ["practice_chips_top_up", "practice_grant_amount", "practice_top_up_window"],
    "rates": ["exchange_rate_record", "exchange_rates_load", "RateRowError", "fx_max_age"],
    "responsible_gaming": [
        "player_limit_set",
        "self_exclusion_create",
        "time_out_take",
        "check_withdrawal_kyc",
        "check_no_break",
        "check_loss_limits",
    ],
    "corrections": ["transaction_reverse", "reversal_reference"],
    "approvals": ["approval_propose", "approval_approve", "approval_reject", "wallet_adjust"],
    "seamless": ["seamless_debit", "seamless_credit", "seamless_rollback", "operator_wallet_set"],
    "seamless_retry": ["seamless_call_retry", "seamless_calls_sweep", "seamless_balance"],
    "network": ["network_position_settle", "check_net_settlement", "check_network_escrow"],
    "confiscation": ["winnings_confiscate", "check_confiscation", "confiscation_reference"],
    "tournament": [
        "tournament_prizes_pay",
        "TournamentPrize",
        "tournament_fee_take",
        "tournament_overlay_add",
        "tournament_overlay_return",
    ],
    "tickets": ["ticket_grant", "ticket_enter", "ticket_refund", "ticket_expire"],
}

# The plans of the postings (pure: wallet/services/plans/) and the ledger kernel.
PLAN_CONCERNS = {
    "conversion": ["stake_conversion", "payout_conversion", "Conversion"],
    "network": ["network_fee_split", "FeeSplit", "crossing_lines", "net_settlement_lines"],
    "escrow": ["buy_in_accounts", "buy_in_plan", "refund_plan", "void_plan", "VoidPlan"],
    "escrow_settle": ["settlement_plan", "SettlementPlan", "Payee"],
    "corrections": ["reversal_plan", "ReversalPlan"],
    "confiscation": ["confiscation_lines", "Party"],
    "tournament": [
        "prizes_plan",
        "fee_plan",
        "overlay_plan",
        "ticket_entry_plan",
        "TournamentPlan",
    ],
}
LEDGER_CONCERNS = {
    "checks": ["check_amount", "check_reference", "check_game_ref", "check_funds"],
    "lines": ["Line", "lines_on", "transfer_lines", "unbalanced_currencies", "unbalanced_books"],
    "keys": [
        "AccountKey",
        "house_key",
        "player_key",
        "escrow_key",
        "ticket_key",
        "shard_for",
        "house_shards",
    ],
    "accounts": ["resolve_and_lock", "accounts_get_or_create", "in_key_order"],
    "replay": ["posting_replay", "reference_guard"],
    "post": ["post", "post_transfer", "LedgerInvariantError"],
    "skeleton": ["posting_make", "Locked"],
    "write": ["ledger_write", "LedgerBatch"],
}

# Every name another app, view, command, test, benchmark or doc imports from wallet.services.
PUBLIC_NAMES = [
    "EscrowPayout",
    "ExchangeRateLoadResult",
    "RateRowError",
    "cashier_caps_set",
    "check_no_break",
    "deposit",
    "escrow_settle",
    "escrow_void",
    "exchange_rate_record",
    "exchange_rates_load",
    "player_limit_set",
    "practice_chips_top_up",
    "practice_grant_amount",
    "self_exclusion_create",
    "shard_for",
    "table_buy_in",
    "table_refund",
    "time_out_take",
    "transaction_reverse",
    "withdraw",
    # the tournaments (R14)
    "TournamentPrize",
    "tournament_prizes_pay",
    "tournament_fee_take",
    "tournament_overlay_add",
    "tournament_overlay_return",
    "ticket_grant",
    "ticket_enter",
    "ticket_refund",
    "ticket_expire",
]


def _python_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "migrations" not in p.parts)


@pytest.mark.parametrize(
    ("package", "concern", "names"),
    [
        *(("wallet.services", concern, names) for concern, names in CONCERNS.items()),
        *(("wallet.services.plans", concern, names) for concern, names in PLAN_CONCERNS.items()),
        *(("wallet.ledger", concern, names) for concern, names in LEDGER_CONCERNS.items()),
    ],
)
def test_each_concern_of_the_services_is_its_own_module(package, concern, names):
    module = importlib.import_module(f"{package}.{concern}")
    for name in names:
        assert getattr(module, name).__module__ == module.__name__, name


def test_the_withdrawal_kyc_rule_is_found_from_the_file_names():
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
    """One skeleton (resolve, lock in key order, replay check, rules, post) in the ledger
    kernel (wallet/ledger/); the cashier, escrow, practice and correction services call it,
    never its steps."""
    steps = {
        "lock_accounts",
        "lock_accounts_if_all_exist",
        "_transaction_replay",
        "accounts_get_or_create",
        "select_for_update",
    }
    offenders = {
        str(path.relative_to(ROOT)): sorted(steps & _calls(path))
        for path in _python_files(WALLET)
        if LEDGER not in path.parents and path.name != "locks.py" and steps & _calls(path)
    }
    assert offenders == {}
    concerns = ("cashier", "escrow", "practice", "corrections", "seamless", "tournament", "tickets")
    for concern in concerns:
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


@pytest.mark.parametrize(
    ("folder", "concerns"),
    [(SERVICES, CONCERNS), (PLANS, PLAN_CONCERNS), (LEDGER, LEDGER_CONCERNS)],
)
def test_the_wallet_doc_maps_every_services_plan_and_ledger_module(folder, concerns):
    doc = (ROOT / "docs" / "wallet.md").read_text()
    modules = sorted(p.name for p in folder.glob("*.py") if p.name != "__init__.py")
    assert modules == sorted(f"{name}.py" for name in concerns)
    for module in modules:
        assert f"{folder.relative_to(ROOT)}/{module}" in doc, module


def _private_imports(path: Path) -> list[str]:
    """``from x import _name`` of another module (a module's own private names stay in it)."""
    return [
        f"{node.module}.{alias.name}"
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if alias.name.startswith("_") and not alias.name.startswith("__")
    ]


def test_the_services_and_the_ledger_import_no_private_name_of_another_module():
    """A name used from another module is public, with a docstring: the ledger kernel's
    names (``post``, ``Line``, ``check_amount``...) are what the services share."""
    found = {
        str(path.relative_to(ROOT)): names
        for folder in (SERVICES, LEDGER)
        for path in _python_files(folder)
        if (names := _private_imports(path))
    }
    assert found == {}


def test_the_services_queue_tasks_by_name_and_never_import_the_tasks_module():
    """One direction between services and tasks: ``wallet.tasks`` imports the services it
    calls; a service queues a task by its name through gin_platform.enqueue."""
    for path in _python_files(SERVICES):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                modules = [node.module or "", *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            else:
                continue
            assert "wallet.tasks" not in modules, path
    assert seamless_call_retry.name == seamless.RETRY_TASK


def test_the_plans_post_nothing_and_read_nothing():
    """A plan is a pure function of its facts (the import contract says it imports no
    Django, models, locks, reads or writes): no ``.objects``, no ``post`` or lock call."""
    for path in _python_files(PLANS):
        tree = ast.parse(path.read_text())
        attributes = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
        assert "objects" not in attributes, path
        assert not _calls(path) & {"post", "post_transfer", "posting_make", "lock_accounts"}, path


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
        staked = buy_in(player, 300, game="match:1")
        services.transaction_reverse(
            ledger_transaction=staked, reference=ref(), reason="test", actor=SYSTEM
        )
        services.practice_chips_top_up(player=player, actor=SYSTEM)
        services.self_exclusion_create(player=player, days=1, actor=SYSTEM)
        services.time_out_take(player=player, days=7, actor=SYSTEM)
        services.player_limit_set(player=player, kind="loss", period="day", amount=5, actor=SYSTEM)
    kinds = LedgerTransaction.objects.filter(player=player).values_list("kind", flat=True)
    assert sorted(kinds) == sorted(
        ["deposit", "withdrawal", "buy_in", "reversal", "practice_top_up"]
    )
