"""Outgoing webhooks: signed, retried with backoff, every attempt logged; they cannot be
pointed inside our network, never follow a redirect and never log what the target said."""

import itertools
import json
import random
import socket
import threading
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from unittest import mock

import pytest
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from gin_platform.api.serializers import WebhookDeliveryOutput
from gin_platform.events.webhook_targets import TargetRefused, resolve_target
from gin_platform.events.webhooks import (
    MAX_ATTEMPTS,
    SIGNATURE_HEADER,
    retry_delay,
    webhook_attempt,
    webhook_enqueue,
)
from gin_platform.models import WebhookDelivery
from gin_platform.signing import verify_signature
from gin_platform.tasks import deliver_webhook, redeliver_due_webhooks

pytestmark = pytest.mark.django_db


class Receiver:
    """A local HTTP endpoint that answers with the statuses it is given, in order."""

    def __init__(self, statuses: list[int]) -> None:
        self.statuses = list(statuses)
        self.requests: list[tuple[dict[str, str], bytes]] = []
        self.methods: list[str] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.requests.append((dict(self.headers), body))
                receiver.methods.append("POST")
                status = receiver.statuses.pop(0) if receiver.statuses else 200
                self.send_response(status)
                if 300 <= status < 400:
                    self.send_header("Location", "/elsewhere")
                self.end_headers()
                self.wfile.write(b"ok" if status < 300 else b"nope")

            def do_GET(self):  # where a followed redirect would land
                receiver.methods.append("GET")
                self.send_response(200)
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def enqueue(operator, url: str) -> WebhookDelivery:
    operator.webhook_url = url
    operator.save()
    with transaction.atomic():
        delivery = webhook_enqueue(
            operator=operator, event_type="game.settled", data={"match_id": 7, "amount": "1.50"}
        )
    return delivery


@pytest.mark.django_db(transaction=True)
def test_a_delivery_is_sent_on_commit_signed_and_logged(operator):
    with Receiver([200]) as receiver:
        delivery = enqueue(operator, receiver.url)
    delivery.refresh_from_db()
    assert delivery.status == "delivered"
    assert [a.response_status for a in delivery.attempts.all()] == [200]
    headers, body = receiver.requests[0]
    # The receiver verifies exactly as docs/webhooks.md tells operators to.
    verify_signature(
        header=headers[SIGNATURE_HEADER],
        body=body,
        secrets=[operator.webhook_secret],
        tolerance_seconds=300,
    )
    envelope = json.loads(body)
    assert envelope["id"] == str(delivery.pk)
    assert envelope["type"] == "game.settled"
    assert envelope["data"] == {"match_id": 7, "amount": "1.50"}
    assert headers["X-Gin-Event"] == "game.settled"


@pytest.mark.django_db(transaction=True)
def test_nothing_is_sent_when_the_transaction_rolls_back(operator):
    with Receiver([200]) as receiver:
        operator.webhook_url = receiver.url
        operator.save()
        with pytest.raises(RuntimeError), transaction.atomic():
            webhook_enqueue(operator=operator, event_type="game.settled", data={})
            raise RuntimeError("the event never became true")
    assert receiver.requests == []
    assert WebhookDelivery.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_a_failing_receiver_gets_retries_until_it_accepts(operator):
    with Receiver([500, 503, 200]) as receiver:
        delivery = enqueue(operator, receiver.url)
        for _ in range(2):
            delivery.refresh_from_db()
            assert delivery.status == "pending"
            assert delivery.next_attempt_at > timezone.now()  # backing off
            # Time passes: the beat job finds the due retry.
            WebhookDelivery.objects.filter(pk=delivery.pk).update(
                next_attempt_at=timezone.now() - timedelta(seconds=1)
            )
            assert redeliver_due_webhooks() == 1
    delivery.refresh_from_db()
    assert delivery.status == "delivered"
    assert [a.response_status for a in delivery.attempts.all()] == [500, 503, 200]
    assert len(receiver.requests) == 3
    # Every attempt carries the same event id, so the receiver can drop duplicates.
    assert {json.loads(body)["id"] for _, body in receiver.requests} == {str(delivery.pk)}


def test_an_unreachable_receiver_is_logged_and_given_up_after_the_last_attempt(operator):
    operator.webhook_url = "http://127.0.0.1:1/unreachable"
    operator.save()
    delivery = WebhookDelivery.objects.create(
        operator=operator,
        event_type="game.settled",
        payload={},
        url=operator.webhook_url,
        attempt_count=MAX_ATTEMPTS - 1,
    )
    deliver_webhook(str(delivery.pk))
    delivery.refresh_from_db()
    assert delivery.status == "failed"
    assert delivery.last_error == "connection refused"


def test_a_delivery_not_yet_due_is_not_attempted(operator):
    delivery = WebhookDelivery.objects.create(
        operator=operator,
        event_type="x",
        payload={},
        url="http://127.0.0.1:1/",
        next_attempt_at=timezone.now() + timedelta(minutes=5),
    )
    deliver_webhook(str(delivery.pk))
    delivery.refresh_from_db()
    assert delivery.attempt_count == 0


def test_backoff_doubles_and_is_capped():
    rng = random.Random(1)
    delays = [retry_delay(n, rng=rng) for n in range(1, 12)]
    assert 30 <= delays[0] <= 33
    assert 60 <= delays[1] <= 66
    assert all(later >= earlier * 0.9 for earlier, later in itertools.pairwise(delays))
    assert max(delays) <= 6 * 3600 * 1.1


def test_no_url_means_no_delivery(operator):
    assert webhook_enqueue(operator=operator, event_type="game.settled", data={}) is None


def test_operators_list_and_redeliver_their_deliveries(
    operator, operator_client, idem, django_capture_on_commit_callbacks
):
    delivery = WebhookDelivery.objects.create(
        operator=operator,
        event_type="game.settled",
        payload={"a": 1},
        url="http://127.0.0.1:1/",
        status="failed",
        attempt_count=MAX_ATTEMPTS,
    )
    listing = operator_client.get("/api/v1/webhooks/deliveries?status=failed").json()
    assert [d["id"] for d in listing["results"]] == [str(delivery.pk)]
    with django_capture_on_commit_callbacks(execute=True):
        response = operator_client.post(
            f"/api/v1/webhooks/deliveries/{delivery.pk}/redeliver", format="json", **idem()
        )
    assert response.status_code == 202
    delivery.refresh_from_db()
    # A manual redelivery is one more attempt, logged like the others.
    assert delivery.attempt_count == MAX_ATTEMPTS + 1
    assert delivery.attempts.get(number=MAX_ATTEMPTS + 1).error


def test_rotating_the_webhook_secret_shows_it_once(operator, operator_client, idem):
    old = operator.webhook_secret
    response = operator_client.post("/api/v1/operators/me/webhook-secret", format="json", **idem())
    assert response.status_code == 201
    operator.refresh_from_db()
    assert response.json()["secret"] == operator.webhook_secret != old


def test_operator_turns_on_required_signing_only_with_a_secret(operator_client, idem):
    refused = operator_client.patch(
        "/api/v1/operators/me", {"require_signed_requests": True}, format="json", **idem()
    )
    assert refused.status_code == 409
    assert refused.json()["type"] == "/problems/signing-secret-required"
    made = operator_client.post("/api/v1/operators/me/signing-secrets", format="json", **idem())
    assert made.status_code == 201 and made.json()["secret"].startswith("whsec_")


# --- Where a webhook may go (server-side request forgery) ------------------------------------
class RawServer:
    """A local TCP service that is not HTTP (think PostgreSQL or Redis): it sends a banner."""

    def __init__(self, banner: bytes) -> None:
        self.banner = banner
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.port = self.sock.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        try:
            connection, _ = self.sock.accept()
        except OSError:
            return
        with connection:
            connection.recv(65536)
            connection.sendall(self.banner)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.sock.close()


def attempt(operator, url: str) -> WebhookDelivery:
    delivery = WebhookDelivery.objects.create(
        operator=operator, event_type="game.settled", payload={"match_id": 7}, url=url
    )
    webhook_attempt(delivery_id=str(delivery.pk))
    delivery.refresh_from_db()
    return delivery


def resolving(mapping: dict[str, str]):
    """Patch DNS as the webhook sender sees it: each name resolves to the given address."""
    real = socket.getaddrinfo
    calls = []

    def fake(host, port, *args, **kwargs):
        calls.append(host)
        if host in mapping:
            family = socket.AF_INET6 if ":" in mapping[host] else socket.AF_INET
            return [(family, socket.SOCK_STREAM, 6, "", (mapping[host], port))]
        return real(host, port, *args, **kwargs)

    return mock.patch("gin_platform.events.webhook_targets.socket.getaddrinfo", fake), calls


@pytest.fixture
def production_targets(settings):
    """The production rules: no private targets, https only."""
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = False
    settings.WEBHOOK_ALLOW_HTTP = False


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:5432/",
        "http://127.0.0.1:8102/",
        "http://[::1]:6379/",
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.7/hooks",
        "http://localhost:8000/",
        "http://2130706433:5432/",  # 127.0.0.1 written as one number
    ],
)
def test_a_private_target_is_refused_at_delivery_and_nothing_is_sent(operator, settings, url):
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = False
    with mock.patch("gin_platform.events.webhook_targets.socket.create_connection") as connect:
        delivery = attempt(operator, url)
    connect.assert_not_called()
    (logged,) = delivery.attempts.all()
    assert logged.response_status is None
    assert logged.error in {"refused: private address", "refused: invalid url"}
    assert delivery.status == "pending" and delivery.last_error == logged.error


def test_a_host_name_that_resolves_to_loopback_is_refused_at_delivery(operator, settings):
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = False
    with Receiver([200]) as receiver:
        port = receiver.server.server_address[1]
        patch, calls = resolving({"hooks.operator.example": "127.0.0.1"})
        with patch:
            delivery = attempt(operator, f"http://hooks.operator.example:{port}/hooks")
    assert calls == ["hooks.operator.example"]
    assert receiver.requests == []
    assert delivery.attempts.get().error == "refused: private address"


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.2",
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.1",
        "100.64.0.1",  # shared address space (CGNAT)
        "169.254.169.254",  # cloud metadata (link-local)
        "0.0.0.0",
        "224.0.0.1",  # multicast
        "240.0.0.1",  # reserved
        "::1",
        "fe80::1",
        "fd00:ec2::254",  # unique-local (an IPv6 metadata address)
        "::ffff:127.0.0.1",  # IPv4-mapped loopback
        "64:ff9b::a00:1",  # NAT64 of 10.0.0.1
        "2002:7f00:1::1",  # 6to4 of 127.0.0.1
    ],
)
def test_every_non_public_address_is_refused_after_dns(settings, address):
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = False
    patch, _ = resolving({"hooks.operator.example": address})
    with patch, pytest.raises(TargetRefused, match="refused: private address"):
        resolve_target("http://hooks.operator.example/hooks")


def test_the_checked_address_is_the_one_connected_to(operator):
    """DNS is asked once; the connection goes to that address (a rebinding DNS answering
    differently the second time gains nothing) with the URL's host in the Host header."""
    with Receiver([200]) as receiver:
        port = receiver.server.server_address[1]
        patch, calls = resolving({"hooks.operator.example": "127.0.0.1"})
        with patch:
            delivery = attempt(operator, f"http://hooks.operator.example:{port}/hooks?x=1")
    # The name was looked up once; the socket was opened on the checked address itself.
    assert calls.count("hooks.operator.example") == 1
    assert set(calls) <= {"hooks.operator.example", "127.0.0.1"}
    assert delivery.status == "delivered"
    headers, _ = receiver.requests[0]
    assert headers["Host"] == f"hooks.operator.example:{port}"


@pytest.mark.django_db(transaction=True)
def test_a_redirect_is_a_failed_attempt_and_is_never_followed(operator):
    with Receiver([302, 302]) as receiver:
        delivery = enqueue(operator, receiver.url)
    delivery.refresh_from_db()
    (logged,) = delivery.attempts.all()
    assert logged.response_status == 302
    assert logged.error == "HTTP 302"
    assert delivery.status == "pending"  # retried later, like any failure
    assert receiver.methods == ["POST"]  # no GET to the Location


@pytest.mark.parametrize("status", [500, 404, 301])
def test_the_attempt_log_keeps_the_status_and_never_the_targets_body(operator, status):
    with Receiver([status]) as receiver:
        delivery = attempt(operator, receiver.url)
    logged = delivery.attempts.get()
    assert (logged.response_status, logged.error) == (status, f"HTTP {status}")
    assert logged.response_excerpt == ""
    assert "nope" not in json.dumps(_delivery_api_view(delivery))


def test_a_service_that_is_not_http_leaves_no_trace_of_itself_in_the_log(operator):
    banner = b"SSH-2.0-OpenSSH_9.6 internal-db-7.corp\r\n"
    with RawServer(banner) as server:
        delivery = attempt(operator, f"http://127.0.0.1:{server.port}/")
    logged = delivery.attempts.get()
    assert logged.response_status is None
    assert logged.error == "invalid http response"
    shown = json.dumps(_delivery_api_view(delivery))
    assert "OpenSSH" not in shown and "corp" not in shown


def test_a_closed_port_is_logged_as_a_generic_class(operator):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    delivery = attempt(operator, f"http://127.0.0.1:{port}/")
    logged = delivery.attempts.get()
    assert logged.error == "connection refused"
    assert "Errno" not in logged.error and str(port) not in logged.error


def _delivery_api_view(delivery) -> dict:
    return WebhookDeliveryOutput(delivery).data


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://hooks.operator.example/x", "https://"),
        ("https://127.0.0.1:5432/", "private"),
        ("https://[::1]/", "private"),
        ("https://169.254.169.254/latest", "private"),
        ("https://localhost/x", "localhost"),
        ("https://user:pw@hooks.operator.example/x", "user name or password"),
        ("ftp://hooks.operator.example/x", "https://"),
        ("https://hooks.operator.example/" + "x" * 200, "longer than"),
    ],
)
def test_a_bad_webhook_url_is_refused_when_it_is_set(
    operator, operator_client, idem, production_targets, url, message
):
    response = operator_client.patch(
        "/api/v1/operators/me", {"webhook_url": url}, format="json", **idem()
    )
    assert response.status_code == 422, response.content
    assert response.json()["type"] == "/problems/webhook-url-invalid"
    assert message in response.json()["detail"]
    operator.refresh_from_db()
    assert operator.webhook_url == ""


def test_a_public_https_webhook_url_is_accepted(
    operator, operator_client, idem, production_targets
):
    url = "https://hooks.operator.example/gin?tenant=7"
    response = operator_client.patch(
        "/api/v1/operators/me", {"webhook_url": url}, format="json", **idem()
    )
    assert response.status_code == 200
    operator.refresh_from_db()
    assert operator.webhook_url == url


def test_the_admin_form_applies_the_same_url_rules(operator, production_targets):
    operator.webhook_url = "https://10.0.0.1/hooks"
    with pytest.raises(ValidationError, match="private"):
        operator.full_clean()
