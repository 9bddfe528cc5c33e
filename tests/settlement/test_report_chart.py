"""The daily report page's chart (settlement.charts) and the report's GGR/NGR: one point
per UTC day of the period with the table's values; GGR is the fees the house-fee accounts
received, NGR that minus fees handed back by reversals and adjustments credited to players,
both as the ledger posted them that day; a past period reads the same numbers later."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import defaultdict
from datetime import UTC, datetime, timedelta

import pytest
from django.db.models import Sum
from django.urls import reverse

from gin_platform.money import to_decimal_string
from settlement import reports
from settlement import services as settlement_services
from settlement.models import Settlement
from tests.factories import SYSTEM, PlayerFactory
from tests.games.factories import RoomFactory, TableFactory
from tests.helpers import freeze_now
from tests.settlement.backoffice import login_staff
from tests.settlement.helpers import play_out, seat_two
from wallet import services as wallet_services
from wallet.models import LedgerEntry, LedgerTransaction

pytestmark = pytest.mark.django_db
SVG = "{http://www.w3.org/2000/svg}"
DAY = [datetime(2026, 3, day, tzinfo=UTC) for day in (1, 2, 3, 4, 5)]
START, END = DAY[0], DAY[3]  # the period: 1, 2 and 3 March


def settle_at(moment, clock, room, players) -> Settlement:
    clock.set(moment)
    match = play_out(seat_two(TableFactory(room=room), players=players))
    settlement = settlement_services.game_settle(match_id=match.pk)
    Settlement.objects.filter(pk=settlement.pk).update(settled_at=moment)
    settlement.refresh_from_db()
    return settlement


@pytest.fixture
def three_days(monkeypatch, operator):
    """1 March: two games (three players); 2 March: no game, a 5.00 adjustment credited;
    3 March: one game, and the reversal of one of 1 March's settlements."""
    clock = freeze_now(monkeypatch, DAY[0] + timedelta(hours=10))
    alice, bob, carol = (PlayerFactory(operator=operator) for _ in range(3))
    room = RoomFactory(operator=operator, ftk=True, stake=1234, fee_bps=250)
    first = settle_at(DAY[0] + timedelta(hours=10), clock, room, [alice, bob])
    settle_at(DAY[0] + timedelta(hours=11), clock, room, [bob, carol])
    clock.set(DAY[1] + timedelta(hours=9))
    wallet_services.wallet_adjust(
        player=carol,
        direction="credit",
        amount=500,
        currency="EUR",
        reference=f"adjustment:{operator.pk}:goodwill-1",
        reason="goodwill",
        actor=SYSTEM,
    )
    settle_at(DAY[2] + timedelta(hours=8), clock, room, [alice, carol])
    clock.set(DAY[2] + timedelta(hours=12))
    wallet_services.transaction_reverse(
        ledger_transaction=first.ledger_transaction,
        reference="reversal:test-1",
        reason="wrong result",
        actor=SYSTEM,
    )
    return {"clock": clock, "room": room, "players": (alice, bob, carol), "first": first}


def chart_points(html: str, operator: str, currency: str) -> dict[str, list[tuple[str, str]]]:
    """Each panel's points (day, value) of the operator's chart in the page."""
    charts = re.findall(r'<svg [^>]*class="report-chart".*?</svg>', html, re.S)
    for text in charts:
        svg = ET.fromstring(text)
        if (svg.get("data-operator"), svg.get("data-currency")) == (operator, currency):
            return {
                panel.get("data-figure"): [
                    (point.get("data-day"), point.get("data-value"))
                    for point in panel.iter(f"{SVG}circle")
                ]
                for panel in svg.iter(f"{SVG}g")
            }
    raise AssertionError(f"no chart of {operator} {currency} in {len(charts)} charts")


def ledger_by_day(operator) -> dict[str, dict[str, int]]:
    """Straight from the ledger, per UTC day: fees the house received from settlements,
    the house-fee account's whole movement, and adjustments credited to players."""
    days: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    entries = LedgerEntry.objects.filter(
        account__operator=operator,
        transaction__created_at__gte=START,
        transaction__created_at__lt=END,
    ).select_related("transaction", "account")
    for entry in entries:
        day = entry.transaction.created_at.astimezone(UTC).date().isoformat()
        if entry.account.kind == "house_fee":
            days[day]["house_fee"] += entry.amount
            if entry.transaction.kind == LedgerTransaction.Kind.SETTLEMENT:
                days[day]["settlement_fees"] += entry.amount
        if entry.account.kind == "player" and entry.transaction.kind == "adjustment":
            days[day]["adjustments"] += entry.amount
    return days


def test_the_chart_has_one_point_per_day_with_the_reports_values(
    client, django_user_model, operator, three_days
):
    login_staff(client, django_user_model)
    url = reverse("admin:settlement_dailyreport_changelist")
    response = client.get(f"{url}?from=2026-03-01&to=2026-03-04")
    assert response.status_code == 200
    html = response.content.decode()
    points = chart_points(html, operator.slug, "EUR")

    days = ["2026-03-01", "2026-03-02", "2026-03-03"]
    assert set(points) == {"turnover", "fees", "ngr", "games", "active_players"}
    for figure, shown in points.items():
        assert [day for day, _ in shown] == days, figure  # one point per day, in order

    settlements = Settlement.objects.filter(operator=operator).order_by("settled_at")
    by_day: dict[str, list[Settlement]] = defaultdict(list)
    for settlement in settlements:
        by_day[settlement.settled_at.date().isoformat()].append(settlement)
    eur = lambda minor: to_decimal_string(minor, "EUR")  # noqa: E731
    assert [value for _, value in points["turnover"]] == [
        eur(sum(s.escrow_total for s in by_day[day])) for day in days
    ]
    fees = [sum(s.fee for s in by_day[day]) for day in days]
    assert [value for _, value in points["fees"]] == [eur(fee) for fee in fees]
    reversed_fee = three_days["first"].fee
    assert [value for _, value in points["ngr"]] == [
        eur(fees[0]),
        eur(-500),
        eur(fees[2] - reversed_fee),
    ]
    assert [value for _, value in points["games"]] == ["2", "0", "1"]
    assert [value for _, value in points["active_players"]] == ["3", "0", "2"]

    # The table under the chart says the same, GGR and NGR as its last columns.
    assert "<th>GGR</th><th>NGR</th>" in html
    assert f"<td>{eur(fees[2])}</td><td>{eur(fees[2] - reversed_fee)}</td>" in html


def test_ggr_and_ngr_add_up_against_the_ledger(operator, three_days):
    report = reports.daily_report(operator=operator, start=START, end=END)
    ledger = ledger_by_day(operator)
    rows = {row.day.isoformat(): row for row in report.totals if row.currency == "EUR"}
    assert set(rows) == {"2026-03-01", "2026-03-02", "2026-03-03"}
    for day, row in rows.items():
        assert row.ggr == row.fees == ledger[day]["settlement_fees"], day
        assert row.ngr == ledger[day]["house_fee"] - ledger[day]["adjustments"], day
    assert rows["2026-03-02"].games == 0 and rows["2026-03-02"].ngr == -500
    # The API and the CSV carry them, after the earlier columns (the tournaments' two after).
    body = reports.report_json(report)
    assert [list(line)[-4:-2] for line in body["totals"]] == [["ggr", "ngr"]] * 3
    header = reports.report_csv(report).split("\r\n")[0]
    assert header.split(",")[-4:] == ["ggr", "ngr", "tournament_fees", "promotion"]
    totals = Sum("amount")
    fees_received = LedgerEntry.objects.filter(
        account__operator=operator, account__kind="house_fee"
    ).aggregate(total=totals)["total"]
    assert sum(row.ngr for row in rows.values()) + 500 == fees_received


def test_a_past_period_reads_the_same_later(operator, three_days):
    before = reports.report_json(reports.daily_report(operator=operator, start=START, end=END))
    clock, room = three_days["clock"], three_days["room"]
    alice, bob, _ = three_days["players"]
    # Later: another game, the reversal of a settlement of the period, another adjustment.
    second = Settlement.objects.filter(operator=operator).order_by("settled_at")[1]
    later = settle_at(DAY[4] + timedelta(hours=1), clock, room, [alice, bob])
    clock.set(DAY[4] + timedelta(hours=2))
    wallet_services.transaction_reverse(
        ledger_transaction=second.ledger_transaction,
        reference="reversal:test-2",
        reason="late correction",
        actor=SYSTEM,
    )
    wallet_services.wallet_adjust(
        player=bob,
        direction="credit",
        amount=700,
        currency="EUR",
        reference=f"adjustment:{operator.pk}:goodwill-2",
        reason="goodwill",
        actor=SYSTEM,
    )
    after = reports.report_json(reports.daily_report(operator=operator, start=START, end=END))
    assert after == before
    # The later corrections count on their own day.
    (row,) = reports.daily_report(
        operator=operator, start=DAY[4], end=DAY[4] + timedelta(days=1)
    ).totals
    assert row.ggr == later.fee
    assert row.ngr == later.fee - second.fee - 700
