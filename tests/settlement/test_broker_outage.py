"""A Redis outage after the commit: the request that finished the game still succeeds, the
lost message is logged with the game's id, and the straggler sweep settles the game."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from django.conf import settings

from games.models import Match
from gin_platform.models import WebhookDelivery
from gin_platform.request_path.cache import redis_client
from settlement.tasks import settle_stragglers
from tests.broker import broker_unreachable
from tests.factories import PlayerFactory
from tests.games.factories import RoomFactory, TableFactory
from tests.helpers import session_client
from tests.settlement.helpers import seat_two
from wallet.models import LedgerTransaction


def settlement_postings(match) -> int:
    return LedgerTransaction.objects.filter(reference=f"settlement:match:{match.pk}").count()


@pytest.mark.django_db(transaction=True)  # on-commit callbacks run inside the request
def test_a_resign_while_the_broker_is_down_answers_200_and_the_sweep_settles_it(operator, caplog):
    operator.webhook_url = "http://127.0.0.1:9/hooks"  # game.finished is recorded too
    operator.save()
    players = [PlayerFactory(operator=operator) for _ in range(2)]
    room = RoomFactory(operator=operator, variant="ftk", target=None, stake=500, fee_bps=500)
    match = seat_two(TableFactory(room=room), players=players)
    client = session_client(players[0])

    with broker_unreachable(), caplog.at_level(logging.ERROR, logger="gin_platform.enqueue"):
        response = client.post(f"/api/v1/matches/{match.pk}/resign", {}, format="json")
        again = client.post(f"/api/v1/matches/{match.pk}/resign", {}, format="json")

    assert response.status_code == 200, response.content
    assert response.json()["match"]["status"] == "finished"
    assert again.status_code == 409  # the game is over: a retry is told so, nothing else
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.forfeit_seat is not None
    assert settlement_postings(match) == 0
    lost = [record.getMessage() for record in caplog.records]
    if redis_client() is None:  # no Redis cache: each game is queued on its own
        assert (
            f"could not enqueue settlement.tasks.settle_game({match.pk},); left to its sweeper"
            in lost
        )
    else:  # the game joined the batch set; the task that would take it was not queued
        assert "could not enqueue settlement.tasks.settle_ready(); left to its sweeper" in lost
        assert f"match {match.pk} waits in the settlement batch for the sweep" in lost
    finished_hook = WebhookDelivery.objects.get(event_type="game.finished")
    assert finished_hook.status == WebhookDelivery.Status.PENDING  # the webhook sweep sends it
    assert any(str(finished_hook.pk) in line for line in lost)

    # The broker is back. Once the game is older than the straggler age, the sweep takes it.
    age = timedelta(seconds=settings.SETTLEMENT_STRAGGLER_AGE_SECONDS)
    assert settle_stragglers() == 0  # just finished: its own message may still be on the way
    Match.objects.filter(pk=match.pk).update(finished_at=match.finished_at - age)
    assert settle_stragglers() == 1
    match.refresh_from_db()
    assert match.status == Match.Status.SETTLED
    assert settlement_postings(match) == 1
