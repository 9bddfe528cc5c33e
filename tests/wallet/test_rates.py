"""Exchange rates (staff API, load_rates), conversion arithmetic, display (R11)."""

import json
from datetime import UTC, datetime, timedelta
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_EVEN, Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from gin_platform.models import AuditEvent
from tests.factories import PlayerFactory
from tests.wallet.factories import ExchangeRateFactory
from wallet import fx
from wallet.models import ExchangeRate
from wallet.problems import UnknownCurrencyProblem
from wallet.selectors import rates as rate_selectors

pytestmark = pytest.mark.django_db
RATES = "/api/v1/staff/exchange-rates"


# --- Arithmetic (pure) ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("amount", "base", "quote", "rate", "rounding", "expected"),
    [
        (999, "EUR", "USD", "1.0725", ROUND_CEILING, 1072),  # 1071.4275 up
        (999, "EUR", "USD", "1.0725", ROUND_FLOOR, 1071),
        (1000, "EUR", "USD", "1.0725", ROUND_FLOOR, 1072),  # 1072.5 down
        (1000, "EUR", "USD", "1.0725", ROUND_HALF_EVEN, 1072),
        (1000, "EUR", "JPY", "161.37", ROUND_FLOOR, 1613),  # 10.00 EUR -> 1613.7 JPY
        (1613, "JPY", "EUR", "0.0061969", ROUND_CEILING, 1000),  # 999.56 cents up
        (1000, "EUR", "KWD", "0.331", ROUND_FLOOR, 3310),  # 3 decimals
        (1, "EUR", "USD", "0.0001", ROUND_FLOOR, 0),
        (1, "EUR", "USD", "0.0001", ROUND_CEILING, 1),
    ],
)
def test_convert_minor_is_exact_then_rounded_as_told(amount, base, quote, rate, rounding, expected):
    assert (
        fx.convert_minor(amount, base=base, quote=quote, rate=Decimal(rate), rounding=rounding)
        == expected
    )


def test_convert_minor_refuses_floats_and_non_positive_rates():
    with pytest.raises(TypeError):
        fx.convert_minor(1.5, base="EUR", quote="USD", rate=Decimal(1), rounding=ROUND_FLOOR)
    with pytest.raises(ValueError, match="positive"):
        fx.convert_minor(1, base="EUR", quote="USD", rate=Decimal(0), rounding=ROUND_FLOOR)


def test_huge_amounts_stay_exact():
    amount = 10**15 - 1
    got = fx.convert_minor(
        amount, base="EUR", quote="USD", rate=Decimal("1.000000000001"), rounding=ROUND_FLOOR
    )
    assert got == amount + (amount // 10**12)


def test_reciprocal_and_rate_string():
    assert fx.reciprocal(Decimal("0.5")) == Decimal(2)
    assert str(fx.reciprocal(Decimal(3)))[:10] == "0.33333333"
    assert fx.rate_string(Decimal("1.072000000000")) == "1.072"
    assert fx.rate_string(Decimal("150.000000000000")) == "150"


# --- Latest rate ------------------------------------------------------------------------
def test_the_latest_rate_is_the_newest_effective_one():
    now = timezone.now()
    ExchangeRateFactory(rate="1.05", as_of=now - timedelta(days=2))
    newest = ExchangeRateFactory(rate="1.07", as_of=now - timedelta(hours=1))
    ExchangeRateFactory(rate="1.99", as_of=now + timedelta(hours=1))  # not yet in effect
    quote = rate_selectors.latest_rate(base="EUR", quote="USD")
    assert quote.rate == Decimal("1.07") and quote.rate_id == newest.pk and not quote.inverted
    inverse = rate_selectors.latest_rate(base="USD", quote="EUR")
    assert inverse.inverted and inverse.rate == fx.reciprocal(Decimal("1.07"))
    assert rate_selectors.latest_rate(base="EUR", quote="GBP") is None


# --- Display currency (R11) ---------------------------------------------------------------
def test_display_amount_renders_in_the_players_display_currency(operator, eur_usd):
    player = PlayerFactory(operator=operator, display_currency="USD")
    shown = rate_selectors.display_amount(amount=1250, currency="EUR", player=player)
    assert shown["amount"] == "12.50" and shown["currency"] == "EUR"
    assert shown["display"]["amount"] == "13.40"
    assert shown["display"]["currency"] == "USD"
    assert shown["display"]["rate"] == "1.072"
    assert shown["display"]["as_of"] == eur_usd.as_of.isoformat()


def test_display_amount_same_currency_and_missing_rate(operator):
    player = PlayerFactory(operator=operator, display_currency="EUR")
    same = rate_selectors.display_amount(amount=5, currency="eur", player=player)
    assert same == {
        "amount": "0.05",
        "currency": "EUR",
        "display": {"amount": "0.05", "currency": "EUR", "rate": "1", "as_of": None},
    }
    gbp = PlayerFactory(operator=operator, display_currency="GBP")
    assert rate_selectors.display_amount(amount=5, currency="EUR", player=gbp)["display"] is None


def test_display_amount_refuses_an_unknown_currency(player):

    with pytest.raises(UnknownCurrencyProblem):
        rate_selectors.display_amount(amount=1, currency="ZZZ", player=player)


def test_display_rounds_half_even():
    ExchangeRateFactory(base="EUR", quote="USD", rate="1.5")
    player = PlayerFactory(display_currency="USD")
    assert (
        rate_selectors.display_amount(amount=1, currency="EUR", player=player)["display"]["amount"]
        == "0.02"
    )  # 1.5 -> 2
    assert (
        rate_selectors.display_amount(amount=3, currency="EUR", player=player)["display"]["amount"]
        == "0.04"
    )  # 4.5 -> 4


# --- Staff API ----------------------------------------------------------------------------
def _rate(**overrides):
    body = {
        "base": "EUR",
        "quote": "USD",
        "rate": "1.0720",
        "as_of": "2026-01-02T10:00:00Z",
        "source": "ecb",
    }
    return body | overrides


def test_staff_record_and_list_rates(staff_client):
    created = staff_client.post(RATES, _rate(), format="json")
    assert created.status_code == 201, created.content
    assert created.json()["rate"] == "1.072"
    again = staff_client.post(RATES, _rate(), format="json")
    assert again.status_code == 200 and again.json()["id"] == created.json()["id"]
    staff_client.post(RATES, _rate(quote="GBP", rate="0.86"), format="json")
    listing = staff_client.get(RATES + "?quote=usd").json()
    assert [r["quote"] for r in listing["results"]] == ["USD"]
    assert AuditEvent.objects.filter(action="exchange_rate.recorded").count() == 2


@pytest.mark.parametrize(
    ("overrides", "status", "slug"),
    [
        ({"rate": "1.1"}, 409, "exchange-rate-conflict"),
        ({"rate": 1.07}, 422, "exchange-rate-invalid"),
        ({"rate": "0"}, 422, "exchange-rate-invalid"),
        ({"rate": "-1"}, 422, "exchange-rate-invalid"),
        ({"rate": "abc"}, 422, "exchange-rate-invalid"),
        ({"rate": "NaN"}, 422, "exchange-rate-invalid"),
        ({"rate": "1.0000000000001"}, 422, "exchange-rate-invalid"),
        ({"quote": "EUR"}, 422, "exchange-rate-invalid"),
        ({"as_of": "2999-01-01T00:00:00Z"}, 422, "exchange-rate-invalid"),
        ({"quote": "ZZZ"}, 422, "unknown-currency"),
        ({"quote": "XGC"}, 422, "practice-chips-not-convertible"),
        ({"as_of": "yesterday"}, 400, "validation-error"),
    ],
)
def test_staff_rate_bad_input(staff_client, overrides, status, slug):
    staff_client.post(RATES, _rate(), format="json")
    response = staff_client.post(RATES, _rate(**overrides), format="json")
    assert response.status_code == status, response.content
    assert response.json()["type"] == f"/problems/{slug}"
    assert ExchangeRate.objects.count() == 1


def test_only_staff_may_touch_rates(operator_client, player_client):
    assert operator_client.post(RATES, _rate(), format="json").status_code == 403
    assert player_client.get(RATES).status_code == 403


# --- manage.py load_rates -------------------------------------------------------------------
def test_load_rates_from_json_and_csv(tmp_path):
    json_file = tmp_path / "rates.json"
    json_file.write_text(
        json.dumps(
            {
                "rates": [
                    {"base": "EUR", "quote": "USD", "rate": "1.0720", "as_of": "2026-01-02T10:00Z"},
                    {"base": "eur", "quote": "jpy", "rate": "161.37", "as_of": "2026-01-02T10:00Z"},
                ]
            }
        )
    )
    out = StringIO()
    call_command("load_rates", str(json_file), stdout=out)
    assert "2 rate(s) recorded" in out.getvalue()
    assert ExchangeRate.objects.get(quote="JPY").source == "file:rates.json"
    csv_file = tmp_path / "rates.csv"
    csv_file.write_text(
        "base,quote,rate,as_of,source\n"
        "EUR,GBP,0.8600,2026-01-02T10:00:00+00:00,boe\n"
        "EUR,USD,1.0720,2026-01-02T10:00:00+00:00,file:rates.json\n"
    )
    out = StringIO()
    call_command("load_rates", str(csv_file), stdout=out)
    assert "1 rate(s) recorded, 1 already known" in out.getvalue()
    gbp = ExchangeRate.objects.get(quote="GBP")
    assert gbp.rate == Decimal("0.86") and gbp.source == "boe"
    assert gbp.as_of == datetime(2026, 1, 2, 10, tzinfo=UTC)


def test_json_numbers_are_read_as_exact_decimals(tmp_path):
    rates = tmp_path / "rates.json"
    rates.write_text('[{"base":"EUR","quote":"USD","rate":1.1,"as_of":"2026-01-02T10:00Z"}]')
    call_command("load_rates", str(rates), stdout=StringIO())
    assert ExchangeRate.objects.get().rate == Decimal("1.1")


@pytest.mark.parametrize(
    "content",
    [
        '[{"base":"EUR","quote":"USD","rate":"1.07","as_of":"2026-01-02T10:00Z"},'
        '{"base":"EUR","quote":"ZZZ","rate":"1","as_of":"2026-01-02T10:00Z"}]',
        '[{"base":"EUR","quote":"USD","rate":"1.07","as_of":"2026-01-02T10:00"}]',
        '[{"base":"EUR","quote":"USD","rate":"1.07"}]',
        '["EUR,USD"]',
        '{"not": "a list"}',
        "{broken",
    ],
)
def test_a_bad_rates_file_loads_nothing(tmp_path, content):
    rates = tmp_path / "rates.json"
    rates.write_text(content)
    with pytest.raises(CommandError):
        call_command("load_rates", str(rates), stdout=StringIO())
    assert ExchangeRate.objects.count() == 0


def test_a_csv_without_the_columns_or_an_unknown_format_is_refused(tmp_path):
    bad = tmp_path / "rates.csv"
    bad.write_text("base,quote\nEUR,USD\n")
    with pytest.raises(CommandError, match="missing column"):
        call_command("load_rates", str(bad), stdout=StringIO())
    other = tmp_path / "rates.txt"
    other.write_text("x")
    with pytest.raises(CommandError, match="unknown format"):
        call_command("load_rates", str(other), stdout=StringIO())
    with pytest.raises(CommandError, match="not a file"):
        call_command("load_rates", str(tmp_path / "missing.json"), stdout=StringIO())
