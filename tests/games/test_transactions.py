"""Which games services own their transaction (docs/games.md "Locks and transactions").

The services a request or a task calls at the top run in ``transaction.atomic(durable=True)``:
called inside somebody else's transaction they refuse before touching anything, so their
locks and their commit can never be folded into a larger transaction by accident. The others
are designed to run inside their caller's transaction (the Idempotency-Key transaction of
the operator endpoints, settlement's ``game_settle``, leaving and resigning) and still do.

Transactional tests: Django's TestCase disables the durability check inside its own
transaction, so these run without one."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from games import engine, services
from games.models import Hand, Match, Seat
from tests.factories import SYSTEM, PlayerFactory
from tests.games.factories import RoomFactory, TableFactory

pytestmark = pytest.mark.django_db(transaction=True)


def _running_match(operator) -> Match:
    table = TableFactory(
        room=RoomFactory(operator=operator, practice=True, stake=100, timeouts_forfeit=True)
    )
    for _ in range(2):
        services.seat_take(player=PlayerFactory(operator=operator), table=table, actor=SYSTEM)
    return Match.objects.get(table=table, status=Match.Status.RUNNING)


def _nested(call) -> None:
    with pytest.raises(RuntimeError, match="durable"), transaction.atomic():
        call()


def test_sitting_and_leaving_refuse_to_run_inside_another_transaction(operator):
    table = TableFactory(
        room=RoomFactory(operator=operator, practice=True, stake=100, timeouts_forfeit=True)
    )
    player = PlayerFactory(operator=operator)
    _nested(lambda: services.seat_take(player=player, table=table, actor=SYSTEM))
    assert not Seat.objects.filter(player=player).exists()
    services.seat_take(player=player, table=table, actor=SYSTEM)
    _nested(lambda: services.seat_leave(player=player, table=table, actor=SYSTEM))
    assert Seat.objects.get(player=player).state == Seat.State.SEATED
    _nested(lambda: services.table_seat_bot(player=player, table=table, actor=SYSTEM))


def test_moves_and_resigning_refuse_to_run_inside_another_transaction(operator):
    match = _running_match(operator)
    hand = Hand.objects.get(match=match, status=Hand.Status.IN_PROGRESS)
    seat = hand.to_act
    state = engine.state_from_json(hand.state)
    move = engine.choose_action(state, seat)
    mover = Seat.objects.get(match=match, position=seat)
    _nested(
        lambda: services.hand_apply_action(
            match=match.pk, seat=seat, action=move, expected_seq=match.seq, actor=SYSTEM
        )
    )
    _nested(
        lambda: services.player_action_apply(
            player=mover.player,
            match_id=match.pk,
            action=move.to_dict(),
            expected_seq=match.seq,
            actor=SYSTEM,
        )
    )
    _nested(lambda: services.match_resign(seat=mover, actor=SYSTEM))
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING and match.seq == 1  # nothing was applied


def test_each_timer_forfeit_runs_in_a_transaction_of_its_own(operator):
    match = _running_match(operator)
    Hand.objects.filter(match=match).update(turn_deadline=timezone.now() - timedelta(hours=1))
    _nested(services.turn_timers_expire)
    assert Match.objects.get(pk=match.pk).status == Match.Status.RUNNING
    assert services.turn_timers_expire().forfeited == [match.pk]


def test_the_services_designed_to_run_inside_a_callers_transaction_still_do(operator):
    with transaction.atomic():  # the Idempotency-Key transaction of the operator endpoints
        room = services.room_create(
            operator=operator,
            name="Nested",
            variant="ftk",
            currency=operator.base_currency,
            stake=100,
            actor=SYSTEM,
        )
        services.room_update(room=room, name="Renamed", actor=SYSTEM)
        services.table_create(room=room, actor=SYSTEM)
    match = _running_match(operator)
    with transaction.atomic():  # what leaving and resigning do around it
        services.match_forfeit(match=match, seat=0, reason="left", actor=SYSTEM)
    with transaction.atomic():  # settlement's game_settle, after posting the payout
        services.match_mark_settled(match=match, actor=SYSTEM)
    assert Match.objects.get(pk=match.pk).status == Match.Status.SETTLED
