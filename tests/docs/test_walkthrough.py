"""docs/walkthrough.md, a whole game with curl, run exactly as written against a real server.

The page says how: `make serve` in one terminal, the blocks pasted in order into bash at the
repository root in a second one. Here `make serve` itself runs (on a free port of the
loopback, over a fresh embedded database under a temporary GIN_VAR_DIR, with none of this
shell's database or broker URLs: a fresh machine's settings), and every fenced ``sh`` block
of the page is run in order by one bash process (``set -euo pipefail``) with ``API`` pointing
at it (tests/docs/blocks.py). Each block's output is checked. Forfeit amounts are the game's
business (R10), so the game's end is checked by its invariants, not by its figures.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path

import pytest

from tests.docs.blocks import json_then_lines, run_page

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "walkthrough.md"


def money(value: dict) -> Decimal:
    assert value["currency"] == "EUR"
    return Decimal(value["amount"])


@pytest.mark.slow
def test_the_walkthrough_runs_as_written(tmp_path):
    # The page says how to start the server, and it is what runs.
    _, outputs = run_page(PAGE.read_text(), tmp_path, blocks=9)
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
            "tournament_fees",
            "promotion",
        )
    ]
    assert players_header.split(",")[-5:] == ["games", "staked", "paid", "net", "mode"]
    assert len(player_rows) == 2
    assert sum(Decimal(row.split(",")[-2]) for row in player_rows) == -fee
