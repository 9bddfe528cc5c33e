"""R13: the platform's own outage never costs a player. The web heartbeat's gaps are outages;
the turn timer fires nothing while the heartbeat is overdue, and applies every outage (its
deadlines moved on by its length plus the grace) before it looks at a turn."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from games import services
from games.models import Hand, Match
from games.services.interruptions import match_void
from gin_platform.heartbeat import BEAT, WEB, heartbeat_write, moves_possible
from gin_platform.models import OperatorEvent, Outage
from tests.games.factories import RoomFactory, TableFactory
from tests.games.helpers import act, events, seat_both
from tests.wallet.factories import fund
from wallet.models import LedgerTransaction
from wallet.selectors import balances, reconciliation

pytestmark = pytest.mark.django_db


def _game(alice, bob, operator):
    for client in (alice, bob):
        fund(client.player, 1_000)
    room = RoomFactory(operator=operator, stake=500, target=100, timeouts_forfeit=True)
    match_id, _seats = seat_both(alice, bob, TableFactory(room=room).pk)
    return match_id


def test_a_gap_in_the_web_heartbeat_is_an_outage_recorded_once():
    start = timezone.now() - timedelta(minutes=10)
    assert heartbeat_write(source=WEB, now=start) is None
    assert heartbeat_write(source=WEB, now=start + timedelta(seconds=5)) is None
    outage = heartbeat_write(source=WEB, now=start + timedelta(seconds=125))
    assert outage is not None and outage.seconds == 120
    assert heartbeat_write(source=WEB, now=start + timedelta(seconds=130)) is None
    # The beat's own heartbeat records no outage: a worker-only outage is not one.
    heartbeat_write(source=BEAT, now=start)
    assert heartbeat_write(source=BEAT, now=start + timedelta(minutes=5)) is None
    assert Outage.objects.count() == 1


def test_nothing_times_out_while_the_web_heartbeat_is_overdue(alice, bob, operator, seeds):
    match_id = _game(alice, bob, operator)
    now = timezone.now()
    heartbeat_write(source=WEB, now=now - timedelta(minutes=2))
    assert not moves_possible(now=now)
    Hand.objects.filter(match_id=match_id).update(turn_deadline=now - timedelta(minutes=1))
    sweep = services.turn_timers_expire(now=now)
    assert sweep.forfeited == [] and sweep.skipped == []
    assert Match.objects.get(pk=match_id).status == Match.Status.RUNNING


def test_an_outage_moves_the_deadlines_inside_it_on_by_its_length_and_the_grace(
    alice, bob, operator, seeds
):
    match_id = _game(alice, bob, operator)
    start = timezone.now() - timedelta(minutes=3)
    heartbeat_write(source=WEB, now=start)
    inside = start + timedelta(seconds=40)
    Hand.objects.filter(match_id=match_id).update(turn_deadline=inside)
    end = start + timedelta(seconds=120)
    outage = heartbeat_write(source=WEB, now=end)
    assert outage is not None
    sweep = services.turn_timers_expire(now=end + timedelta(seconds=1))
    assert sweep.forfeited == []
    hand = Hand.objects.get(match_id=match_id)
    grace = Match.objects.get(pk=match_id).reconnect_grace_seconds
    assert hand.turn_deadline == inside + timedelta(seconds=120 + grace)
    outage.refresh_from_db()
    assert outage.applied_at is not None
    # Applied once: the next sweep moves nothing again.
    services.turn_timers_expire(now=end + timedelta(seconds=2))
    assert Hand.objects.get(match_id=match_id).turn_deadline == hand.turn_deadline


def test_a_deadline_after_the_outage_is_left_alone(alice, bob, operator, seeds):
    match_id = _game(alice, bob, operator)
    start = timezone.now() - timedelta(minutes=3)
    heartbeat_write(source=WEB, now=start)
    end = start + timedelta(seconds=60)
    later = end + timedelta(minutes=10)
    Hand.objects.filter(match_id=match_id).update(turn_deadline=later)
    heartbeat_write(source=WEB, now=end)
    services.turn_timers_expire(now=end + timedelta(seconds=1))
    assert Hand.objects.get(match_id=match_id).turn_deadline == later


@override_settings(GAMES_MAX_INTERRUPTION_SECONDS=60)
def test_an_outage_past_the_limit_voids_the_matches_it_touched_exactly_once(
    alice, bob, operator, seeds
):
    match_id = _game(alice, bob, operator)
    match = Match.objects.get(pk=match_id)
    assert balances.wallet_balance(player=alice.player) == 500
    start = timezone.now() - timedelta(minutes=5)
    Match.objects.filter(pk=match_id).update(started_at=start - timedelta(minutes=1))
    heartbeat_write(source=WEB, now=start)
    end = start + timedelta(seconds=90)
    heartbeat_write(source=WEB, now=end)
    # Suspended in the transaction that recorded the outage: no move reaches it any more.
    assert Match.objects.get(pk=match_id).status == Match.Status.SUSPENDED
    look = alice.get(f"/api/v1/matches/{match_id}/view").json()
    mover = alice if look["hand"]["your_turn"] else bob
    own = mover.get(f"/api/v1/matches/{match_id}/view").json()
    legal = own["hand"]["legal_actions"][0]
    refused = act(
        mover, match_id, expected_seq=own["seq"], kind=legal["kind"], card=legal.get("card")
    )
    assert refused.status_code == 409
    assert refused.json()["type"] == "/problems/match-not-in-progress"
    sweep = services.turn_timers_expire(now=end + timedelta(seconds=1))
    assert sweep.forfeited == []
    match.refresh_from_db()
    assert match.status == Match.Status.VOIDED and match.result is None
    assert Hand.objects.get(match_id=match_id).status == Hand.Status.ABANDONED
    for client in (alice, bob):  # exactly what they put in, no fee
        assert balances.wallet_balance(player=client.player) == 1_000
    assert balances.escrow_balance(game_ref=match.game_ref, currency=match.currency) == 0
    voids = LedgerTransaction.objects.filter(kind="void", game_ref=match.game_ref)
    assert voids.count() == 1 and voids.get().reference == f"void:{match.game_ref}"
    assert Outage.objects.get().applied_at is not None
    # Again: nothing more moves; the voided match is not running any more.
    assert match_void(match_id=match_id) is False
    services.turn_timers_expire(now=end + timedelta(seconds=2))
    assert voids.count() == 1
    assert OperatorEvent.objects.filter(operator=operator, type="game.voided").count() == 1
    # Both players see it; the feed says why; nothing more can be played.
    seen = alice.get(f"/api/v1/matches/{match_id}/view").json()
    assert seen["match"]["status"] == "voided"
    kinds = [event["kind"] for event in events(alice, match_id).json()["events"]]
    assert kinds[-1] == "match_voided"
    report = reconciliation.reconcile()
    assert report.ok, report.render()


@override_settings(GAMES_MAX_INTERRUPTION_SECONDS=60)
def test_a_match_started_after_the_outage_is_not_voided(alice, bob, operator, seeds):
    start = timezone.now() - timedelta(minutes=5)
    heartbeat_write(source=WEB, now=start)
    heartbeat_write(source=WEB, now=start + timedelta(seconds=90))
    match_id = _game(alice, bob, operator)
    services.turn_timers_expire()
    assert Match.objects.get(pk=match_id).status == Match.Status.RUNNING
