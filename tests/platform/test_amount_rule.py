"""One rule for every money field of the API (docs/wallet.md "Amounts in the API"): a JSON
string of ASCII digits with an optional '.' and at most the currency's decimals. Digits of
other scripts (\\d would match them, and Decimal() reads them) and JSON numbers - integers
included - are ``amount-invalid`` on every endpoint that takes money, and nothing changes."""

from __future__ import annotations

import pytest

from games.models import Room, Seat
from gin_platform.money import AmountError, amount_from_api, is_decimal_string, to_minor
from tests.factories import PlayerFactory
from tests.games.factories import RoomFactory, TableFactory
from tests.helpers import session_client
from tests.wallet.factories import fund
from wallet.models import CashierCaps, ExchangeRate, LedgerTransaction, PlayerLimit

FULL_WIDTH = "\uff11\uff12.\uff15\uff10"  # "12.50" in full-width digits
ARABIC_INDIC = "\u0661\u0662.\u0665\u0660"  # "12.50" in Arabic-Indic digits
BAD_AMOUNTS = [
    pytest.param(FULL_WIDTH, id="full-width"),
    pytest.param(ARABIC_INDIC, id="arabic-indic"),
    pytest.param(12, id="json-integer"),
]


# --- The rule itself ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "value",
    [
        FULL_WIDTH,
        ARABIC_INDIC,
        "\u0661\u0662",  # Arabic-Indic "12"
        "12.\u06650",  # one Arabic-Indic digit among ASCII ones
        "\U0001d7cf\U0001d7d0.50",  # mathematical bold digits
        " 12.50",
        "12.50 ",
        "12.50\n",
        "+12.50",
        "1e3",
        "1_000",
        "12,50",
        ".5",
        "5.",
        "NaN",
        "",
        12,
        12.5,
        True,
        None,
        ["12.50"],
    ],
)
def test_anything_but_an_ascii_decimal_string_is_refused(value):
    assert not is_decimal_string(value)
    with pytest.raises(AmountError):
        amount_from_api(value, "EUR")


@pytest.mark.parametrize(("text", "minor"), [("12.50", 1250), ("12", 1200), ("0.01", 1)])
def test_ascii_decimal_strings_are_the_rule(text, minor):
    assert amount_from_api(text, "EUR") == minor == to_minor(text, "EUR")


def test_internal_code_still_passes_integers_and_strings_of_its_own():
    assert to_minor(1250, "EUR") == 125_000  # minor units are never parsed from the API
    with pytest.raises(AmountError):
        to_minor(FULL_WIDTH, "EUR")


# --- Every endpoint that takes money --------------------------------------------------------
def assert_amount_invalid(response, field: str) -> None:
    assert response.status_code == 422, response.content
    body = response.json()
    assert body["type"] == "/problems/amount-invalid", body
    assert body["field"] == field


@pytest.mark.parametrize("bad", BAD_AMOUNTS)
@pytest.mark.parametrize("kind", ["deposits", "withdrawals"])
def test_cashier_amounts(operator_client, player, idem, bad, kind):
    fund(player, 10_000)
    before = LedgerTransaction.objects.count()
    response = operator_client.post(
        f"/api/v1/players/{player.pk}/{kind}",
        {"amount": bad, "currency": "EUR"},
        format="json",
        **idem(),
    )
    assert_amount_invalid(response, "amount")
    assert LedgerTransaction.objects.count() == before


@pytest.mark.parametrize("bad", BAD_AMOUNTS)
def test_player_limits(operator_client, player, idem, bad):
    response = operator_client.post(
        f"/api/v1/players/{player.pk}/limits",
        {"kind": "deposit", "period": "day", "amount": bad},
        format="json",
        **idem(),
    )
    assert_amount_invalid(response, "amount")
    assert not PlayerLimit.objects.exists()


@pytest.mark.parametrize("bad", BAD_AMOUNTS)
@pytest.mark.parametrize("field", sorted(CashierCaps.FIELDS))
def test_cashier_caps(staff_client, operator, bad, field):
    response = staff_client.put(
        f"/api/v1/staff/operators/{operator.pk}/cashier-caps/EUR", {field: bad}, format="json"
    )
    assert_amount_invalid(response, field)
    assert not CashierCaps.objects.exists()


@pytest.mark.parametrize("bad", BAD_AMOUNTS)
def test_exchange_rates(staff_client, bad):
    body = {
        "base": "EUR",
        "quote": "USD",
        "rate": bad,
        "as_of": "2026-01-02T10:00:00Z",
        "source": "ecb",
    }
    response = staff_client.post("/api/v1/staff/exchange-rates", body, format="json")
    assert response.status_code == 422, response.content
    assert response.json()["type"] == "/problems/exchange-rate-invalid"
    assert not ExchangeRate.objects.exists()


ROOMS = {
    "stake": {"variant": "match", "target": 100, "stake": None},
    "cashier_min": {
        "variant": "money",
        "target": 100,
        "stake_per_point_choices": ["0.01"],
        "cashier_min": None,
        "cashier_max": "20.00",
    },
    "cashier_max": {
        "variant": "money",
        "target": 100,
        "stake_per_point_choices": ["0.01"],
        "cashier_min": "10.00",
        "cashier_max": None,
    },
    "stake_per_point_choices": {
        "variant": "money",
        "target": 100,
        "stake_per_point_choices": None,
        "cashier_min": "10.00",
        "cashier_max": "20.00",
    },
}


@pytest.mark.parametrize("bad", BAD_AMOUNTS)
@pytest.mark.parametrize("field", sorted(ROOMS))
def test_room_options(operator_client, idem, bad, field):
    body = {"name": "R"} | ROOMS[field]
    body[field] = [bad] if field == "stake_per_point_choices" else bad
    response = operator_client.post("/api/v1/rooms", body, format="json", **idem())
    assert_amount_invalid(response, field)
    assert not Room.objects.exists()


@pytest.mark.parametrize("bad", BAD_AMOUNTS)
@pytest.mark.parametrize("field", ["cashier_amount", "stake_per_point"])
def test_sitting_at_a_money_play_table(operator, bad, field):

    table = TableFactory(room=RoomFactory(operator=operator, money=True))
    player = PlayerFactory(operator=operator)
    fund(player, 100_000)
    client = session_client(player)
    body = {"cashier_amount": "20.00", "stake_per_point": "0.05"} | {field: bad}
    response = client.post(f"/api/v1/tables/{table.pk}/sit", body, format="json")
    assert_amount_invalid(response, field)
    assert not Seat.objects.exists()
