"""GET/PUT /api/v1/operators/me/wallet, and what seamless mode refuses over HTTP
(docs/wallet.md "Seamless wallet")."""

from __future__ import annotations

import pytest

from gin_platform.demo.seamless_wallet import OperatorWalletServer
from gin_platform.models import AuditEvent
from gin_platform.tenancy.services import api_key_create
from tests.factories import SYSTEM, OperatorFactory
from tests.helpers import bearer_client
from tests.wallet.factories import fund
from wallet.models import OperatorWallet

URL = "/api/v1/operators/me/wallet"
SEAMLESS = {"mode": "seamless", "base_url": "https://wallet.example.com/gin", "timeout_ms": 2000}

pytestmark = pytest.mark.django_db


def test_the_default_is_transfer(operator_client):
    response = operator_client.get(URL)
    assert response.status_code == 200
    assert response.json() == {
        "mode": "transfer",
        "base_url": "",
        "timeout_ms": 3000,
        "updated_at": None,
    }


def test_an_operator_switches_to_seamless_and_it_is_audited(operator_client, operator, idem):
    response = operator_client.put(URL, SEAMLESS, format="json", **idem())
    assert response.status_code == 200, response.content
    assert response.json()["mode"] == "seamless"
    assert operator_client.get(URL).json()["base_url"] == SEAMLESS["base_url"]
    row = OperatorWallet.objects.get(operator=operator)
    assert (row.mode, row.timeout_ms) == ("seamless", 2000)
    audit = AuditEvent.objects.get(action="operator_wallet.updated")
    assert audit.data["before"]["mode"] == "transfer" and audit.data["after"]["mode"] == "seamless"
    other = OperatorFactory()
    assert not OperatorWallet.objects.filter(operator=other).exists()


def test_a_write_needs_an_idempotency_key(operator_client):
    response = operator_client.put(URL, SEAMLESS, format="json")
    assert response.status_code == 400
    assert response.json()["type"] == "/problems/idempotency-key-missing"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"mode": "seamless"}, "base_url"),
        ({"mode": "seamless", "base_url": "ftp://wallet.example.com"}, "base_url"),
        ({"mode": "seamless", "base_url": "https://user:pw@wallet.example.com"}, "base_url"),
    ],
)
def test_bad_settings_are_refused(operator_client, idem, body, field):
    response = operator_client.put(URL, body, format="json", **idem())
    assert response.status_code == 422, response.content
    assert response.json()["type"] == "/problems/operator-wallet-invalid"
    assert response.json()["field"] == field
    assert not OperatorWallet.objects.exists()


def test_a_private_wallet_url_is_refused_unless_allowed(operator_client, idem, settings):
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = False
    body = {"mode": "seamless", "base_url": "https://127.0.0.1/wallet"}
    response = operator_client.put(URL, body, format="json", **idem())
    assert response.json()["type"] == "/problems/operator-wallet-invalid"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"timeout_ms": 99}, "timeout_ms"),
        ({"timeout_ms": 30001}, "timeout_ms"),
        ({"timeout_ms": 0}, "timeout_ms"),
        ({"timeout_ms": -3000}, "timeout_ms"),
        ({"timeout_ms": 10**12}, "timeout_ms"),
        ({"mode": "hybrid"}, "mode"),
        ({"mode": "SEAMLESS"}, "mode"),
        ({"mode": " seamless"}, "mode"),
        ({"mode": ""}, "mode"),
        ({"base_url": "https://wallet.example.com/" + "x" * 200}, "base_url"),
    ],
)
def test_every_bad_value_is_operator_wallet_invalid_naming_its_field(
    operator_client, idem, change, field
):
    """The documented answer for every field of the endpoint: 422 operator-wallet-invalid
    with `field`, whichever value is out of range (the service checks every value)."""
    response = operator_client.put(URL, {**SEAMLESS, **change}, format="json", **idem())
    assert response.status_code == 422, response.content
    body = response.json()
    assert (body["type"], body["field"]) == ("/problems/operator-wallet-invalid", field)
    assert not OperatorWallet.objects.exists()


@pytest.mark.parametrize("timeout_ms", [100, 30000])
def test_the_timeout_bounds_themselves_are_accepted(operator_client, idem, timeout_ms):
    body = {**SEAMLESS, "timeout_ms": timeout_ms}
    response = operator_client.put(URL, body, format="json", **idem())
    assert response.status_code == 200, response.content
    assert OperatorWallet.objects.get().timeout_ms == timeout_ms


@pytest.mark.parametrize(
    "change",
    [{"timeout_ms": "soon"}, {"timeout_ms": 150.5}, {"mode": None}, {"mode": ["seamless"]}],
)
def test_a_field_of_the_wrong_json_type_is_a_validation_error(operator_client, idem, change):
    response = operator_client.put(URL, {**SEAMLESS, **change}, format="json", **idem())
    assert response.status_code == 400, response.content
    assert response.json()["type"] == "/problems/validation-error"
    assert not OperatorWallet.objects.exists()


def test_switching_is_refused_while_players_have_money_with_us(operator_client, player, idem):
    fund(player, 500)
    response = operator_client.put(URL, SEAMLESS, format="json", **idem())
    assert response.status_code == 409, response.content
    body = response.json()
    assert body["type"] == "/problems/wallet-mode-switch-refused"
    assert (body["funded_wallets"], body["open_escrows"], body["calls_in_flight"]) == (1, 0, 0)
    assert operator_client.get(URL).json()["mode"] == "transfer"


def test_deposits_and_withdrawals_are_refused_in_seamless_mode(operator_client, player, idem):
    assert operator_client.put(URL, SEAMLESS, format="json", **idem()).status_code == 200
    for kind in ("deposits", "withdrawals"):
        response = operator_client.post(
            f"/api/v1/players/{player.pk}/{kind}",
            {"amount": "5.00", "currency": "EUR"},
            format="json",
            **idem(),
        )
        assert response.status_code == 409, response.content
        assert response.json()["type"] == "/problems/seamless-wallet-mode"


def _seamless(operator, server) -> None:
    OperatorWallet.objects.create(
        operator=operator, mode="seamless", base_url=server.base_url, timeout_ms=300
    )


@pytest.mark.django_db(transaction=True)  # the balance call is never made inside one
def test_the_wallet_shows_what_the_operators_wallet_reports(operator, player, player_client):
    """A seamless player's money is in the operator's wallet: /me/wallet and the operator's
    GET players/{id}/wallet ask it (a balance call) and show it beside the platform
    wallet, which only holds money in transit."""

    with OperatorWalletServer(secret=operator.webhook_secret, timeout_sleep=0.6) as server:
        _seamless(operator, server)
        server.set_balance(player.external_ref, "73.25")
        body = player_client.get("/api/v1/me/wallet").json()
        assert body["wallet_mode"] == "seamless"
        assert body["operator_balance"]["amount"] == "73.25"
        assert body["operator_balance"]["currency"] == player.wallet_currency
        assert body["balance"]["amount"] == "0.00"
        key = api_key_create(operator=operator, actor=SYSTEM).key

        operator_api = bearer_client(key)
        seen = operator_api.get(f"/api/v1/players/{player.pk}/wallet").json()
        assert seen["operator_balance"]["amount"] == "73.25"
        # The operator's wallet does not answer in time: shown as unknown, not as zero.
        server.fault("balance", "timeout")
        body = player_client.get("/api/v1/me/wallet").json()
        assert body["wallet_mode"] == "seamless" and body["operator_balance"] is None


def test_a_transfer_wallet_has_no_operator_balance(player_client):
    body = player_client.get("/api/v1/me/wallet").json()
    assert body["wallet_mode"] == "transfer" and body["operator_balance"] is None
    assert body["rollback_pending"] is False and body["pending_rollbacks"] == []
