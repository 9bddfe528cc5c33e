"""After a commit nothing turns a success into an error (gin_platform.enqueue): with the
broker unreachable, writes that queue work still answer as committed, the lost message is
logged with its ids, and the work waits in the database for its sweeper."""

from __future__ import annotations

import logging
import time

import pytest
from django.db import transaction

from gin_platform.enqueue import enqueue, enqueue_on_commit, on_commit_logged, task_named
from gin_platform.events.webhooks import DELIVER_TASK, due_deliveries
from gin_platform.models import WebhookDelivery
from gin_platform.tasks import deliver_webhook
from tests.broker import broker_unreachable

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


def test_a_service_queues_its_task_by_name_and_the_name_is_the_task():
    """The one direction (gin_platform/enqueue.py): webhooks names the delivery task, the task
    module imports webhooks; the name resolves to the task, whose Celery name it is."""
    assert task_named(DELIVER_TASK) is deliver_webhook
    assert task_named(deliver_webhook) is deliver_webhook


@pytest.mark.parametrize(
    "name",
    [
        "gin_platform.tasks.no_such_task",
        "gin_platform.no_module.task",
        "gin_platform.enqueue.enqueue",
    ],
)
def test_a_name_that_is_no_task_raises_at_once_not_after_the_commit(name):
    with pytest.raises(LookupError), transaction.atomic():
        enqueue_on_commit(name, "delivery-9")
    with pytest.raises(LookupError):
        enqueue(name, "delivery-9")


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
