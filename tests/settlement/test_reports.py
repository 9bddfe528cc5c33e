"""Back-office reports: one table per grain, every numeric column adds up to what it says.

`totals`: one row per UTC day x operator x currency. `players`: one row per day x operator x
currency x player, named by the operator's own `external_ref`. JSON carries both; CSV is one
table per download (`?format=csv` the totals, `&table=players` the player lines).
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.db.models import Sum

from gin_platform.tenancy.services import api_key_create
from settlement import reports, services
from settlement.models import Settlement
from tests.factories import SYSTEM, OperatorFactory, PlayerFactory, admin_login
from tests.games.factories import RoomFactory, TableFactory
from tests.helpers import bearer_client
from tests.settlement.helpers import play_out, seat_two
from wallet.models import Account, LedgerEntry, LedgerTransaction

pytestmark = pytest.mark.django_db
TOTALS_NUMBERS = ("games", "player_games", "turnover", "fees", "payouts", "bonus_points")
PLAYER_NUMBERS = ("games", "staked", "paid", "net")
GRAIN = ("day", "operator", "currency")


def settle(room, *, players=None, cashier=(None, None), stake_per_point=None) -> Settlement:
    match = seat_two(
        TableFactory(room=room), players=players, cashier=cashier, stake_per_point=stake_per_point
    )
    return services.game_settle(match_id=play_out(match).pk)


def period() -> str:
    """Since yesterday, one hour early, to an hour from now (UTC date-times)."""
    start = datetime.now(UTC) - timedelta(days=1, hours=1)
    end = datetime.now(UTC) + timedelta(hours=1)
    return f"from={start.isoformat()}&to={end.isoformat()}".replace("+", "%2B")


def csv_rows(response) -> list[dict[str, str]]:
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/csv")
    text = response.content.decode()
    assert text.endswith("\r\n")
    return list(csv.DictReader(io.StringIO(text)))


@pytest.fixture
def busy_operator(operator):
    """Two days, two currencies, three variants, a Money Play game with bonuses; another
    operator's game on the same day."""
    alice = PlayerFactory(operator=operator, external_ref="alice")
    bob = PlayerFactory(operator=operator, external_ref="bob")
    carol = PlayerFactory(operator=operator, external_ref="carol")
    eur_ftk = RoomFactory(operator=operator, ftk=True, stake=1234, fee_bps=250)
    eur_match = RoomFactory(operator=operator, variant="match", stake=777, fee_bps=333)
    eur_money = RoomFactory(operator=operator, money=True, fee_bps=500)
    settle(eur_ftk, players=[alice, bob])
    settle(eur_match, players=[bob, carol])
    settle(eur_money, players=[alice, carol], cashier=(5_000, 8_000), stake_per_point=5)
    yesterday = settle(eur_ftk, players=[carol, alice])
    Settlement.objects.filter(pk=yesterday.pk).update(
        settled_at=yesterday.settled_at - timedelta(days=1)
    )
    dave = PlayerFactory(operator=operator, external_ref="dave", wallet_currency="USD")
    erin = PlayerFactory(operator=operator, external_ref="erin", wallet_currency="USD")
    settle(
        RoomFactory(operator=operator, ftk=True, currency="USD", stake=999), players=[dave, erin]
    )
    other = OperatorFactory()
    settle(RoomFactory(operator=other, ftk=True, stake=4321))
    return operator


def test_each_grain_has_its_own_table_and_every_column_adds_up(busy_operator, operator_client):
    body = operator_client.get(f"/api/v1/reports/daily?{period()}").json()
    totals, players = body["totals"], body["players"]
    keys = [tuple(row[k] for k in GRAIN) for row in totals]
    assert len(keys) == len(set(keys)) == 3  # EUR today, EUR yesterday, USD today
    assert {row["operator"] for row in totals} == {busy_operator.slug}
    assert sum(row["games"] for row in totals) == 5

    sums: dict[tuple, dict[str, Decimal]] = defaultdict(lambda: defaultdict(Decimal))
    for line in players:
        for column in PLAYER_NUMBERS:
            sums[tuple(line[k] for k in GRAIN)][column] += Decimal(str(line[column]))
    assert set(sums) == set(keys)
    for row in totals:
        got = sums[tuple(row[k] for k in GRAIN)]
        assert got["games"] == row["player_games"] == 2 * row["games"]
        assert got["staked"] == Decimal(row["turnover"])
        assert got["paid"] == Decimal(row["payouts"])
        assert got["net"] == -Decimal(row["fees"])  # what the players lost, the house kept
        assert Decimal(row["payouts"]) == Decimal(row["turnover"]) - Decimal(row["fees"])
    money_day = next(r for r in totals if r["currency"] == "EUR" and r["games"] == 3)
    assert money_day["bonus_points"] > 0  # line and target bonuses of the Money Play game
    # Each player line is one player on one day: named by the operator's own reference.
    today_eur = [p for p in players if p["currency"] == "EUR" and p["day"] == money_day["day"]]
    assert sorted(p["external_ref"] for p in today_eur) == ["alice", "bob", "carol"]
    assert {p["games"] for p in today_eur} == {2}


def test_each_csv_sums_to_the_totals_the_json_states(busy_operator, operator_client):
    url = f"/api/v1/reports/daily?{period()}"
    body = operator_client.get(url).json()
    by_grain = {tuple(row[k] for k in GRAIN): row for row in body["totals"]}

    totals_csv = csv_rows(operator_client.get(url + "&format=csv"))
    assert list(totals_csv[0]) == [
        *GRAIN,
        *TOTALS_NUMBERS,
        "mode",
        "ggr",
        "ngr",
        "tournament_fees",
        "promotion",
    ]
    assert len(totals_csv) == len(by_grain)  # one line per day x operator x currency
    for line in totals_csv:
        row = by_grain[tuple(line[k] for k in GRAIN)]
        for column in TOTALS_NUMBERS:
            assert Decimal(line[column]) == Decimal(str(row[column])), column
    for column in TOTALS_NUMBERS:  # summing a column never double-counts
        for currency in ("EUR", "USD"):
            assert sum(
                Decimal(line[column]) for line in totals_csv if line["currency"] == currency
            ) == sum(
                Decimal(str(row[column])) for row in body["totals"] if row["currency"] == currency
            )

    players_csv = csv_rows(operator_client.get(url + "&format=csv&table=players"))
    assert list(players_csv[0]) == [*GRAIN, "player_id", "external_ref", *PLAYER_NUMBERS, "mode"]
    sums: dict[tuple, dict[str, Decimal]] = defaultdict(lambda: defaultdict(Decimal))
    for line in players_csv:
        for column in PLAYER_NUMBERS:
            sums[tuple(line[k] for k in GRAIN)][column] += Decimal(line[column])
    assert set(sums) == set(by_grain)
    for grain, got in sums.items():
        row = by_grain[grain]
        assert got["games"] == row["player_games"]
        assert got["staked"] == Decimal(row["turnover"])
        assert got["paid"] == Decimal(row["payouts"])
        assert got["net"] == -Decimal(row["fees"])
    assert players_csv == [
        {key: str(value) for key, value in line.items()} for line in body["players"]
    ]


def test_csv_downloads_are_named_by_table_and_period(settled_today, operator_client):
    day = settled_today.settled_at.date()
    response = operator_client.get(f"/api/v1/reports/daily?from={day}&format=csv")
    assert f'filename="report-totals-{day:%Y%m%d}-' in response["Content-Disposition"]
    response = operator_client.get(f"/api/v1/reports/daily?from={day}&format=csv&table=players")
    assert f'filename="report-players-{day:%Y%m%d}-' in response["Content-Disposition"]
    bad = operator_client.get(f"/api/v1/reports/daily?from={day}&format=csv&table=everything")
    assert bad.status_code == 400
    assert bad["Content-Type"].startswith("application/problem+json")
    assert bad.json()["errors"]["table"]


@pytest.fixture
def settled_today(operator):
    room = RoomFactory(operator=operator, ftk=True, stake=1234, fee_bps=250)
    return settle(room)


def test_report_totals_equal_the_ledger_for_the_same_period(operator, operator_client):
    for stake, variant in ((500, "ftk"), (777, "match"), (1001, "ftk")):
        room = RoomFactory(
            operator=operator,
            variant=variant,
            target=None if variant == "ftk" else 100,
            stake=stake,
            fee_bps=333,
        )
        settle(room)
    start = datetime.now(UTC) - timedelta(hours=1)
    end = datetime.now(UTC) + timedelta(hours=1)
    query = f"from={start.isoformat()}&to={end.isoformat()}".replace("+", "%2B")
    body = operator_client.get(f"/api/v1/reports/daily?{query}").json()
    (row,) = body["totals"]
    assert row["games"] == 3
    fees = (
        LedgerEntry.objects.filter(
            account__kind=Account.Kind.HOUSE_FEE,
            account__operator=operator,
            transaction__created_at__gte=start,
            transaction__created_at__lt=end,
        ).aggregate(total=Sum("amount"))["total"]
        or 0
    )
    escrow = (
        LedgerTransaction.objects.filter(
            operator=operator,
            kind=LedgerTransaction.Kind.SETTLEMENT,
            created_at__gte=start,
            created_at__lt=end,
        ).aggregate(total=Sum("amount"))["total"]
        or 0
    )
    assert row["fees"] == f"{fees / 100:.2f}"
    assert row["turnover"] == f"{escrow / 100:.2f}"
    assert row["payouts"] == f"{(escrow - fees) / 100:.2f}"
    # The same cut-off gives the same numbers every time.
    assert operator_client.get(f"/api/v1/reports/daily?{query}").json() == body


def test_an_operator_sees_only_its_own_players_and_staff_see_all(busy_operator, staff_client):
    other = OperatorFactory()
    outsider = PlayerFactory(operator=other, external_ref="outsider")
    settle(RoomFactory(operator=other, ftk=True), players=[outsider, PlayerFactory(operator=other)])
    own_key = api_key_create(operator=busy_operator, actor=SYSTEM).key
    body = bearer_client(own_key).get(f"/api/v1/reports/daily?{period()}").json()
    assert {line["operator"] for line in body["players"]} == {busy_operator.slug}
    assert "outsider" not in {line["external_ref"] for line in body["players"]}

    other_key = api_key_create(operator=other, actor=SYSTEM).key
    theirs = bearer_client(other_key).get(f"/api/v1/reports/daily?{period()}").json()
    assert {line["operator"] for line in theirs["totals"]} == {other.slug}
    assert "alice" not in {line["external_ref"] for line in theirs["players"]}

    everyone = staff_client.get(f"/api/v1/backoffice/reports/daily?{period()}").json()
    assert {busy_operator.slug, other.slug} <= {row["operator"] for row in everyone["totals"]}
    refs = {(line["operator"], line["external_ref"]) for line in everyone["players"]}
    assert {(busy_operator.slug, "alice"), (other.slug, "outsider")} <= refs
    one = staff_client.get(
        f"/api/v1/backoffice/reports/daily?{period()}&operator={other.slug}"
    ).json()
    assert {line["operator"] for line in one["players"]} == {other.slug}
    assert staff_client.get("/api/v1/backoffice/reports/daily?operator=nope").status_code == 404


def test_csv_is_rfc4180_and_formula_safe(operator, operator_client):
    operator.slug = "=cmd|evil"
    operator.save()
    sneaky = PlayerFactory(operator=operator, external_ref='=HYPERLINK("http://x","y")')
    settled = settle(
        RoomFactory(operator=operator, ftk=True), players=[sneaky, PlayerFactory(operator=operator)]
    )
    day = settled.settled_at.date().isoformat()
    totals = operator_client.get(f"/api/v1/reports/daily?from={day}&format=csv")
    assert b"\r\n" in totals.content
    (line,) = csv_rows(totals)
    assert line["operator"] == "'=cmd|evil"  # a formula would have run in a spreadsheet
    players = csv_rows(
        operator_client.get(f"/api/v1/reports/daily?from={day}&format=csv&table=players")
    )
    refs = {line["external_ref"] for line in players}
    assert "'" + sneaky.external_ref in refs
    # The loser's negative net stays a number (not quoted like a formula).
    assert any(line["net"].startswith("-") and Decimal(line["net"]) < 0 for line in players)


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/reports/daily?format=xml",
        "/api/v1/reports/daily?format=players.csv",
        "/api/v1/players?format=csv",  # every endpoint: JSON only here
    ],
)
def test_an_unknown_format_is_406_not_404(operator_client, url):
    response = operator_client.get(url)
    assert response.status_code == 406
    assert response["Content-Type"].startswith("application/problem+json")
    body = response.json()
    assert body["type"] == "/problems/not-acceptable"
    assert body["status"] == 406


def test_an_accept_header_asking_only_for_an_unknown_type_is_406(operator_client):
    response = operator_client.get("/api/v1/reports/daily", HTTP_ACCEPT="application/xml")
    assert response.status_code == 406
    assert response.json()["type"] == "/problems/not-acceptable"
    csv_ok = operator_client.get("/api/v1/reports/daily", HTTP_ACCEPT="text/csv")
    assert csv_ok.status_code == 200 and csv_ok["Content-Type"].startswith("text/csv")


def test_report_range_errors_are_problems(operator_client):
    response = operator_client.get("/api/v1/reports/daily?from=2026-02-01&to=2026-01-01")
    assert response.status_code == 400
    assert response.json()["type"] == "/problems/report-range-invalid"
    assert operator_client.get("/api/v1/reports/daily?from=yesterday").status_code == 400
    as_csv = operator_client.get("/api/v1/reports/daily?from=yesterday&format=csv")
    assert as_csv.status_code == 400
    assert as_csv["Content-Type"].startswith("application/problem+json")


def test_safe_cell():
    assert reports.safe_cell("=1+1") == "'=1+1"
    assert reports.safe_cell("@SUM(A1)") == "'@SUM(A1)"
    assert reports.safe_cell("-12.50") == "-12.50"
    assert reports.safe_cell("-1+2") == "'-1+2"
    assert reports.safe_cell("plain") == "plain"


def test_admin_report_page_shows_both_tables(busy_operator, client, django_user_model):
    user = django_user_model.objects.create_superuser("boss", password="pw-boss-12345")
    admin_login(client, user)
    start = datetime.now(UTC).date() - timedelta(days=1)
    end = start + timedelta(days=2)
    page = client.get(f"/admin/settlement/dailyreport/?from={start}&to={end}")
    assert page.status_code == 200
    text = page.content.decode()
    assert 'id="report-totals"' in text and 'id="report-players"' in text
    for ref in ("alice", "bob", "carol", "dave", "erin"):
        assert f"<td>{ref}</td>" in text
    body = staff_report(client, f"from={start}&to={end}")
    for row in body["totals"]:
        assert f"<td>{row['fees']}</td>" in text
        assert f"<td>{row['player_games']}</td>" in text
    for line in body["players"]:
        assert f"<td>{line['net']}</td>" in text
    bad = client.get("/admin/settlement/dailyreport/?from=nonsense")
    assert bad.status_code == 200 and "errornote" in bad.content.decode()


def staff_report(client, query: str) -> dict:
    """The same report as the back-office API gives it (the admin session is staff)."""
    response = client.get(f"/api/v1/backoffice/reports/daily?{query}")
    assert response.status_code == 200, response.content
    return response.json()


def test_the_schema_documents_406_as_a_problem_and_the_csv_table(client):
    schema = client.get("/api/v1/schema/?format=json").json()
    for path in ("/api/v1/reports/daily", "/api/v1/backoffice/reports/daily"):
        operation = schema["paths"][path]["get"]
        assert "application/problem+json" in operation["responses"]["406"]["content"]
        parameters = {p["name"]: p for p in operation["parameters"]}
        assert set(parameters["table"]["schema"]["enum"]) == {"totals", "players"}
    report = schema["components"]["schemas"]["ReportOutput"]["properties"]
    assert {"totals", "players"} <= set(report)
