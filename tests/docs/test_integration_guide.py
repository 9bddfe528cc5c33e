"""docs/integration.md, run exactly as written, against a server started as it says.

Section 0 of the guide says how: `make serve` in one terminal, the blocks pasted in order
into bash at the repository root in a second one. Here `make serve` itself runs (on a free
port of the loopback, over a fresh embedded database under a temporary GIN_VAR_DIR, with
none of this shell's database or broker URLs: a fresh machine's settings), and every fenced
``sh`` block of the guide is run in order by one bash process (``set -euo pipefail``) with
``API`` pointing at it; nothing else is defined for the blocks (tests/docs/blocks.py). Each
block's output is checked against what the guide says it prints. A fence of any other
language would escape the run, so the guide has only ``sh`` blocks (run) and ``text`` ones
(not commands).
"""

from __future__ import annotations

import csv
import io
import json
import re
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from tests.docs.blocks import json_then_lines, run_page

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "integration.md"


def money(value: str) -> dict:
    return {"amount": value, "currency": "EUR"}


@pytest.mark.slow
def test_the_integration_guide_runs_as_written(tmp_path):
    # Section 0 says how to start the server, and it is what runs.
    api, outputs = run_page(GUIDE.read_text(), tmp_path, blocks=13)
    (
        setup,
        keys,
        webhooks,
        players,
        wallet_model,
        deposits,
        sessions,
        game,
        settled,
        events,
        report,
        transactions,
        reconcile,
    ) = outputs

    assert setup == ["ok"]
    # A sandbox key, made with the live key; `op` calls as the sandbox.
    assert keys == ["gop_test_...", "test"]
    # The sandbox's own webhook secret; a loopback webhook URL accepted (development).
    assert webhooks == [
        "whsec_...",
        "http://127.0.0.1:9000/gin/webhooks",
        '["deposit.completed", "game.settled"]',
        "https://casino.example",
    ]
    assert players == ["u-1001"]
    # Transfer by default; seamless with a loopback base_url (development), and back.
    assert wallet_model == ["transfer", "seamless", "transfer"]
    # Two deposits, a retry answered with the first answer, then no more switching.
    deposit = json.dumps(money("50.00"))
    assert deposits == [deposit] * 3 + ["/problems/wallet-mode-switch-refused"]
    launch_url, token = sessions
    site = re.escape(api.removesuffix("/api/v1"))
    assert re.fullmatch(site + r"/play/\?lang=en#launch=glt_\S+", launch_url)
    assert token == "gps_..."
    assert game == ["running", "finished"]
    # Settled: a forfeit, 5% of the 10.00 pot.
    match_id, reason, fee = settled
    assert reason == "forfeit" and json.loads(fee) == money("0.50")
    # game.settled in the events API, then caught up; the latest delivery is for it.
    assert events == [match_id, "[]", "game.settled"]

    # The day's report with `to` exclusive: the game, both players; from=to is refused.
    body, rest = json_then_lines(report)
    today = datetime.now(UTC).date()
    assert (body["from"], body["to"]) == (
        f"{today}T00:00:00+00:00",
        f"{today + timedelta(days=1)}T00:00:00+00:00",
    )
    (totals,) = body["totals"]
    assert (totals["games"], totals["turnover"], totals["fees"]) == (1, "10.00", "0.50")
    nets = {line["external_ref"]: Decimal(line["net"]) for line in body["players"]}
    assert nets == {"u-1001": Decimal("4.50"), "u-1002": Decimal("-5.00")}
    *csv_lines, refused = rest
    rows = list(csv.DictReader(io.StringIO("\n".join(csv_lines))))
    assert {row["external_ref"]: Decimal(row["net"]) for row in rows} == nets
    assert refused == "/problems/report-range-invalid"

    # The player's transactions, newest first; the ledger reconciles.
    assert transactions == ["settlement 9.50", "buy_in -5.00", "deposit 50.00"]
    assert reconcile[-1] == "OK: the ledger reconciles"
