"""R13 "Interrupted play" over the API: a turn that runs out goes through the reconnect grace
(a disconnected seat only, capped per day), the time bank, then auto-played turns (R13's
fixed move, checked against an independent reading), and only then the forfeit (R10)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.test import override_settings
from django.utils import timezone

from games import engine, services
from games.models import Hand, HandEvent, Match, Room, TurnProtection
from gin_platform.models import Outage
from gin_platform.request_path.seen import seen_key
from tests.games.engine.test_auto_play import expected_discard
from tests.games.factories import RoomFactory, TableFactory
from tests.games.helpers import act, card_tokens, events, seat_both, view, watch
from tests.wallet.factories import fund

pytestmark = pytest.mark.django_db


def _game(alice, bob, operator, **clock):
    """A real-money Match Play game (5.00 EUR each), just dealt, with R13's ``clock``."""
    for client in (alice, bob):
        fund(client.player, 1_000)
    room = RoomFactory(operator=operator, stake=500, target=100, **clock)
    match_id, seats = seat_both(alice, bob, TableFactory(room=room).pk)
    return match_id, seats


def _hand(match_id: int) -> Hand:
    return Hand.objects.get(match_id=match_id, status=Hand.Status.IN_PROGRESS)


def _run_out(match_id: int):
    """The current stage of the turn runs out: the timer runs just after it."""
    hand = _hand(match_id)
    return services.turn_timers_expire(now=hand.turn_deadline + timedelta(seconds=3))


def _drop(client) -> None:
    """The player's client went away: no socket (none in these tests) and no request since."""
    cache.delete(seen_key(client.player.pk))


def test_the_rooms_options_default_to_the_rule_and_are_checked(operator_client, idem):
    body = {"name": "R13", "variant": "ftk", "stake": "1.00"}
    made = operator_client.post("/api/v1/rooms", body, format="json", **idem())
    assert made.status_code == 201, made.json()
    assert made.json()["turn_clock"] == {
        "time_bank_seconds": 60,
        "time_bank_top_up_seconds": 10,
        "reconnect_grace_seconds": 30,
        "auto_play_turns": 3,
    }
    off = {**body, "turn_clock": {"auto_play_turns": 0, "time_bank_seconds": 0}}
    made = operator_client.post("/api/v1/rooms", off, format="json", **idem())
    assert made.json()["turn_clock"]["auto_play_turns"] == 0
    rooms = Room.objects.count()
    bad = operator_client.post(
        "/api/v1/rooms", {**body, "turn_clock": {"auto_play_turns": 11}}, format="json", **idem()
    )
    assert bad.status_code == 422
    assert bad["Content-Type"].startswith("application/problem+json")
    assert Room.objects.count() == rooms


def test_a_connected_player_runs_the_bank_then_is_auto_played_then_forfeits(
    alice, bob, operator, seeds
):
    match_id, seats = _game(alice, bob, operator, time_bank_seconds=20, auto_play_turns=2)
    match = Match.objects.get(pk=match_id)
    assert match.clocks["banks_ms"] == [20_000, 20_000]
    hand = _hand(match_id)
    absent = hand.to_act
    # Connected (their requests are recent): no grace; the bank starts.
    sweep = _run_out(match_id)
    assert sweep.extended == [match_id] and sweep.forfeited == []
    hand = _hand(match_id)
    assert hand.turn_stage == "bank" and hand.to_act == absent
    seen = view(seats[1 - absent], match_id).json()
    assert seen["hand"]["turn_stage"] == "bank"
    assert seen["match"]["clocks"][absent]["time_bank_seconds"] == 20.0
    auto_played = 0
    while True:
        hand = _hand(match_id)
        if hand.to_act != absent:  # the present player plays their turn by the bot
            own = view(seats[hand.to_act], match_id).json()
            choice = engine.choose_action_from_view(own["hand"])
            legal = [
                a for a in own["hand"]["legal_actions"] if a["kind"] not in ("knock", "big_gin")
            ]
            if choice["kind"] in ("knock", "big_gin"):
                choice = engine.choose_action_from_view({**own["hand"], "legal_actions": legal})
            moved = act(seats[hand.to_act], match_id, expected_seq=own["seq"], **choice)
            assert moved.status_code == 200, moved.json()
            continue
        before = hand.engine_state()
        seq_before = Match.objects.get(pk=match_id).seq
        sweep = _run_out(match_id)
        if sweep.forfeited:
            break
        if sweep.extended:  # the bank (only the first time: it is then empty)
            continue
        assert sweep.auto_played == [match_id]
        auto_played += 1
        rows = list(HandEvent.objects.filter(match_id=match_id, match_seq__gt=seq_before))
        assert rows and all(row.payload.get("auto") for row in rows)
        assert all(row.actor == "system:auto-play" for row in rows)
        moves = [(row.action["kind"], row.action["card"]) for row in rows if row.action]
        assert {row.action["seat"] for row in rows if row.action} == {absent}
        if before.phase == "upcard_offer":
            assert moves == [("pass", None)]
        else:
            assert moves[0] == ("draw_stock", None)
            drawn = engine.apply(before, engine.Action("draw_stock", absent))[0]
            card = expected_discard(drawn.hands[absent], drawn.taken_from_discard)
            assert moves[1] == ("discard", str(card))
        # The feed marks them for everyone, and hides the stock draw from the opponent.
        feed = events(seats[1 - absent], match_id, after=seq_before).json()["events"]
        assert [event.get("auto") for event in feed] == [True] * len(feed)
        draws = [event for event in feed if event["kind"] == "draw_stock"]
        assert all(event.get("card") is None for event in draws)
        watcher = watch(seats[1 - absent], match_id)
        assert watcher.status_code in (200, 403, 404)
    assert auto_played == 2
    match = Match.objects.get(pk=match_id)
    assert match.forfeit_seat == absent and match.forfeit_reason == "timeout"
    assert match.clocks["auto_played"][absent] == 2
    assert match.clocks["banks_ms"][absent] == 0
    assert match.clocks["bank_used_ms"][absent] == 20_000


def test_a_disconnected_seat_gets_the_grace_once_per_disconnection(alice, bob, operator, seeds):
    match_id, seats = _game(alice, bob, operator, time_bank_seconds=0, auto_play_turns=0)
    absent = _hand(match_id).to_act
    _drop(seats[absent])
    sweep = _run_out(match_id)
    assert sweep.extended == [match_id]
    hand = _hand(match_id)
    assert hand.turn_stage == "grace"
    assert (hand.turn_deadline - hand.stage_started_at) == timedelta(seconds=30)
    other = view(seats[1 - absent], match_id).json()
    assert other["hand"]["turn_stage"] == "grace"
    assert other["match"]["clocks"][absent]["protected_turns"] == 1
    assert TurnProtection.objects.filter(player=seats[absent].player).count() == 1
    # The grace ran out and the player is still away: no bank, no auto-play: R10's forfeit.
    sweep = _run_out(match_id)
    assert sweep.forfeited == [match_id]


def test_a_socket_the_platforms_outage_dropped_costs_no_protection(alice, bob, operator, seeds):
    """R13: within the reconnect grace after the platform's own outage ended, a seat still
    reconnecting gets the grace uncounted: it is the disconnection's one grace all the same."""
    match_id, seats = _game(alice, bob, operator, time_bank_seconds=0, auto_play_turns=0)
    absent = _hand(match_id).to_act
    _drop(seats[absent])
    runs_out = _hand(match_id).turn_deadline + timedelta(seconds=3)
    Outage.objects.create(
        started_at=runs_out - timedelta(seconds=40), ended_at=runs_out - timedelta(seconds=10)
    )
    assert services.turn_timers_expire(now=runs_out).extended == [match_id]
    hand = _hand(match_id)
    assert hand.turn_stage == "grace"
    assert (hand.turn_deadline - hand.stage_started_at) == timedelta(seconds=30)
    other = view(seats[1 - absent], match_id).json()
    assert other["match"]["clocks"][absent]["protected_turns"] == 0
    # Still away when that grace ends: R10's forfeit, and still no protection counted.
    assert _run_out(match_id).forfeited == [match_id]
    assert not TurnProtection.objects.exists()


def test_a_disconnection_after_the_outage_s_grace_is_counted(alice, bob, operator, seeds):
    match_id, seats = _game(alice, bob, operator, time_bank_seconds=0, auto_play_turns=0)
    absent = _hand(match_id).to_act
    _drop(seats[absent])
    runs_out = _hand(match_id).turn_deadline + timedelta(seconds=3)
    Outage.objects.create(
        started_at=runs_out - timedelta(seconds=60), ended_at=runs_out - timedelta(seconds=30)
    )
    assert services.turn_timers_expire(now=runs_out).extended == [match_id]
    assert TurnProtection.objects.filter(player=seats[absent].player).count() == 1


def test_the_player_who_comes_back_within_the_grace_plays_on(alice, bob, operator, seeds):
    match_id, seats = _game(alice, bob, operator)
    absent = _hand(match_id).to_act
    _drop(seats[absent])
    _run_out(match_id)
    assert _hand(match_id).turn_stage == "grace"
    back = view(seats[absent], match_id).json()  # they reconnect: a request
    legal = back["hand"]["legal_actions"]
    pick = next(a for a in legal if a["kind"] in ("pass", "draw_stock"))
    moved = act(seats[absent], match_id, kind=pick["kind"], expected_seq=back["seq"])
    assert moved.status_code == 200, moved.json()
    match = Match.objects.get(pk=match_id)
    assert match.status == Match.Status.RUNNING and match.clocks["absent"] == []
    assert match.clocks["auto_played"] == [0, 0]


@override_settings(GAMES_PROTECTIONS_PER_DAY=1)
def test_the_protections_per_day_are_capped(alice, bob, operator, seeds, make_player_client):
    match_id, seats = _game(alice, bob, operator, time_bank_seconds=0, auto_play_turns=0)
    absent = _hand(match_id).to_act
    _drop(seats[absent])
    _run_out(match_id)
    assert _hand(match_id).turn_stage == "grace"
    # The same player, dropping out of another game the same day: no grace left.
    carol = make_player_client()
    again, others = _game(seats[absent], carol, operator, time_bank_seconds=0, auto_play_turns=0)
    hand = _hand(again)
    mine = next(seat for seat, client in others.clients.items() if client is seats[absent])
    if hand.to_act != mine:
        mover = others[hand.to_act]
        own = view(mover, again).json()
        kind = next(a["kind"] for a in own["hand"]["legal_actions"] if a["kind"] == "pass")
        assert act(mover, again, kind=kind, expected_seq=own["seq"]).status_code == 200
    _drop(seats[absent])
    sweep = _run_out(again)
    assert sweep.forfeited == [again]
    assert TurnProtection.objects.filter(player=seats[absent].player).count() == 1


def test_a_move_during_the_bank_charges_only_what_it_used(alice, bob, operator, seeds):
    match_id, seats = _game(alice, bob, operator, time_bank_seconds=60)
    mover = _hand(match_id).to_act
    _run_out(match_id)
    hand = _hand(match_id)
    assert hand.turn_stage == "bank"
    Hand.objects.filter(pk=hand.pk).update(stage_started_at=timezone.now() - timedelta(seconds=12))
    own = view(seats[mover], match_id).json()
    kind = next(
        a["kind"] for a in own["hand"]["legal_actions"] if a["kind"] in ("pass", "draw_stock")
    )
    assert act(seats[mover], match_id, kind=kind, expected_seq=own["seq"]).status_code == 200
    banks = Match.objects.get(pk=match_id).clocks["banks_ms"]
    assert 47_000 <= banks[mover] <= 48_000
    assert banks[1 - mover] == 60_000
    assert _hand(match_id).turn_stage == "turn"


def test_no_card_of_the_absent_player_reaches_the_opponent(alice, bob, operator, seeds):
    match_id, seats = _game(alice, bob, operator, time_bank_seconds=0, auto_play_turns=3)
    absent = _hand(match_id).to_act
    own_cards = set(view(seats[absent], match_id).json()["hand"]["hand"])
    sweep = _run_out(match_id)
    assert sweep.auto_played == [match_id]
    other = view(seats[1 - absent], match_id).json()
    feed = events(seats[1 - absent], match_id).json()
    public = set(other["hand"]["discard_pile"])
    leaked = (card_tokens(other["hand"]) | card_tokens(feed)) & (own_cards - public)
    assert not leaked


@override_settings(GAMES_PROTECTIONS_PER_DAY=2)
def test_a_player_reads_the_protections_left_today(alice, bob, operator, seeds, operator_client):
    before = alice.get("/api/v1/me/turn-protections").json()
    assert (before["per_day"], before["used_today"], before["left_today"]) == (2, 0, 2)
    match_id, seats = _game(alice, bob, operator)
    absent = _hand(match_id).to_act
    _drop(seats[absent])
    _run_out(match_id)
    after = seats[absent].get("/api/v1/me/turn-protections").json()
    assert (after["used_today"], after["left_today"]) == (1, 1)
    assert after["resets_at"].endswith("T00:00:00Z")
    refused = operator_client.get("/api/v1/me/turn-protections")
    assert refused.status_code == 403
    assert refused["Content-Type"].startswith("application/problem+json")


def test_the_fairness_check_recomputes_every_auto_played_move(alice, bob, operator, seeds):
    match_id, seats = _game(alice, bob, operator, time_bank_seconds=0, auto_play_turns=3)
    absent = _hand(match_id).to_act
    for _ in range(3):
        hand = _hand(match_id)
        if hand.to_act == absent:
            assert _run_out(match_id).auto_played == [match_id]
        else:
            own = view(seats[hand.to_act], match_id).json()
            kind = next(
                a["kind"]
                for a in own["hand"]["legal_actions"]
                if a["kind"] in ("pass", "draw_stock")
            )
            act(seats[hand.to_act], match_id, kind=kind, expected_seq=own["seq"])
            if kind == "draw_stock":
                own = view(seats[hand.to_act], match_id).json()
                discard = next(a for a in own["hand"]["legal_actions"] if a["kind"] == "discard")
                act(seats[hand.to_act], match_id, expected_seq=own["seq"], **discard)
    resigned = seats[1 - absent].post(f"/api/v1/matches/{match_id}/resign", {}, format="json")
    assert resigned.status_code == 200
    number = Hand.objects.filter(match_id=match_id).order_by("-number").first().number
    fair = seats[absent].get(f"/api/v1/matches/{match_id}/hands/{number}/fairness").json()
    assert fair["checks"]["auto_play"] is True and fair["verified"] is True
    history = seats[absent].get(f"/api/v1/matches/{match_id}/hands/{number}").json()
    assert any(event.get("auto") for event in history["events"])
    # A tampered auto-played move fails the check.
    row = HandEvent.objects.filter(match_id=match_id, payload__auto=True, action__kind="discard")
    tampered = row.first()
    if tampered is not None:
        others = [
            str(card)
            for card in Hand.objects.get(match_id=match_id, number=number)
            .engine_state()
            .hands[absent]
        ]
        tampered.action = {**tampered.action, "card": others[0]}
        HandEvent.objects.filter(pk=tampered.pk).update(action=tampered.action)
        fair = seats[absent].get(f"/api/v1/matches/{match_id}/hands/{number}/fairness").json()
        assert fair["checks"]["auto_play"] is False
