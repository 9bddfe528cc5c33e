"""R15's quick seat over the API (docs/matchmaking.md): two players whose bands meet are
seated together at once, buy-ins and all, and told on their sockets; a band that widens
with time seats players it did not before; linked players never meet; refusals, the one
waiting request, cancelling, a refused seat, expiry."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Match, Seat
from gin_platform.models import AuditEvent
from integrity.services import player_link_declare
from matchmaking import services
from matchmaking.models import Ticket
from tests.factories import SYSTEM
from tests.games.factories import RoomFactory
from tests.helpers import assert_problem, freeze_now
from tests.matchmaking.world import FTK, URL, ask, ftk_room, rated_client
from wallet.selectors import balances
from wallet.services import self_exclusion_create

pytestmark = pytest.mark.django_db


def balance(client) -> int:
    return balances.wallet_balance(player=client.player, currency="EUR")


def tick(capture) -> services.Tick:
    with capture(execute=True):
        return services.quick_seat_tick()


def test_two_players_whose_bands_meet_are_seated_together_at_once(
    operator, pushes, django_capture_on_commit_callbacks
):
    room = ftk_room(operator)
    ann, bob = rated_client(operator, 1500), rated_client(operator, 1580)
    with django_capture_on_commit_callbacks(execute=True):
        asked = ask(ann)
    assert asked.status_code == 201, asked.json()
    waiting = asked.json()
    assert waiting["status"] == "waiting" and waiting["seat"] is None
    assert waiting["room_id"] == room.pk and waiting["family"] == "heads_up_ftk"
    assert waiting["rating"] == 1500.0 and waiting["band"] == {"low": 1400.0, "high": 1600.0}
    assert balance(ann) == 10_000  # nothing charged while waiting
    assert ask(ann).status_code == 200  # the same request again: the same ticket
    with django_capture_on_commit_callbacks(execute=True):
        assert ask(bob).status_code == 201
    mine, theirs = ann.get(URL).json(), bob.get(URL).json()
    assert mine["status"] == theirs["status"] == "seated"
    assert mine["seat"]["match_id"] == theirs["seat"]["match_id"]
    match = Match.objects.get(pk=mine["seat"]["match_id"])
    assert match.status == Match.Status.RUNNING and match.room_id == room.pk
    assert {seat.player_id for seat in match.seats.all()} == {ann.player.pk, bob.player.pk}
    assert balance(ann) == balance(bob) == 10_000 - 500  # the buy-ins, as a seat takes them
    assert pushes.types(ann.player) == ["quick_seat.queued", "quick_seat.seated"]
    assert pushes.types(bob.player) == ["quick_seat.queued", "quick_seat.seated"]
    seated = pushes.of(ann.player)[-1]["ticket"]
    assert seated["seat"]["match_id"] == match.pk and seated["band"] is None
    # A ticket names nobody but its own player.
    text = json.dumps([mine, *[message for _, message in pushes.sent if message]], default=str)
    assert str(bob.player.pk) not in json.dumps(mine) and bob.player.display_name not in text
    assert AuditEvent.objects.filter(action="quick_seat.seated").count() == 2


def test_a_band_that_widens_seats_two_players_it_did_not_at_first(
    operator, pushes, monkeypatch, django_capture_on_commit_callbacks
):
    """1500 and 1750: 250 apart. Each band is +-100 at first, +-200 after 20 s (not yet),
    +-250 after 30 s: the beat's next tick seats them."""
    ftk_room(operator)
    clock = freeze_now(monkeypatch, timezone.now().replace(microsecond=0))
    ann, bob = rated_client(operator, 1500), rated_client(operator, 1750)
    with django_capture_on_commit_callbacks(execute=True):
        assert ask(ann).status_code == 201
        assert ask(bob).status_code == 201
    assert ann.get(URL).json()["status"] == "waiting"
    clock.advance(seconds=20)
    assert tick(django_capture_on_commit_callbacks).seated == 0
    assert ann.get(URL).json()["band"] == {"low": 1300.0, "high": 1700.0}
    clock.advance(seconds=10)
    assert tick(django_capture_on_commit_callbacks).seated == 1
    mine, theirs = ann.get(URL).json(), bob.get(URL).json()
    assert mine["status"] == theirs["status"] == "seated"
    assert mine["seat"]["match_id"] == theirs["seat"]["match_id"]
    waited = AuditEvent.objects.filter(action="quick_seat.seated").values_list("data", flat=True)
    assert sorted(data["waited_seconds"] for data in waited) == [30.0, 30.0]


def test_linked_players_never_meet_and_a_third_player_is_seated_with_one(
    operator, pushes, monkeypatch, django_capture_on_commit_callbacks
):
    ftk_room(operator)
    clock = freeze_now(monkeypatch, timezone.now())
    ann, bob = rated_client(operator, 1500), rated_client(operator, 1501)
    player_link_declare(
        player=ann.player, other_player_id=bob.player.pk, kind="household", actor=SYSTEM
    )
    with django_capture_on_commit_callbacks(execute=True):
        ask(ann), ask(bob)
    clock.advance(seconds=90)  # both bands hold anybody by now
    assert tick(django_capture_on_commit_callbacks).seated == 0
    assert {ann.get(URL).json()["status"], bob.get(URL).json()["status"]} == {"waiting"}
    cat = rated_client(operator, 2300)
    with django_capture_on_commit_callbacks(execute=True):
        ask(cat)
    # The waiting players' bands hold cat's 2300; bob's 1501 is the closer rating.
    assert [client.get(URL).json()["status"] for client in (ann, bob, cat)] == [
        "waiting",
        "seated",
        "seated",
    ]


def test_a_request_is_refused_at_once_as_a_seat_would_be(operator):
    ftk_room(operator)
    ann = rated_client(operator, 1500)
    assert_problem(ask(ann, {**FTK, "variant": "poker"}), 400, "validation-error")
    missing = assert_problem(
        ask(ann, {"variant": "ftk", "currency": "EUR"}), 400, "validation-error"
    )
    assert set(missing["errors"]) == {"stake"}
    money_only = {**FTK, "cashier_amount": "20.00"}
    assert set(assert_problem(ask(ann, money_only), 400, "validation-error")["errors"]) == {
        "cashier_amount"
    }
    assert_problem(ask(ann, {**FTK, "room": 1}), 400, "unknown-fields")
    assert_problem(ask(ann, {**FTK, "stake": "5.001"}), 422, "amount-too-precise")
    no_room = assert_problem(ask(ann, {**FTK, "stake": "7.00"}), 422, "quick-seat-no-room")
    assert no_room["variant"] == "ftk" and no_room["currency"] == "EUR"
    assert_problem(ask(ann, {**FTK, "currency": "USD"}), 422, "quick-seat-no-room")
    for stake in ("-5.00", "0", "99999999999999999999999.00"):
        assert_problem(ask(ann, {**FTK, "stake": stake}), 422, "quick-seat-no-room")
    self_exclusion_create(player=ann.player, days=180, actor=SYSTEM)
    assert_problem(ask(ann), 403, "self-excluded")
    assert not Ticket.objects.exists()


def test_one_request_waits_at_a_time(operator):
    ftk_room(operator)
    match_play = RoomFactory(operator=operator)  # Match Play to 100 at 5.00 EUR
    ann = rated_client(operator, 1500)
    first = ask(ann).json()
    other = ask(ann, {"variant": "match", "stake": "5.00", "currency": "EUR"})
    assert assert_problem(other, 409, "quick-seat-already-queued")["ticket_id"] == first["id"]
    assert ann.delete(URL).status_code == 200
    again = ask(ann, {"variant": "match", "stake": "5.00", "currency": "EUR"})
    assert again.status_code == 201 and again.json()["room_id"] == match_play.pk
    assert again.json()["family"] == "heads_up_match"


def test_cancelling_is_free_and_answered_the_same_again(
    operator, pushes, django_capture_on_commit_callbacks
):
    ftk_room(operator)
    ann, bob = rated_client(operator, 1500), rated_client(operator, 1550)
    assert_problem(ann.get(URL), 404, "not-found")
    assert_problem(ann.delete(URL), 404, "not-found")
    with django_capture_on_commit_callbacks(execute=True):
        ask(ann)
        cancelled = ann.delete(URL)
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    assert ann.delete(URL).json() == ann.get(URL).json() == cancelled.json()
    assert pushes.types(ann.player) == ["quick_seat.queued", "quick_seat.cancelled"]
    with django_capture_on_commit_callbacks(execute=True):
        ask(bob)  # nobody to meet: ann's ticket no longer waits
    assert bob.get(URL).json()["status"] == "waiting"
    with django_capture_on_commit_callbacks(execute=True):
        ask(ann)
    late = assert_problem(ann.delete(URL), 409, "quick-seat-not-waiting")
    assert late["ticket_status"] == "seated"
    assert late["match_id"] == ann.get(URL).json()["seat"]["match_id"]
    assert balance(ann) == 10_000 - 500


def test_a_refused_seat_ends_that_ticket_only(operator, pushes, django_capture_on_commit_callbacks):
    ftk_room(operator)
    ann, broke = rated_client(operator, 1500), rated_client(operator, 1520, funds=0)
    with django_capture_on_commit_callbacks(execute=True):
        ask(ann)
        ask(broke)
    refused = broke.get(URL).json()
    assert refused["status"] == "refused"
    assert refused["problem_type"] == "/problems/insufficient-funds"
    assert pushes.types(broke.player)[-1] == "quick_seat.refused"
    assert ann.get(URL).json()["status"] == "waiting"  # ann waits on, charged nothing
    assert balance(ann) == 10_000
    assert not Seat.objects.exists()


def test_a_ticket_nobody_came_for_expires(
    operator, pushes, monkeypatch, django_capture_on_commit_callbacks
):
    ftk_room(operator)
    clock = freeze_now(monkeypatch, timezone.now())
    ann = rated_client(operator, 1500)
    with django_capture_on_commit_callbacks(execute=True):
        expires_at = ask(ann).json()["expires_at"]
    clock.advance(seconds=599)
    assert tick(django_capture_on_commit_callbacks).expired == 0
    clock.advance(seconds=2)
    assert tick(django_capture_on_commit_callbacks).expired == 1
    expired = ann.get(URL).json()
    assert expired["status"] == "expired" and expired["expires_at"] == expires_at
    assert pushes.types(ann.player)[-1] == "quick_seat.expired"
    assert Ticket.objects.get().ended_at - Ticket.objects.get().joined_at >= timedelta(minutes=10)
