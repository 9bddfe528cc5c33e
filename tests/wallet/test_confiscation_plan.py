"""The legs of a confiscation (wallet/services/plans/confiscation.py): pure, so checked on
their own: the colluder's side once, each victim's credit, a crossing of the books through
the network positions for a victim of another operator, and every operator's books
balanced whoever is seamless."""

from __future__ import annotations

import itertools

from wallet.ledger.lines import unbalanced_books, unbalanced_currencies
from wallet.services.plans.confiscation import Party, confiscation_lines

A, B, C = "op-a", "op-b", "op-c"


def _party(player_id, operator_id, seamless=False):
    return Party(player_id=player_id, operator_id=operator_id, seamless=seamless, shard=0)


def test_every_operators_books_balance_whoever_is_seamless():
    for colluder_seamless, victim_seamless in itertools.product((False, True), repeat=2):
        colluder = _party("shark", A, colluder_seamless)
        refunds = [
            (_party("minnow", B, victim_seamless), 1_000),
            (_party("guppy", A), 500),
            (_party("carp", C), 7),
        ]
        lines = confiscation_lines(colluder=colluder, refunds=refunds, currency="EUR")
        assert unbalanced_currencies(lines) == {}
        assert unbalanced_books(lines) == {}
        taken = [line for line in lines if line.component == "confiscated"]
        assert [(line.account.kind, line.amount) for line in taken] == [
            ("outside" if colluder_seamless else "player", -1_507)
        ]
        crossing = {
            (line.account.operator_id, line.amount)
            for line in lines
            if line.component == "confiscation_crossing"
        }
        assert crossing == {(A, 1_000), (B, -1_000), (A, 7), (C, -7)}
        given = {line.player_id: line.amount for line in lines if line.component == "restitution"}
        assert given == {"minnow": 1_000, "guppy": 500, "carp": 7}


def test_within_one_operator_nothing_crosses():
    lines = confiscation_lines(
        colluder=_party("shark", A), refunds=[(_party("guppy", A), 250)], currency="GBP"
    )
    assert [(line.account.kind, line.amount) for line in lines] == [
        ("player", -250),
        ("player", 250),
    ]
