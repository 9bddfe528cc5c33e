"""After a commit nothing turns a success into an error (gin_platform.enqueue): with the
broker unreachable, writes that queue work still answer as committed, the lost message is
logged with its ids, and the work waits in the database for its sweeper."""

from __future__ import annotations

import logging
import time

import pytest
from django.db import transaction
from django.utils.module_loading import import_string

from gin_platform.enqueue import enqueue, enqueue_on_commit, on_commit_logged
from gin_platform.events.webhooks import DELIVER_TASK, due_deliveries
from gin_platform.models import WebhookDelivery
from gin_platform.tasks import deliver_webhook
from tests.broker import broker_unreachable
from wallet import tasks as wallet_tasks

pytestmark = pytest.mark.django_db


def test_enqueue_with_the_broker_down_logs_the_task_and_its_ids_and_returns_false(caplog):
    with broker_unreachable(), caplog.at_level(logging.ERROR, logger="gin_platform.enqueue"):
        started = time.monotonic()
        assert enqueue(deliver_webhook, "delivery-7") is False
        elapsed = time.monotonic() - started
    assert elapsed < 5  # bounded publish retries: the request is not held up for long
    assert [r.getMessage() for r in caplog.records] == [
        "could not enqueue gin_platform.tasks.deliver_webhook('delivery-7',); left to its sweeper"
    ]
    assert caplog.records[0].exc_info is not None  # the broker's error, for the operator


def test_a_task_named_by_its_dotted_path_is_found_when_it_is_sent(monkeypatch):
    """A service names the task it queues (its tasks module imports the service, never the
    other way round): the name is resolved when the task is sent."""
    sent = []
    monkeypatch.setattr(
        wallet_tasks.seamless_call_retry, "apply_async", lambda **options: sent.append(options)
    )
    assert enqueue("wallet.tasks.seamless_call_retry", "call-1", countdown=5) is True
    assert sent == [{"args": ("call-1",), "countdown": 5}]


def test_a_task_name_that_names_no_task_is_logged_and_left_to_its_sweeper(caplog):
    with caplog.at_level(logging.ERROR, logger="gin_platform.enqueue"):
        assert enqueue("wallet.tasks.no_such_task", "call-2") is False
    assert [r.getMessage() for r in caplog.records] == [
        "could not enqueue wallet.tasks.no_such_task('call-2',); left to its sweeper"
    ]


def test_a_task_queued_by_its_name_is_sent_and_logged_by_that_name(caplog):
    """A service queues its app's tasks by name (the task module imports the service)."""
    with broker_unreachable(), caplog.at_level(logging.ERROR, logger="gin_platform.enqueue"):
        assert enqueue("gin_platform.tasks.deliver_webhook", "delivery-9") is False
    assert [r.getMessage() for r in caplog.records] == [
        "could not enqueue gin_platform.tasks.deliver_webhook('delivery-9',); left to its sweeper"
    ]


@pytest.mark.django_db(transaction=True)
def test_enqueue_on_commit_runs_after_the_commit_and_never_raises(caplog):
    with broker_unreachable(), caplog.at_level(logging.ERROR, logger="gin_platform.enqueue"):
        with transaction.atomic():
            enqueue_on_commit(deliver_webhook, "delivery-8")
            assert caplog.records == []  # nothing is sent before the commit
        assert "deliver_webhook('delivery-8',)" in caplog.records[0].getMessage()


@pytest.mark.django_db(transaction=True)
def test_a_failing_on_commit_callback_is_logged_with_what_it_was(caplog):
    def receiver_bug():
        raise RuntimeError("a bug in a receiver")

    with caplog.at_level(logging.ERROR, logger="gin_platform.enqueue"), transaction.atomic():
        on_commit_logged(receiver_bug, what="match_finished of match 12")
    assert [r.getMessage() for r in caplog.records] == [
        "after commit: match_finished of match 12 failed; left to its sweeper"
    ]


@pytest.mark.django_db(transaction=True)
def test_a_redelivery_asked_for_while_the_broker_is_down_is_accepted_and_swept(
    operator, operator_client, idem, caplog
):
    delivery = WebhookDelivery.objects.create(
        operator=operator,
        event_type="game.settled",
        payload={"a": 1},
        url="http://127.0.0.1:9/hooks",
        status=WebhookDelivery.Status.FAILED,
        attempt_count=3,
    )
    with broker_unreachable(), caplog.at_level(logging.ERROR, logger="gin_platform.enqueue"):
        response = operator_client.post(
            f"/api/v1/webhooks/deliveries/{delivery.pk}/redeliver", format="json", **idem()
        )
    assert response.status_code == 202, response.content
    delivery.refresh_from_db()
    assert delivery.status == WebhookDelivery.Status.PENDING
    assert str(delivery.pk) in due_deliveries()  # redeliver-due-webhooks sends it
    assert str(delivery.pk) in caplog.records[0].getMessage()


def test_webhooks_name_the_delivery_task_by_its_registered_name():
    """The one direction (gin_platform/enqueue.py): webhooks names the delivery task, the task
    module imports webhooks; the name is the task's dotted path and its Celery name."""
    assert import_string(DELIVER_TASK) is deliver_webhook
    assert deliver_webhook.name == DELIVER_TASK


@pytest.mark.django_db(transaction=True)
def test_enqueue_by_name_with_the_broker_down_logs_the_task_and_its_ids(caplog):
    with (
        broker_unreachable(),
        caplog.at_level(logging.ERROR, logger="gin_platform.enqueue"),
        transaction.atomic(),
    ):
        enqueue_on_commit(DELIVER_TASK, "delivery-10")
    assert [r.getMessage() for r in caplog.records] == [
        "could not enqueue gin_platform.tasks.deliver_webhook('delivery-10',); left to its sweeper"
    ]
