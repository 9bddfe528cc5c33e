"""The daily report's tournament figures (R14; docs/settlement.md "Reports"): the entry fees
a tournament paid the house count as fee revenue in GGR on the day they were taken, and what
the operator's promotions cost (overlays, freeroll pools, granted tickets, less those given
back) comes off NGR on the day it was posted; a network tournament's fee counts for each
operator as the share its house fee received."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from gin_platform.models import Network
from settlement import reports
from tests.factories import SYSTEM, OperatorFactory, PlayerFactory
from tests.helpers import freeze_now
from tests.wallet.factories import fund, ref
from wallet import services
from wallet.services import TournamentPrize

pytestmark = pytest.mark.django_db
DAY = [datetime(2026, 3, day, 10, tzinfo=UTC) for day in (1, 2, 3)]
START, END = datetime(2026, 3, 1, tzinfo=UTC), datetime(2026, 3, 4, tzinfo=UTC)
T = "tournament:7"
ENTRY = 1100


def _enter(player, owner=None):
    return services.table_buy_in(
        player=player,
        game_ref=T,
        amount=ENTRY,
        currency="EUR",
        reference=ref("register"),
        actor=SYSTEM,
        escrow_operator=owner,
    )


def _grant(player, amount):
    return services.ticket_grant(
        player=player,
        tournament_ref=T,
        amount=amount,
        currency="EUR",
        reference=ref("grant"),
        actor=SYSTEM,
    )


def _fee(amount, owner=None):
    return services.tournament_fee_take(
        game_ref=T,
        currency="EUR",
        amount=amount,
        reference=ref("fee"),
        actor=SYSTEM,
        escrow_operator=owner,
    )


def test_tournament_fees_are_revenue_and_promotions_a_cost_on_the_day_posted(monkeypatch, operator):
    clock = freeze_now(monkeypatch, DAY[0])
    players = [PlayerFactory(operator=operator) for _ in range(3)]
    holder, unused = PlayerFactory(operator=operator), PlayerFactory(operator=operator)
    for who in players:
        fund(who, 10_000)
        _enter(who)
    _grant(holder, ENTRY)
    services.ticket_enter(
        player=holder,
        tournament_ref=T,
        amount=ENTRY,
        currency="EUR",
        reference=ref("entry"),
        actor=SYSTEM,
    )
    _grant(unused, 300)
    services.tournament_overlay_add(
        game_ref=T, currency="EUR", amount=500, operator=operator, reference=ref("o"), actor=SYSTEM
    )
    clock.set(DAY[1])
    fee = _fee(400)
    services.tournament_prizes_pay(
        game_ref=T,
        currency="EUR",
        prizes=[TournamentPrize(player=players[0], amount=4 * ENTRY - 400 + 500)],
        reference=ref("prizes"),
        actor=SYSTEM,
    )
    clock.set(DAY[2])
    services.transaction_reverse(
        ledger_transaction=fee, reference=ref("undo"), reason="test", actor=SYSTEM
    )
    services.ticket_expire(
        player=unused, tournament_ref=T, currency="EUR", reference=ref("expire"), actor=SYSTEM
    )

    report = reports.daily_report(operator=operator, start=START, end=END)
    rows = {row.day.day: row for row in report.totals}
    figures = {
        day: (row.games, row.tournament_fees, row.promotion, row.ggr, row.ngr)
        for day, row in rows.items()
    }
    assert figures == {
        1: (0, 0, ENTRY + 300 + 500, 0, -(ENTRY + 300 + 500)),  # two tickets and the overlay
        2: (0, 400, 0, 400, 400),  # the fees taken: revenue; the prizes are not
        3: (0, 0, -300, 0, -400 + 300),  # the fee given back; the unused ticket expired
    }
    body = reports.report_json(report)
    assert body["totals"][0]["promotion"] == "19.00"
    assert body["totals"][1]["tournament_fees"] == "4.00" and body["totals"][1]["ggr"] == "4.00"
    csv_lines = reports.report_csv(report).split("\r\n")
    assert csv_lines[0].split(",")[-2:] == ["tournament_fees", "promotion"]
    assert csv_lines[3].split(",")[-4:] == ["0.00", "-1.00", "0.00", "-3.00"]


def test_a_network_tournaments_fee_counts_for_each_operator_as_its_share(monkeypatch):
    freeze_now(monkeypatch, DAY[0])
    network = Network.objects.create(operator=OperatorFactory(name="Network"), fee_share_bps=2000)
    net = network.operator
    a, b = OperatorFactory(), OperatorFactory()
    for operator in (a, a, b, b):
        who = PlayerFactory(operator=operator)
        fund(who, 10_000)
        _enter(who, owner=net)
    _fee(400, owner=net)  # each member's players put in half: 160 each, the network 80
    report = reports.daily_report(operator=None, start=START, end=END)
    fees = {row.operator: (row.tournament_fees, row.ggr) for row in report.totals}
    assert fees == {a.slug: (160, 160), b.slug: (160, 160), net.slug: (80, 80)}
    own = reports.daily_report(operator=a, start=START, end=END)
    assert [(row.operator, row.tournament_fees) for row in own.totals] == [(a.slug, 160)]
