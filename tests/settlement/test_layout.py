"""The shape of settlement's code: the reports, statements and pages are built from reads
(settlement/selectors.py, and the ledger's through wallet.selectors) without a query of
their own, and a payout has one entry point whose docstring draws its path."""

import ast
import inspect
from pathlib import Path

import pytest

from settlement import receivers, services

ROOT = Path(__file__).resolve().parents[2]
SETTLEMENT = ROOT / "settlement"
BUILT_FROM_READS = ("reports", "network", "backoffice", "charts", "statements", "payouts")


@pytest.mark.parametrize("module", BUILT_FROM_READS)
def test_the_reports_and_pages_make_no_query_of_their_own(module):
    tree = ast.parse((SETTLEMENT / f"{module}.py").read_text())
    queries = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr == "objects"
    ]
    assert queries == []


def test_a_payout_has_one_entry_point_that_draws_its_path():
    picture = inspect.getdoc(services.game_payout_request)
    hops = [
        "games.signals.match_finished",
        "settlement.receivers.enqueue_settlement",
        "game_payout_request",
        "settlement.ready.ready_add",
        "settlement.tasks.settle_ready",
        "games_settle",
        "settlement.payouts",
        "wallet.services.escrow_settle_many",
        "ledger_write",
    ]
    at = [picture.find(hop) for hop in hops]
    assert -1 not in at, dict(zip(hops, at, strict=True))
    assert at == sorted(at)  # in the order a payout takes them
    assert receivers.game_payout_request is services.game_payout_request


def test_the_services_name_the_tasks_they_queue():
    """One direction: the tasks import the services, the services never import the tasks."""
    for module in ("services", "ready", "receivers"):
        tree = ast.parse((SETTLEMENT / f"{module}.py").read_text())
        imported = {
            f"{node.module}.{alias.name}" if isinstance(node, ast.ImportFrom) else alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.Import | ast.ImportFrom)
            for alias in node.names
        }
        assert not [name for name in imported if name.startswith("settlement.tasks")], module
    assert services.SETTLE_GAME == "settlement.tasks.settle_game"
    assert services.SETTLE_READY == "settlement.tasks.settle_ready"
