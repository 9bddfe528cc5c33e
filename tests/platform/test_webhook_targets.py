"""The URLs the platform calls (docs/webhooks.md "Where a webhook may go", docs/wallet.md
"Seamless wallet"): a webhook URL and a seamless wallet's ``base_url`` are checked when they
are set by the same rules, reading the host as the resolver would, so no spelling of a
loopback or private address gets through either endpoint; and the call itself reads the
host with the same function."""

from __future__ import annotations

import ipaddress
import socket
from unittest import mock

import pytest

from gin_platform.events.webhook_targets import TargetRefused, host_addresses, resolve_target
from gin_platform.models import Operator
from tests.helpers import assert_problem
from wallet.models import OperatorWallet

pytestmark = pytest.mark.django_db

# Every way of writing an address the resolver would connect to on this machine or inside.
LOOPBACK_SPELLINGS = [
    "127.1",  # inet_aton: a.d is a.0.0.d
    "2130706433",  # one 32-bit number
    "0x7f000001",  # hexadecimal
    "0177.0.0.1",  # octal parts
    "0x7f.1",
    "017700000001",  # one octal number
    "127.0.0.1.",  # a trailing dot
    "0",  # 0.0.0.0: this machine on Linux
    "[0:0:0:0:0:0:0:1]",
    "[::ffff:127.0.0.1]",
    "[::ffff:7f00:1]",
    "LOCALHOST.",
    "wallet.localhost",
]
# Not URLs we call: a host that is neither a valid host name nor an address.
INVALID_HOSTS = ["999.1.1.1", "exa_mple.com", "a..example.com", "hooks%2eexample.com", "0x"]


@pytest.fixture
def production_targets(settings):
    """The production rules: no private targets, https only."""
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = False
    settings.WEBHOOK_ALLOW_HTTP = False


def resolving(mapping: dict[str, str]):
    """DNS as the checks see it: each name of ``mapping`` resolves to its address."""
    real = socket.getaddrinfo

    def fake(host, port, *args, **kwargs):
        if host in mapping:
            family = socket.AF_INET6 if ":" in mapping[host] else socket.AF_INET
            return [(family, socket.SOCK_STREAM, 6, "", (mapping[host], port or 0))]
        return real(host, port, *args, **kwargs)

    return mock.patch("gin_platform.events.webhook_targets.socket.getaddrinfo", fake)


def set_webhook_url(client, idem, url: str):
    return client.patch("/api/v1/operators/me", {"webhook_url": url}, format="json", **idem())


def set_base_url(client, idem, url: str):
    body = {"mode": "seamless", "base_url": url, "timeout_ms": 2000}
    return client.put("/api/v1/operators/me/wallet", body, format="json", **idem())


def assert_webhook_url_refused(response, operator) -> dict:
    body = assert_problem(response, 422, "webhook-url-invalid")
    assert body["field"] == "webhook_url"
    assert Operator.objects.get(pk=operator.pk).webhook_url == ""
    return body


def assert_base_url_refused(response) -> dict:
    body = assert_problem(response, 422, "operator-wallet-invalid")
    assert body["field"] == "base_url"
    assert not OperatorWallet.objects.exists()
    return body


@pytest.mark.parametrize("host", LOOPBACK_SPELLINGS)
def test_every_spelling_of_loopback_is_refused_as_a_webhook_url(
    operator, operator_client, idem, production_targets, host
):
    response = set_webhook_url(operator_client, idem, f"https://{host}/hooks")
    detail = assert_webhook_url_refused(response, operator)["detail"]
    assert "private" in detail or "localhost" in detail


@pytest.mark.parametrize("host", LOOPBACK_SPELLINGS)
def test_every_spelling_of_loopback_is_refused_as_a_wallet_base_url(
    operator_client, idem, production_targets, host
):
    response = set_base_url(operator_client, idem, f"https://{host}/wallet")
    detail = assert_base_url_refused(response)["detail"]
    assert "private" in detail or "localhost" in detail


@pytest.mark.parametrize("address", ["127.0.0.1", "10.0.0.7", "169.254.169.254", "::1"])
def test_a_name_that_resolves_inside_is_refused_when_it_is_set(
    operator, operator_client, idem, production_targets, address
):
    with resolving({"inside.operator.example": address}):
        hook = set_webhook_url(operator_client, idem, "https://inside.operator.example/hooks")
        wallet = set_base_url(operator_client, idem, "https://inside.operator.example/wallet")
    assert "private" in assert_webhook_url_refused(hook, operator)["detail"]
    assert "private" in assert_base_url_refused(wallet)["detail"]


def test_a_public_name_or_one_not_resolving_yet_is_accepted(
    operator, operator_client, idem, production_targets
):
    """A name that does not resolve (yet) is kept: every call resolves it again."""
    with resolving({"hooks.operator.example": "93.184.215.14"}):
        hook = set_webhook_url(operator_client, idem, "https://hooks.operator.example/gin?t=1")
    assert hook.status_code == 200, hook.content
    wallet = set_base_url(operator_client, idem, "https://wallet.not-there-yet.invalid/gin")
    assert wallet.status_code == 200, wallet.content
    assert OperatorWallet.objects.get().base_url == "https://wallet.not-there-yet.invalid/gin"


@pytest.mark.parametrize("host", INVALID_HOSTS)
def test_a_host_that_is_no_name_nor_address_is_refused(
    operator, operator_client, idem, settings, host
):
    """Whatever the address rules (private targets allowed here, as in development)."""
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = True
    hook = set_webhook_url(operator_client, idem, f"https://{host}/hooks")
    wallet = set_base_url(operator_client, idem, f"https://{host}/wallet")
    assert "not a valid host" in assert_webhook_url_refused(hook, operator)["detail"]
    assert "not a valid host" in assert_base_url_refused(wallet)["detail"]


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("https://wallet.example.com/gin?tenant=7", "?query"),
        ("https://wallet.example.com/gin?", "?query"),
        ("https://wallet.example.com/gin#top", "#fragment"),
        ("https://:pw@wallet.example.com/gin", "user name or password"),
        ("wallet.example.com/gin", "https://"),
        ("https:///gin", "no host"),
        ("https://wallet.example.com:99999/gin", "not valid"),
    ],
)
def test_a_base_url_must_be_a_url_the_calls_can_be_appended_to(
    operator_client, idem, production_targets, url, message
):
    response = set_base_url(operator_client, idem, url)
    assert message in assert_base_url_refused(response)["detail"]


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("127.1", ["127.0.0.1"]),
        ("2130706433", ["127.0.0.1"]),
        ("0x7f000001", ["127.0.0.1"]),
        ("0177.0.0.1", ["127.0.0.1"]),
        ("10.1", ["10.0.0.1"]),
        ("127.0.0.1.", ["127.0.0.1"]),
        ("[0:0:0:0:0:0:0:1]", ["::1"]),
        ("::ffff:127.0.0.1", ["::ffff:7f00:1"]),
        ("localhost", ["127.0.0.1", "::1"]),
        ("Api.LocalHost.", ["127.0.0.1", "::1"]),
    ],
)
def test_host_addresses_reads_a_host_as_the_resolver_does_without_dns(host, expected):
    with mock.patch("gin_platform.events.webhook_targets.socket.getaddrinfo") as lookup:
        addresses = host_addresses(host)
    lookup.assert_not_called()
    assert addresses == [ipaddress.ip_address(item) for item in expected]


@pytest.mark.parametrize("host", ["127.1", "2130706433", "0x7f000001", "0177.0.0.1", "0"])
def test_a_call_to_such_a_spelling_is_refused_before_any_connection(settings, host):
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = False
    with (
        mock.patch("gin_platform.events.webhook_targets.socket.create_connection") as connect,
        pytest.raises(TargetRefused, match="refused: private address"),
    ):
        resolve_target(f"http://{host}:8102/balance")
    connect.assert_not_called()
