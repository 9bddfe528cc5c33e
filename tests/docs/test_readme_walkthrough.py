"""The README's curl walkthrough, run exactly as written, against a real server.

The fenced ``sh`` blocks under "## API walkthrough (curl)" are run in order by one bash
process (``set -euo pipefail``), from the repository root, like a reader pasting them into a
second terminal while `make serve` runs: the server here is `manage.py runserver` on a free
port over a fresh SQLite database, with Celery tasks in-process, and ``API`` points at it.
Each block's output is checked. Forfeit amounts are the game's business (R10), so the game's
end is checked by its invariants, not by its figures.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from gin_platform.demo.server import free_port
from tests.processes import stop

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
HEADING = "## API walkthrough (curl)"
MARKER = "::walkthrough-block-{}::"
EMBEDDED_ONLY = ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "GIN_ENV")


def walkthrough_blocks(readme: str) -> list[str]:
    """The ``sh`` blocks of the walkthrough section, in order."""
    start = readme.index(HEADING)
    end = readme.find("\n## ", start + len(HEADING))
    section = readme[start : end if end != -1 else None]
    return re.findall(r"^```sh\n(.*?)^```$", section, re.S | re.M)


def block_outputs(stdout: str, count: int) -> list[list[str]]:
    outputs: list[list[str]] = []
    for line in stdout.splitlines():
        if line == MARKER.format(len(outputs)):
            outputs.append([])
        elif outputs:
            outputs[-1].append(line)
    assert len(outputs) == count, stdout[-3000:]
    return outputs


def run_blocks(blocks: list[str], *, env: dict[str, str], api: str) -> list[list[str]]:
    """The blocks in one ``bash`` (``set -euo pipefail``: a failing command fails the run),
    as a reader pastes them one after the other, with ``$API`` the server; each block's
    output lines."""
    script = "set -euo pipefail\n" + "".join(
        f"echo '{MARKER.format(i)}'\n{block}" for i, block in enumerate(blocks)
    )
    run = subprocess.run(
        ["bash", "-c", script],
        cwd=ROOT,
        env=env | {"API": api},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, f"{run.stdout[-3000:]}\n---\n{run.stderr[-3000:]}"
    return block_outputs(run.stdout, len(blocks))


def json_then_lines(lines: list[str]) -> tuple[object, list[str]]:
    """A pretty-printed JSON document at the start of ``lines``, and the lines after it."""
    text = "\n".join(lines)
    value, end = json.JSONDecoder().raw_decode(text)
    return value, text[end:].strip("\n").splitlines()


@contextlib.contextmanager
def make_serve(env: dict[str, str]) -> Iterator[str]:
    """What `make serve` does (migrate, runserver), on a free port of the loopback."""
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--verbosity", "0"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        timeout=300,
    )
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert server.poll() is None, "the server exited"
            try:
                with urllib.request.urlopen(base + "/api/v1/health", timeout=2):
                    break
            except OSError:
                assert time.monotonic() < deadline, "the server did not answer within 60 s"
                time.sleep(0.2)
        yield base + "/api/v1"
    finally:
        stop(server, timeout=15)


def not_at_midnight() -> None:
    """The walkthrough asks for today's report (UTC): do not start right before midnight."""
    now = datetime.now(UTC)
    midnight = datetime.combine(now.date() + timedelta(days=1), datetime.min.time(), UTC)
    if (midnight - now).total_seconds() < 120:
        time.sleep((midnight - now).total_seconds() + 1)


def money(value: dict) -> Decimal:
    assert value["currency"] == "EUR"
    return Decimal(value["amount"])


@pytest.mark.slow
def test_the_readme_walkthrough_runs_as_written(tmp_path):
    blocks = walkthrough_blocks(README.read_text())
    assert len(blocks) == 9, "the checks below follow the walkthrough block by block"
    env = {k: v for k, v in os.environ.items() if k not in EMBEDDED_ONLY}
    env["GIN_VAR_DIR"] = str(tmp_path)
    not_at_midnight()
    with make_serve(env) as api:
        outputs = run_blocks(blocks, env=env, api=api)
    (
        operator,
        players,
        room,
        seats,
        first_moves,
        a_turn,
        the_end,
        settlement,
        report,
    ) = outputs

    # An operator key from manage.py, without the virtualenv activated.
    assert operator[-1].startswith("operator key: gop_")
    # Two deposits.
    assert [json.loads(line) for line in players] == [{"amount": "50.00", "currency": "EUR"}] * 2
    # A room with one free table.
    assert room == ["2"]
    # The second seat starts the match; the hand is committed to before anybody plays.
    assert seats[0] == "running"
    assert re.fullmatch(r"[0-9a-f]{64}", seats[1])

    # The upcard offer: ten cards, pass at seq 1 -> 2, a retry, a stale action refused.
    cards, offer, after_pass, retried, stale = first_moves
    assert len(json.loads(cards)) == 10
    assert {action["kind"] for action in json.loads(offer)} == {"take_upcard", "pass"}
    assert (after_pass, retried, stale) == ("2", "2", "/problems/stale-sequence")

    # Both passed, the non-dealer drew from the stock and discarded; the events feed agrees.
    phase_after_passes, phase_after_draw, pile, *events = a_turn
    assert phase_after_passes == "draw"
    assert phase_after_draw != phase_after_passes
    discarded = json.loads(pile)[-1]
    assert [event.split()[1] for event in events] == [
        "hand_dealt",
        "pass",
        "pass",
        "draw_stock",
        "discard",
    ]
    assert events[-1].split()[-1] == discarded

    # The game ends by Bob resigning: a forfeit.
    forfeit = json.loads(the_end[-1])
    assert forfeit["reason"] == "resigned"

    # Settled; the statement is there and balances; the wallets show the payout.
    status, *rest = settlement
    assert status == "settled"
    statement, rest = json_then_lines(rest)
    fee_line, alice_balance, bob_balance = rest
    fee = money(json.loads(fee_line))
    assert statement["reason"] == "forfeit"
    assert statement["forfeit"] == forfeit
    assert money(statement["fee"]) == fee
    assert money(statement["escrow"]) == Decimal("10.00")
    nets = {entry["player_id"]: money(entry["net"]) for entry in statement["players"]}
    assert len(nets) == 2 and sum(nets.values()) == -fee
    assert Decimal(alice_balance) + Decimal(bob_balance) == Decimal("100.00") - fee
    assert Decimal(alice_balance) > Decimal(bob_balance)  # Bob gave the game up

    # Today's report: the game, both players by name; every CSV column adds up.
    body, csv_lines = json_then_lines(report)
    (totals,) = body["totals"]
    assert (totals["games"], totals["player_games"]) == (1, 2)
    assert Decimal(totals["fees"]) == fee
    assert Decimal(totals["turnover"]) == Decimal("10.00")
    lines = {line["external_ref"]: line for line in body["players"]}
    assert set(lines) == {"alice", "bob"}
    assert {line["player_id"]: Decimal(line["net"]) for line in lines.values()} == nets
    totals_header, totals_row, players_header, *player_rows = csv_lines
    assert totals_header.split(",")[:4] == ["day", "operator", "currency", "games"]
    assert totals_row.split(",")[3:] == [
        str(totals[key])
        for key in (
            "games",
            "player_games",
            "turnover",
            "fees",
            "payouts",
            "bonus_points",
            "mode",
            "ggr",
            "ngr",
        )
    ]
    assert players_header.split(",")[-5:] == ["games", "staked", "paid", "net", "mode"]
    assert len(player_rows) == 2
    assert sum(Decimal(row.split(",")[-2]) for row in player_rows) == -fee
