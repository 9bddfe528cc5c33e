"""Outgoing webhooks (issue 6 item 5): signed, retried with backoff, every attempt logged."""

import itertools
import json
import random
import threading
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.db import transaction
from django.utils import timezone

from gin_platform.models import WebhookDelivery
from gin_platform.signing import verify_signature
from gin_platform.tasks import deliver_webhook, redeliver_due_webhooks
from gin_platform.webhooks import (
    MAX_ATTEMPTS,
    SIGNATURE_HEADER,
    retry_delay,
    webhook_enqueue,
)

pytestmark = pytest.mark.django_db


class Receiver:
    """A local HTTP endpoint that answers with the statuses it is given, in order."""

    def __init__(self, statuses: list[int]) -> None:
        self.statuses = list(statuses)
        self.requests: list[tuple[dict[str, str], bytes]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.requests.append((dict(self.headers), body))
                status = receiver.statuses.pop(0) if receiver.statuses else 200
                self.send_response(status)
                self.end_headers()
                self.wfile.write(b"ok" if status < 300 else b"nope")

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
    assert "URLError" in delivery.last_error or "Connection" in delivery.last_error


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
