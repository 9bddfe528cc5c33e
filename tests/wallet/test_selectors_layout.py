"""The shape of the wallet's reads: one ``wallet/selectors/`` package, a module per concern,
nothing re-exported by the package, every module mapped in docs/wallet.md."""

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SELECTORS = ROOT / "wallet" / "selectors"

# Where each read lives: a newcomer finds it from the file name.
CONCERNS = {
    "balances": ["wallet_balance", "house_balance", "escrow_balance", "contribution_entries"],
    "transactions": ["player_transactions", "transaction_get", "transaction_entries"],
    "limits": ["cashier_caps_get", "player_limit_states", "self_excluded_until", "break_ends"],
    "rates": ["latest_rate", "display_amount", "display_rates_reused"],
    "practice": ["practice_top_up_in", "practice_chips_ever_issued"],
    "postings": ["deposit_checks_get", "escrow_with_replay", "escrow_posting_reads_many"],
    "network": ["network_position_balance", "network_position_outstanding", "unbalanced_books"],
    "seamless": ["is_seamless", "wallet_mode_blockers", "seamless_mismatches"],
    "approvals": ["approval_list", "approval_get"],
    "backoffice": ["player_open_stakes", "revenue_corrections", "network_position_days"],
    "reconciliation": ["reconcile", "ReconciliationReport", "escrow_payouts_by_player"],
    "flows": ["settled_game_flows"],
    "harm": ["deposits_made", "buy_ins_made", "loss_limits_reached", "limit_in_force"],
    "history": ["wallet_movements", "wallet_period_sums", "game_nets"],
    "tournaments": ["ticket_balance", "promotion_balance", "overlay_lines", "tournament_statement"],
}


@pytest.mark.parametrize("concern", sorted(CONCERNS))
def test_each_concern_of_the_reads_is_its_own_module(concern):
    module = importlib.import_module(f"wallet.selectors.{concern}")
    for name in CONCERNS[concern]:
        assert getattr(module, name).__module__ == module.__name__, name


def test_the_package_re_exports_nothing():
    """``from wallet.selectors import balances``: the package holds its docstring only."""
    tree = ast.parse((SELECTORS / "__init__.py").read_text())
    assert ast.get_docstring(tree)
    assert len(tree.body) == 1


def test_no_selectors_module_is_left_beside_the_package():
    assert sorted(p.name for p in (ROOT / "wallet").glob("*selectors*.py")) == []


def test_the_wallet_doc_maps_every_selectors_module():
    doc = (ROOT / "docs" / "wallet.md").read_text()
    modules = sorted(p.stem for p in SELECTORS.glob("*.py") if p.name != "__init__.py")
    assert modules == sorted(CONCERNS)
    for module in modules:
        assert f"wallet/selectors/{module}.py" in doc, module
