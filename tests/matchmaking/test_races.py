"""Nobody is seated twice from the quick seat (docs/matchmaking.md "Exactly once"), with
matchers, the beat's tick, joins and cancels racing on PostgreSQL: the queue's lock, the
tickets' status under their locks, one waiting ticket per player and one ticket per seat."""

from __future__ import annotations

from collections import Counter

import pytest

from games.models import Match, Seat
from matchmaking import services
from matchmaking.models import Ticket
from tests.factories import SYSTEM, OperatorFactory
from tests.matchmaking.world import FAMILY, FTK, ftk_room, rated_client
from tests.races import race

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


def join(client) -> Ticket:
    """The player asks for First To Knock at 5.00 EUR (``FTK``, as the service takes it)."""
    ticket, _ = services.quick_seat_join(
        player=client.player,
        variant=FTK["variant"],
        currency=FTK["currency"],
        stake=500,
        actor=SYSTEM,
    )
    return ticket


def test_racing_matchers_seat_every_player_once(monkeypatch):
    monkeypatch.setattr(services, "enqueue_on_commit", lambda *args: None)  # the race runs them
    operator = OperatorFactory()
    ftk_room(operator)
    clients = [rated_client(operator, 1500 + 10 * n) for n in range(10)]
    tickets = [join(client) for client in clients]
    queue_id = tickets[0].queue_id
    work = [lambda: services.queue_match(queue_id=queue_id)] * 4 + [services.quick_seat_tick] * 2
    results = race(len(work), lambda i: work[i]())
    assert not [r for r in results if isinstance(r, Exception)], results
    seated = Ticket.objects.filter(status=Ticket.Status.SEATED)
    assert seated.count() == 10
    assert len(set(seated.values_list("seat", flat=True))) == 10
    seats = Counter(Seat.objects.values_list("player_id", flat=True))
    assert set(seats.values()) == {1} and len(seats) == 10  # one seat each, nobody twice
    assert Match.objects.filter(status=Match.Status.RUNNING).count() == 5
    assert all(Seat.objects.filter(match=m).count() == 2 for m in Match.objects.all())


def test_a_player_asking_many_times_at_once_holds_one_ticket(monkeypatch):
    monkeypatch.setattr(services, "enqueue_on_commit", lambda *args: None)
    operator = OperatorFactory()
    ftk_room(operator)
    ann = rated_client(operator, 1500)
    results = race(6, lambda i: join(ann))
    assert not [r for r in results if isinstance(r, Exception)], results
    assert {ticket.pk for ticket in results} == {Ticket.objects.get().pk}
    assert Ticket.objects.get().family == FAMILY


def test_a_cancel_racing_the_matcher_either_cancels_or_is_refused_never_both(monkeypatch):
    monkeypatch.setattr(services, "enqueue_on_commit", lambda *args: None)
    operator = OperatorFactory()
    ftk_room(operator)
    for _ in range(5):
        ann, bob = rated_client(operator, 1500), rated_client(operator, 1520)
        first, second = join(ann), join(bob)

        def work(i: int, queue_id=first.queue_id, ann=ann):
            if i == 0:
                return services.queue_match(queue_id=queue_id)
            return services.quick_seat_cancel(player=ann.player, actor=SYSTEM)

        results = race(2, work)
        first.refresh_from_db()
        second.refresh_from_db()
        if first.status == Ticket.Status.SEATED:
            assert second.status == Ticket.Status.SEATED
            assert results[0] == 1 and type(results[1]).__name__ == "QuickSeatNotWaitingProblem"
        else:
            assert first.status == Ticket.Status.CANCELLED and results[1].pk == first.pk
            assert second.status == Ticket.Status.WAITING and results[0] == 0
            assert not Seat.objects.filter(player__in=[ann.player, bob.player]).exists()
            services.quick_seat_cancel(player=bob.player, actor=SYSTEM)
