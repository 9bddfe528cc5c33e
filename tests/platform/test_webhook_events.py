"""Operator events (docs/webhooks.md): every type recorded by the flow that makes it true,
with its documented payload; subscriptions filter deliveries, never the log; the events API
(cursor, no gaps while events are appended, 30-day cut-off, tenancy); the Standard Webhooks
headers, checked against the documented test vector and an independent implementation."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import random
import re
import threading
import time
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from django.db import connection, transaction
from django.utils import timezone
from jsonschema import Draft202012Validator

from games import services as game_services
from games.models import Match
from gin_platform.events.catalogue import EVENT_TYPES, UnknownEventType
from gin_platform.events.event_log import events_prune
from gin_platform.events.webhooks import (
    STANDARD_ID_HEADER,
    STANDARD_SIGNATURE_HEADER,
    STANDARD_TIMESTAMP_HEADER,
    webhook_attempt,
    webhook_body,
    webhook_enqueue,
)
from gin_platform.models import AuditEvent, OperatorEvent, WebhookDelivery
from gin_platform.signing import standard_signature, verify_signature
from settlement import services as settlement_services
from tests.factories import SYSTEM, OperatorFactory, PlayerFactory
from tests.games.factories import RoomFactory, TableFactory
from tests.helpers import operator_api, session_client
from tests.platform.test_webhooks import Receiver
from tests.settlement.helpers import finish_with, play_out, seat_two
from tests.wallet.factories import fund
from wallet import services as wallet_services
from wallet.problems import EscrowUnbalancedProblem, KycRequiredProblem

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

ROOT = Path(__file__).resolve().parents[2]
EVENTS_URL = "/api/v1/operators/me/events"
SUBSCRIPTIONS_URL = "/api/v1/operators/me/webhook-subscriptions"


# --- Helpers --------------------------------------------------------------------------------
def assert_documented(document: dict, item: dict) -> None:
    """The event (an events API item, the webhook body) matches its webhook's schema."""
    operation = document["webhooks"][item["type"]]["post"]
    ref = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    Draft202012Validator({"components": document["components"], "$ref": ref}).validate(item)


def events_of(operator, event_type: str) -> list[OperatorEvent]:
    return list(OperatorEvent.objects.filter(operator=operator, type=event_type))


def api_items(client, **params) -> list[dict]:
    response = client.get(EVENTS_URL, params)
    assert response.status_code == 200, response.content
    return response.json()["results"]


def only(client, event_type: str) -> dict:
    items = api_items(client, type=event_type)
    assert len(items) == 1, items
    return items[0]


# --- The catalogue and the log ----------------------------------------------------------------
def test_an_unknown_type_is_refused(operator):
    with pytest.raises(UnknownEventType):
        webhook_enqueue(operator=operator, event_type="game.started", data={})
    assert not OperatorEvent.objects.exists()


def test_every_event_is_recorded_and_a_delivery_has_the_event_id(operator_client, operator):
    operator.webhook_url = ""
    operator.save()
    assert webhook_enqueue(operator=operator, event_type="game.settled", data={"a": 1}) is None
    assert OperatorEvent.objects.filter(operator=operator, type="game.settled").count() == 1

    operator.webhook_url = "https://hooks.example.com/gin"
    operator.save()
    delivery = webhook_enqueue(operator=operator, event_type="game.settled", data={"b": 2})
    event = OperatorEvent.objects.get(pk=delivery.pk)
    assert delivery.created_at == event.created_at
    item = operator_client.get(f"{EVENTS_URL}/{event.pk}").json()
    body = json.loads(webhook_body(WebhookDelivery.objects.get(pk=delivery.pk)))
    assert body == item
    assert item["id"] == str(event.pk) and item["data"] == {"b": 2}


# --- Each type, from the flow that makes it true -----------------------------------------------
def test_deposits_and_withdrawals_over_the_api(operator_client, operator, player, idem, document):
    url = f"/api/v1/players/{player.pk}"
    body = {"amount": "50.00", "currency": "EUR", "reference": "dep-1"}
    created = operator_client.post(f"{url}/deposits", body, format="json", **idem())
    assert created.status_code == 201, created.content
    item = only(operator_client, "deposit.completed")
    assert_documented(document, item)
    assert item["data"] == {
        "player_id": str(player.pk),
        "external_ref": player.external_ref,
        "transaction_id": created.json()["id"],
        "reference": "dep-1",
        "amount": {"amount": "50.00", "currency": "EUR"},
        "balance": {"amount": "50.00", "currency": "EUR"},
    }

    paid = operator_client.post(
        f"{url}/withdrawals", {"amount": "20.00", "currency": "EUR"}, format="json", **idem()
    )
    assert paid.status_code == 201, paid.content
    item = only(operator_client, "withdrawal.completed")
    assert_documented(document, item)
    assert item["data"]["amount"] == {"amount": "20.00", "currency": "EUR"}
    assert item["data"]["balance"] == {"amount": "30.00", "currency": "EUR"}
    assert item["data"]["reference"] == "test-key-2"  # the Idempotency-Key by default


def test_a_refused_deposit_is_recorded_once_and_never_for_a_replay(
    operator_client, operator, player, document
):
    operator_client.post(
        f"/api/v1/players/{player.pk}/self-exclusion",
        {"days": 7},
        format="json",
        HTTP_IDEMPOTENCY_KEY="exclude",
    )
    body = {"amount": "10.00", "currency": "EUR"}
    url = f"/api/v1/players/{player.pk}/deposits"
    first = operator_client.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY="dep-x")
    assert first.status_code == 403, first.content
    replay = operator_client.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY="dep-x")
    assert replay.status_code == 403 and replay.headers.get("Idempotent-Replayed") == "true"

    item = only(operator_client, "deposit.refused")
    assert_documented(document, item)
    assert item["data"]["problem"]["type"] == first.json()["type"] == "/problems/self-excluded"
    assert item["data"]["reference"] == "dep-x"
    assert item["data"]["amount"] == {"amount": "10.00", "currency": "EUR"}
    assert not events_of(operator, "deposit.completed")

    again = operator_client.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY="dep-y")
    assert again.status_code == 403
    assert len(events_of(operator, "deposit.refused")) == 2  # a new request: a new refusal


@pytest.mark.django_db(transaction=True)
def test_a_refusal_outside_any_transaction_is_recorded_after_its_rollback():
    player = PlayerFactory(kyc_status="pending")
    fund(player, 5_000)
    with pytest.raises(KycRequiredProblem):
        wallet_services.withdraw(
            player=player, amount=100, currency="EUR", reference="wd-1", actor=SYSTEM
        )
    (event,) = events_of(player.operator, "withdrawal.refused")
    assert event.data["reference"] == "wd-1"
    assert not events_of(player.operator, "withdrawal.completed")


def test_a_refused_withdrawal(operator_client, operator, document, idem):
    player = PlayerFactory(operator=operator, kyc_status="pending")
    fund(player, 5_000)
    response = operator_client.post(
        f"/api/v1/players/{player.pk}/withdrawals",
        {"amount": "20.00", "currency": "EUR"},
        format="json",
        **idem(),
    )
    assert response.status_code == 403, response.content
    item = only(operator_client, "withdrawal.refused")
    assert_documented(document, item)
    assert item["data"]["problem"]["type"] == "/problems/kyc-required"
    assert item["data"]["external_ref"] == player.external_ref


def test_limit_changes_and_self_exclusion(operator_client, player, idem, document):
    url = f"/api/v1/players/{player.pk}"
    for amount in ("100.00", "200.00"):  # a first limit (at once), then an increase (pending)
        response = operator_client.post(
            f"{url}/limits",
            {"kind": "deposit", "period": "day", "amount": amount},
            format="json",
            **idem(),
        )
        assert response.status_code in (200, 201), response.content
    first, increase = api_items(operator_client, type="limit.changed")
    if first["data"]["new"]["amount"] != "100.00":
        first, increase = increase, first
    for item in (first, increase):
        assert_documented(document, item)
    assert first["data"]["old"] is None and first["data"]["pending"] is False
    assert increase["data"]["old"] == {"amount": "100.00", "currency": "EUR"}
    assert increase["data"]["new"] == {"amount": "200.00", "currency": "EUR"}
    assert increase["data"]["pending"] is True

    response = operator_client.post(
        f"{url}/self-exclusion", {"days": 30, "reason": "private"}, format="json", **idem()
    )
    assert response.status_code == 201, response.content
    item = only(operator_client, "self_exclusion.started")
    assert_documented(document, item)
    assert item["data"]["days"] == 30 and "reason" not in item["data"]
    assert item["data"]["by"] == "operator"


def test_a_time_out_the_player_took(operator_client, player, document):
    me = session_client(player)
    response = me.post("/api/v1/me/time-out", {"days": 7}, format="json")
    assert response.status_code == 201, response.content
    item = only(operator_client, "time_out.started")
    assert_documented(document, item)
    assert item["data"]["days"] == 7 and item["data"]["by"] == "player"
    ends_at = datetime.fromisoformat(item["data"]["ends_at"])  # milliseconds in events
    assert abs(ends_at - datetime.fromisoformat(response.json()["ends_at"])) < timedelta(seconds=1)


def test_sit_leave_a_hand_a_finish_and_a_settlement(operator_client, operator, document):
    room = RoomFactory(operator=operator, variant="ftk", target=None, stake=500)
    table = TableFactory(room=room)
    alone = PlayerFactory(operator=operator)
    fund(alone, 10_000)
    game_services.seat_take(player=alone, table=table, actor=SYSTEM)
    game_services.seat_leave(player=alone, table=table, actor=SYSTEM)
    taken, left = only(operator_client, "seat.taken"), only(operator_client, "seat.left")
    for item in (taken, left):
        assert_documented(document, item)
    assert taken["data"]["buy_in"] == {"amount": "5.00", "currency": "EUR"}
    assert left["data"]["refunded"] == {"amount": "5.00", "currency": "EUR"}
    assert left["data"]["forfeited"] is False
    assert taken["data"]["player_id"] == str(alone.pk)

    match = play_out(seat_two(TableFactory(room=room)))  # First To Knock: one hand
    hands = api_items(operator_client, type="hand.ended")
    assert hands, "a hand ended"
    for item in hands:
        assert_documented(document, item)
        assert item["data"]["match_id"] == match.pk
        assert set(item["data"]) == {
            "match_id",
            "hand",
            "outcome",
            "knocker_seat",
            "winner_seat",
            "winner",
            "points",
            "score",
        }  # the result, never the cards
    decided = hands[-1]["data"] if hands[-1]["data"]["outcome"] != "void" else hands[0]["data"]
    if decided["winner_seat"] is not None:
        assert decided["winner"]["player_id"] in {s["player_id"] for s in match.result["seats"]}

    settlement_services.game_finished_notify(match_id=match.pk)
    settlement_services.game_settle(match_id=match.pk)
    for name in ("game.finished", "game.settled"):
        item = only(operator_client, name)
        assert_documented(document, item)
        assert item["data"]["match_id"] == match.pk
    assert not events_of(operator, "settlement.failed")


def test_leaving_a_running_game_is_a_forfeit(operator_client, operator, document):
    room = RoomFactory(operator=operator, variant="ftk", target=None, stake=500)
    match = seat_two(TableFactory(room=room))
    leaver = match.seats.order_by("position").first().player
    game_services.seat_leave(player=leaver, table=match.table, actor=SYSTEM)
    item = only(operator_client, "seat.left")
    assert_documented(document, item)
    assert item["data"]["forfeited"] is True and item["data"]["refunded"] is None


def test_a_failed_settlement_is_recorded_once(operator_client, operator, document):
    room = RoomFactory(operator=operator, variant="ftk", target=None, stake=500)
    match = seat_two(TableFactory(room=room))
    seats = [
        {
            "position": s.position,
            "seat_id": s.pk,
            "player_id": str(s.player_id),
            "amount": s.amount * 10,
            "currency": s.currency,
        }  # more than the escrow holds
        for s in match.seats.order_by("position")
    ]
    finish_with(match, winner_seat=0, seats=seats)
    for _ in range(2):  # the task is retried by the straggler sweep
        with pytest.raises(EscrowUnbalancedProblem):
            settlement_services.game_settle(match_id=match.pk)
    item = only(operator_client, "settlement.failed")
    assert_documented(document, item)
    assert item["data"]["match_id"] == match.pk
    assert item["data"]["problem"]["type"] == "/problems/escrow-unbalanced"
    assert Match.objects.get(pk=match.pk).status == Match.Status.FINISHED


def test_every_catalogued_type_is_emitted_by_a_flow_tested_here():
    source = Path(__file__).read_text().split("def test_every_catalogued_type")[0]
    untested = {name for name in EVENT_TYPES if f'"{name}"' not in source}
    # wallet.call_failed: the seamless wallet's alert (tests/wallet/test_seamless_services.py);
    # game.voided: a platform outage past R13's limit (tests/games/test_outages.py);
    # integrity.*: the risk team's cases and players' reports (tests/integrity/);
    # session.*: player protection's play sessions (tests/protection/);
    # player.flagged: the markers of harm's daily job (tests/protection/test_harm_job.py);
    # tournament.*: a tournament's steps (tests/tournaments/test_events.py).
    assert untested - {name for name in EVENT_TYPES if name.startswith("tournament.")} == {
        "session.started",
        "session.reality_check",
        "session.limit_reached",
        "session.ended",
        "wallet.call_failed",
        "game.voided",
        "integrity.case_opened",
        "integrity.case_action",
        "integrity.case_closed",
        "integrity.report_received",
        "player.flagged",
    }


# --- Subscriptions ------------------------------------------------------------------------------
def test_subscriptions_filter_deliveries_not_the_log(operator_client, operator, idem):
    assert operator_client.get(SUBSCRIPTIONS_URL).json() == {"event_types": ["*"]}
    operator.webhook_url = "https://hooks.example.com/gin"
    operator.save()
    response = operator_client.put(
        SUBSCRIPTIONS_URL,
        {"event_types": ["seat.left", "deposit.completed"]},
        format="json",
        **idem(),
    )
    assert response.status_code == 200, response.content
    assert response.json() == {"event_types": ["deposit.completed", "seat.left"]}
    assert AuditEvent.objects.filter(action="webhook_subscription.changed").count() == 1

    player = PlayerFactory(operator=operator)
    fund(player, 1_000)  # deposit.completed: subscribed
    webhook_enqueue(operator=operator, event_type="game.settled", data={})  # not subscribed
    delivered = set(
        WebhookDelivery.objects.filter(operator=operator).values_list("event_type", flat=True)
    )
    assert delivered == {"deposit.completed"}
    assert {i["type"] for i in api_items(operator_client)} == {"deposit.completed", "game.settled"}

    nothing = operator_client.put(SUBSCRIPTIONS_URL, {"event_types": []}, format="json", **idem())
    assert nothing.json() == {"event_types": []}
    fund(player, 1_000)
    assert WebhookDelivery.objects.filter(operator=operator).count() == 1
    everything = operator_client.put(
        SUBSCRIPTIONS_URL, {"event_types": ["*"]}, format="json", **idem()
    )
    assert everything.json() == {"event_types": ["*"]}
    fund(player, 1_000)
    assert WebhookDelivery.objects.filter(operator=operator).count() == 2


@pytest.mark.parametrize("types", [["game.started"], ["*", "seat.left"], "seat.left", [None]])
def test_a_subscription_outside_the_catalogue_is_refused(operator_client, idem, types):
    response = operator_client.put(
        SUBSCRIPTIONS_URL, {"event_types": types}, format="json", **idem()
    )
    assert response.status_code == 400, response.content
    assert response.json()["type"] == "/problems/validation-error"
    assert operator_client.get(SUBSCRIPTIONS_URL).json() == {"event_types": ["*"]}


# --- The events API -----------------------------------------------------------------------------
def test_pages_filters_and_cursor(operator_client, operator):
    with transaction.atomic():
        for number in range(5):
            webhook_enqueue(operator=operator, event_type="game.settled", data={"n": number})
            webhook_enqueue(operator=operator, event_type="seat.left", data={"n": number})
    first = operator_client.get(EVENTS_URL, {"limit": 3}).json()
    assert len(first["results"]) == 3 and first["has_more"] is True
    seen = [item["id"] for item in first["results"]]
    cursor = first["next_cursor"]
    while True:
        page = operator_client.get(EVENTS_URL, {"limit": 3, "cursor": cursor}).json()
        seen += [item["id"] for item in page["results"]]
        cursor = page["next_cursor"]
        if not page["has_more"]:
            break
    assert len(seen) == len(set(seen)) == 10
    caught_up = operator_client.get(EVENTS_URL, {"cursor": cursor}).json()
    assert caught_up == {"results": [], "next_cursor": cursor, "has_more": False}

    assert len(api_items(operator_client, type="seat.left")) == 5
    assert len(api_items(operator_client, type="seat.left,game.settled")) == 10
    both = operator_client.get(f"{EVENTS_URL}?type=seat.left&type=game.settled").json()
    assert len(both["results"]) == 10

    for params in (
        {"type": "game.started"},
        {"limit": "0"},
        {"limit": "501"},
        {"cursor": "bm9wZQ"},
        {"cursor": "!!"},
    ):
        response = operator_client.get(EVENTS_URL, params)
        assert response.status_code == 400, params
        assert response.json()["type"] == "/problems/validation-error"


def test_thirty_days_retention_and_prune(operator_client, operator, settings):
    assert settings.WEBHOOK_EVENT_RETENTION_DAYS == 30
    operator.webhook_url = "https://hooks.example.com/gin"
    operator.save()
    old = webhook_enqueue(operator=operator, event_type="game.settled", data={"old": True})
    pending = webhook_enqueue(operator=operator, event_type="game.settled", data={"p": True})
    fresh = webhook_enqueue(operator=operator, event_type="game.settled", data={"new": True})
    month_ago = timezone.now() - timedelta(days=30, minutes=1)
    OperatorEvent.objects.filter(pk__in=[old.pk, pending.pk]).update(created_at=month_ago)
    WebhookDelivery.objects.filter(pk__in=[old.pk, pending.pk]).update(created_at=month_ago)
    WebhookDelivery.objects.filter(pk=old.pk).update(status=WebhookDelivery.Status.DELIVERED)

    assert [item["id"] for item in api_items(operator_client)] == [str(fresh.pk)]
    assert operator_client.get(f"{EVENTS_URL}/{old.pk}").status_code == 404
    assert operator_client.get(f"{EVENTS_URL}/{fresh.pk}").status_code == 200

    events_prune()
    assert set(OperatorEvent.objects.values_list("pk", flat=True)) == {fresh.pk}
    # A delivery still being retried is kept (and its retries go on) until it is done.
    assert set(WebhookDelivery.objects.values_list("pk", flat=True)) == {pending.pk, fresh.pk}


def test_an_operator_never_sees_another_operators_events(operator_client, operator):
    other = OperatorFactory()
    webhook_enqueue(operator=other, event_type="game.settled", data={})
    event = OperatorEvent.objects.get(operator=other)
    assert api_items(operator_client) == []
    assert operator_client.get(f"{EVENTS_URL}/{event.pk}").status_code == 404
    assert len(api_items(operator_api(other))) == 1
    assert operator_client.get(f"{EVENTS_URL}/not-a-uuid").status_code == 404


@pytest.mark.django_db(transaction=True)
def test_an_event_committed_late_is_never_skipped():
    """A transaction that began first commits last: its event is dated earlier than one a
    reader has already seen. The feed waits for it instead of moving past it."""
    operator = OperatorFactory()
    client = operator_api(operator)
    recorded, release = threading.Event(), threading.Event()

    def slow() -> None:
        try:
            with transaction.atomic():
                webhook_enqueue(operator=operator, event_type="seat.taken", data={"slow": 1})
                recorded.set()
                release.wait(10)
        finally:
            connection.close()

    thread = threading.Thread(target=slow)
    thread.start()
    assert recorded.wait(10)
    with transaction.atomic():
        webhook_enqueue(operator=operator, event_type="seat.left", data={"fast": 1})
    page = client.get(EVENTS_URL).json()
    assert page["results"] == []  # the fast event waits behind the running transaction
    release.set()
    thread.join()
    later = client.get(EVENTS_URL, {"cursor": page["next_cursor"]} if page["next_cursor"] else {})
    assert [item["type"] for item in later.json()["results"]] == ["seat.taken", "seat.left"]


@pytest.mark.django_db(transaction=True)
def test_paging_while_events_are_appended_has_no_gaps_or_duplicates():
    operator = OperatorFactory()
    client = operator_api(operator)
    writers, per_writer = 4, 12
    done = threading.Event()

    def write(seed: int) -> None:
        rng = random.Random(seed)
        try:
            for number in range(per_writer):
                with transaction.atomic():
                    webhook_enqueue(
                        operator=operator, event_type="seat.taken", data={"w": seed, "n": number}
                    )
                    time.sleep(rng.uniform(0, 0.05))  # commit after others began and ended
        finally:
            connection.close()

    threads = [threading.Thread(target=write, args=(seed,)) for seed in range(writers)]
    for thread in threads:
        thread.start()
    seen: list[str] = []
    cursor = None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        params = {"limit": 7} | ({"cursor": cursor} if cursor else {})
        page = client.get(EVENTS_URL, params).json()
        seen += [item["id"] for item in page["results"]]
        cursor = page["next_cursor"]
        if done.is_set() and not page["has_more"]:
            break
        if not any(thread.is_alive() for thread in threads):
            done.set()
        time.sleep(0.005)
    for thread in threads:
        thread.join()
    assert len(seen) == len(set(seen)), "an event was listed twice"
    assert set(seen) == {str(pk) for pk in OperatorEvent.objects.values_list("pk", flat=True)}
    assert len(seen) == writers * per_writer


# --- Standard Webhooks headers ------------------------------------------------------------------
def reference_verify(*, secret_for_libraries: str, headers: dict, body: bytes) -> bool:
    """The Standard Webhooks verification, written from the specification: the key is the
    base64 after "whsec_"; the signed content is "<id>.<timestamp>.<body>"."""
    key = base64.b64decode(secret_for_libraries.removeprefix("whsec_"))
    content = f"{headers['webhook-id']}.{headers['webhook-timestamp']}.".encode() + body
    expected = base64.b64encode(hmac.new(key, content, hashlib.sha256).digest()).decode()
    return any(
        hmac.compare_digest(expected, part.split(",", 1)[1])
        for part in headers["webhook-signature"].split(" ")
        if part.startswith("v1,")
    )


def docs_vector() -> dict[str, str]:
    text = (ROOT / "docs" / "webhooks.md").read_text()
    block = re.search(r"<!-- test-vector -->\s*```text\n(.*?)```", text, re.S)
    assert block, "docs/webhooks.md has the Standard Webhooks test vector"
    return dict(line.split(": ", 1) for line in block.group(1).strip().splitlines() if ": " in line)


def test_the_documented_test_vector():
    vector = docs_vector()
    body = vector["body"].encode()
    signed = standard_signature(
        secret=vector["secret"],
        msg_id=vector["webhook-id"],
        timestamp=int(vector["webhook-timestamp"]),
        body=body,
    )
    assert signed == vector["webhook-signature"]
    library_key = "whsec_" + base64.b64encode(vector["secret"].encode()).decode()
    assert library_key == vector["key for a Standard Webhooks library"]
    assert reference_verify(secret_for_libraries=library_key, headers=vector, body=body)


def test_deliveries_carry_verifiable_standard_webhooks_headers(operator):
    with Receiver([200]) as receiver:
        operator.webhook_url = receiver.url
        operator.save()
        with transaction.atomic():
            delivery = webhook_enqueue(operator=operator, event_type="seat.left", data={"x": 1})
        webhook_attempt(delivery_id=str(delivery.pk))
    headers, body = receiver.requests[0]
    headers = {name.lower(): value for name, value in headers.items()}
    assert headers[STANDARD_ID_HEADER] == str(delivery.pk) == json.loads(body)["id"]
    assert abs(int(headers[STANDARD_TIMESTAMP_HEADER]) - time.time()) < 60
    library_key = "whsec_" + base64.b64encode(operator.webhook_secret.encode()).decode()
    assert reference_verify(secret_for_libraries=library_key, headers=headers, body=body)
    assert not reference_verify(secret_for_libraries=library_key, headers=headers, body=body + b" ")
    # The same timestamp signs X-Gin-Signature, which still verifies.
    verify_signature(
        header=headers["x-gin-signature"],
        body=body,
        secrets=[operator.webhook_secret],
        tolerance_seconds=300,
    )
    assert headers["x-gin-signature"].startswith(f"t={headers[STANDARD_TIMESTAMP_HEADER]},")
    assert headers[STANDARD_SIGNATURE_HEADER].startswith("v1,")
