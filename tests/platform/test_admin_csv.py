"""The changelists' date filters and "Export CSV" (gin_platform.admin.changelist): the export holds
exactly the rows the filtered changelist selects (every page), RFC 4180, amounts as decimal
strings, no cell a spreadsheet formula, streamed, and each export is audited."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta

import pytest
from django.urls import reverse

from games.models import Match
from gin_platform.admin.changelist import EXPORT_ACTION
from gin_platform.models import AuditEvent
from settlement import services as settlement_services
from settlement.models import Settlement
from tests.factories import SYSTEM, PlayerFactory
from tests.games.factories import RoomFactory, TableFactory
from tests.helpers import freeze_now
from tests.settlement.backoffice import login_staff
from tests.settlement.helpers import play_out, seat_two
from tests.wallet.factories import fund
from wallet import services as wallet_services
from wallet.models import LedgerEntry, LedgerTransaction

pytestmark = pytest.mark.django_db
DAYS = [datetime(2026, 3, day, 12, tzinfo=UTC) for day in (1, 2, 3)]


@pytest.fixture
def staff(client, django_user_model):
    user = login_staff(client, django_user_model)
    return client, user


def export(client, changelist: str, query: str) -> tuple[list[dict[str, str]], object]:
    """The changelist page's rows (its queryset: every page) and the CSV export's rows."""
    page = client.get(f"{changelist}?{query}")
    assert page.status_code == 200, page.content[:500]
    assert "Export CSV" in page.content.decode()
    response = client.get(f"{changelist}export.csv?{query}")
    assert response.status_code == 200
    assert response.streaming
    assert response["Content-Type"].startswith("text/csv")
    assert response["Content-Disposition"].startswith("attachment;")
    text = b"".join(response.streaming_content).decode()
    assert text.endswith("\r\n") and "\n" not in text.replace("\r\n", "")
    return list(csv.DictReader(io.StringIO(text))), page.context["cl"]


@pytest.fixture
def three_days_of_deposits(monkeypatch, operator):
    """Deposits on 1, 2 and 3 March (two on the 2nd, one in JPY); the clock then let go."""
    clock = freeze_now(monkeypatch, DAYS[0])
    eur = PlayerFactory(operator=operator)
    yen = PlayerFactory(operator=operator, wallet_currency="JPY")
    made = []
    for day in DAYS:
        clock.set(day)
        made.append(fund(eur, 1_234))
    clock.set(DAYS[1] + timedelta(hours=3))
    made.append(fund(yen, 5_000, "JPY"))
    made.append(
        wallet_services.deposit(
            player=eur, amount=99, currency="EUR", reference="=HYPERLINK(1)", actor=SYSTEM
        )
    )
    monkeypatch.undo()
    return made


def test_ledger_transactions_csv_is_the_filtered_changelist(staff, three_days_of_deposits):
    client, user = staff
    changelist = reverse("admin:wallet_ledgertransaction_changelist")
    rows, cl = export(client, changelist, "created_at_from=2026-03-02&created_at_to=2026-03-02")

    expected = list(cl.queryset.values_list("pk", flat=True))
    assert [int(row["id"]) for row in rows] == expected
    assert {t.pk for t in LedgerTransaction.objects.filter(pk__in=expected)} == {
        t.pk for t in three_days_of_deposits if t.created_at.date() == DAYS[1].date()
    }
    assert len(expected) == 3
    by_currency = {row["currency"]: row for row in rows if row["reference"] != "'=HYPERLINK(1)"}
    assert by_currency["EUR"]["amount"] == "12.34"
    assert by_currency["JPY"]["amount"] == "5000"
    # A cell that would start a formula is neutralised (the same rule as the reports' CSV).
    assert any(row["reference"] == "'=HYPERLINK(1)" for row in rows)

    # The date filter keeps the other filters; an export without filters has every row.
    rows, cl = export(client, changelist, "created_at_from=2026-03-02&currency=JPY")
    assert [row["currency"] for row in rows] == ["JPY"]
    all_rows, _ = export(client, changelist, "")
    assert len(all_rows) == LedgerTransaction.objects.count()

    exports = AuditEvent.objects.filter(action=EXPORT_ACTION).order_by("pk")
    assert exports.count() == 3
    first = exports.first()
    assert (first.actor_type, first.actor_id) == ("staff", str(user.pk))
    assert first.object_type == "wallet.ledgertransaction"
    assert first.data["filters"] == {
        "created_at_from": ["2026-03-02"],
        "created_at_to": ["2026-03-02"],
    }
    assert first.data["username"] == user.username


def test_ledger_entries_csv_is_the_filtered_changelist(staff, three_days_of_deposits):
    client, _ = staff
    changelist = reverse("admin:wallet_ledgerentry_changelist")
    rows, cl = export(client, changelist, "created_at_from=2026-03-03&account__kind=player")
    expected = list(cl.queryset.values_list("pk", flat=True))
    assert [int(row["id"]) for row in rows] == expected and len(expected) == 1
    entry = LedgerEntry.objects.get(pk=expected[0])
    assert rows[0]["amount"] == "12.34" and rows[0]["balance_after"] == "37.02"
    assert entry.created_at.date() == DAYS[2].date()


def test_matches_and_settlements_csv_follow_their_date_filters(staff, operator):
    client, _ = staff
    room = RoomFactory(operator=operator, ftk=True, stake=1234, fee_bps=250)
    settlements = []
    for _ in range(3):
        match = play_out(seat_two(TableFactory(room=room)))
        settlements.append(settlement_services.game_settle(match_id=match.pk))
    for settlement, day in zip(settlements, DAYS, strict=True):
        Match.objects.filter(pk=settlement.match_id).update(finished_at=day)
        Settlement.objects.filter(pk=settlement.pk).update(settled_at=day + timedelta(hours=1))

    matches = reverse("admin:games_match_changelist")
    rows, cl = export(client, matches, "finished_at_from=2026-03-02&finished_at_to=2026-03-03")
    assert [int(row["id"]) for row in rows] == list(cl.queryset.values_list("pk", flat=True))
    assert {int(row["id"]) for row in rows} == {s.match_id for s in settlements[1:]}
    assert {row["stake"] for row in rows} == {"12.34"}

    settled = reverse("admin:settlement_settlement_changelist")
    rows, cl = export(client, settled, "settled_at_to=2026-03-01")
    assert [int(row["match_id"]) for row in rows] == list(
        cl.queryset.values_list("match_id", flat=True)
    )
    assert [int(row["match_id"]) for row in rows] == [settlements[0].match_id]
    fee = settlements[0].fee
    assert rows[0]["fee"] == f"{fee // 100}.{fee % 100:02d}"
    assert rows[0]["escrow_total"] == "24.68"


def test_a_malformed_date_is_refused_not_exported(staff):
    client, _ = staff
    changelist = reverse("admin:wallet_ledgertransaction_changelist")
    response = client.get(f"{changelist}export.csv?created_at_from=yesterday")
    assert response.status_code == 400
    assert not AuditEvent.objects.filter(action=EXPORT_ACTION).exists()
