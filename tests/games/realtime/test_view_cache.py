"""The polled game view answered from Redis (games/realtime/view_cache.py): after every step
of random games (2, 3 and 4 seats, moves, timeouts with R13's stages and auto-play, a
resignation, a renamed player), every seat's answer equals the database's byte for byte, a
player not seated gets the same 404 as before, and the cache does answer."""

from __future__ import annotations

import random
from contextlib import contextmanager
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from redis.exceptions import ConnectionError as RedisConnectionError

from games import engine, services
from games.models import Match
from games.realtime import presence, view_cache
from gin_platform.heartbeat import WEB, heartbeat_write
from gin_platform.tenancy.services import player_update
from tests.factories import SYSTEM, PlayerFactory
from tests.games.helpers import act, sit, view
from tests.helpers import session_client
from tests.wallet.factories import fund

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.redis, pytest.mark.postgres]


@pytest.fixture
def answered(monkeypatch) -> list[bool]:
    """Whether each GET view was answered from the cache."""
    counted: list[bool] = []
    real = view_cache.cached_view

    def counting(**kwargs):
        answer = real(**kwargs)
        counted.append(answer is not None)
        return answer

    monkeypatch.setattr(view_cache, "cached_view", counting)
    return counted


@contextmanager
def database_only(monkeypatch):
    with monkeypatch.context() as patch:
        patch.setattr(view_cache, "cached_view", lambda **_kwargs: None)
        yield


def headers(response) -> dict[str, str]:
    """The answer's headers but the throttle's count, one request apart."""
    return {k: v for k, v in response.headers.items() if not k.startswith("RateLimit-")}


def check_every_seat(monkeypatch, clients, outsider, match_id: int) -> None:
    """Each seat's answer (maybe cached) is the database's, byte for byte, with the same
    status and headers; the outsider's 404 is the database path's."""
    for client in [*clients, outsider]:
        first = view(client, match_id)
        with database_only(monkeypatch):
            fresh = view(client, match_id)
        assert first.status_code == fresh.status_code
        assert headers(first) == headers(fresh)
        assert first.content == fresh.content, (first.json(), fresh.json())
    assert view(outsider, match_id).status_code == 404


def start(
    operator,
    seats: int,
    *,
    practice: bool = True,
    display_currency: str | None = None,
    funded: bool = False,
) -> tuple[int, list, object]:
    room = services.room_create(
        operator=operator,
        name=f"{seats} seats",
        variant="match",
        is_practice=practice,
        currency=None if practice else operator.base_currency,
        target=100,
        stake=100,
        seats=seats,
        actor=SYSTEM,
    )
    table = room.tables.get()
    fields = {} if display_currency is None else {"display_currency": display_currency}
    players = [PlayerFactory(operator=operator, **fields) for _ in range(seats)]
    for player in players if funded else ():
        fund(player, 10_000)
    clients = [session_client(player) for player in players]
    by_position = {}
    match_id = None
    for client in clients:
        answer = sit(client, table.pk)
        assert answer.status_code == 201, answer.json()
        match_id = answer.json()["match_id"]
        by_position[answer.json()["position"]] = client
    outsider = session_client(PlayerFactory(operator=operator))
    return match_id, [by_position[p] for p in sorted(by_position)], outsider


def random_move(rng: random.Random, hand: dict) -> dict:
    """Mostly the engine's bot, sometimes any legal action (a knock's deadwood left out)."""
    if rng.random() < 0.3:
        action = rng.choice(hand["legal_actions"])
        return {"kind": action["kind"], "card": action.get("card")}
    return engine.choose_action_from_view(hand)


def step(rng, clock: list, clients, match_id: int) -> bool:
    """One step: a move by the seat to act (from its polled view), or a turn timer run out,
    or a rename. False once the match is no longer running."""
    match = Match.objects.get(pk=match_id)
    if match.status != Match.Status.RUNNING:
        return False
    look = None
    for client in clients:
        body = view(client, match_id).json()
        if body.get("hand") and body["hand"].get("your_turn"):
            look, mover = body, client
    roll = rng.random()
    if look is None or roll < 0.12:  # the turn's clock runs out (R13: grace, bank, auto)
        clock.append(clock[-1] + timedelta(hours=2))  # past any stage's deadline
        services.turn_timers_expire(now=clock[-1])
        return True
    if roll < 0.15:  # a player renamed (their operator's call): every entry goes stale
        player = rng.choice(clients).player
        player_update(player=player, actor=SYSTEM, display_name=f"renamed {rng.random()}")
        return True
    move = random_move(rng, look["hand"])
    answer = act(mover, match_id, **move, expected_seq=look["seq"])
    assert answer.status_code == 200, answer.json()
    return True


@pytest.mark.parametrize(("seats", "seed"), [(2, 1), (2, 2), (2, 5), (3, 3), (4, 4)])
def test_every_cached_answer_is_the_databases(
    operator, monkeypatch, answered, seats, seed, settings
):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.PLATFORM_OUTAGE_AFTER_SECONDS = 10**7  # the timer's jumps ahead are no outage
    rng = random.Random(seed)
    match_id, clients, outsider = start(operator, seats)
    check_every_seat(monkeypatch, clients, outsider, match_id)
    clock = [timezone.now()]
    for number in range(160):
        if not step(rng, clock, clients, match_id):
            break
        if seats > 2 and number == 60:  # a seat leaves mid-game (R12: the others go on)
            leaver = clients[-1]
            assert leaver.post(f"/api/v1/matches/{match_id}/resign", {}, format="json")
        check_every_seat(monkeypatch, clients, outsider, match_id)
    assert any(answered), "the cache never answered"
    assert not all(answered)


# --- The invalidation paths, one by one ------------------------------------------------------
def _turn_passed(operator, **room_options) -> tuple[int, object, list]:
    """A heads-up match where a move has just passed the turn: (match id, the client to act
    next, both clients)."""
    match_id, clients, _outsider = start(operator, 2, **room_options)
    for _ in range(4):
        looks = [view(client, match_id).json() for client in clients]
        mover = next(i for i, look in enumerate(looks) if look["hand"]["your_turn"])
        hand = looks[mover]["hand"]
        move = engine.choose_action_from_view(hand)
        answer = act(clients[mover], match_id, **move, expected_seq=looks[mover]["seq"])
        assert answer.status_code == 200, answer.json()
        if answer.json()["hand"]["to_act"] != mover:
            return match_id, clients[1 - mover], clients
    raise AssertionError("the turn never passed")


def test_a_late_push_never_replaces_a_newer_entry(operator):
    key = cache.make_and_validate_key(view_cache.entry_key(1, "p"))
    mark = cache.make_and_validate_key(view_cache.mark_key(1))
    client = cache._cache.get_client(write=True)
    view_cache.store(match_id=1, mark=10, keys=[key], values=[b"5|e|0|new"])
    view_cache.store(match_id=1, mark=8, keys=[key], values=[b"4|e|0|old"])  # late
    assert client.get(key) == b"5|e|0|new" and int(client.get(mark)) == 10
    view_cache.store(match_id=1, mark=11, keys=[], values=[])  # a change without a render
    view_cache.store(match_id=1, mark=10, keys=[key], values=[b"5|e|0|late"])
    assert client.get(key) == b"5|e|0|new" and int(client.get(mark)) == 11


def test_on_the_pushs_pipeline_the_store_is_no_round_trip_of_its_own(operator):
    """redis-py asks Redis whether it knows each script queued on a pipeline (SCRIPT
    EXISTS) before sending it: a round trip more per push, until the store went as EVAL.
    It stores alike, also once Redis has forgotten every script (a restart)."""
    key = cache.make_and_validate_key(view_cache.entry_key(2, "p"))
    client = cache._cache.get_client(write=True)
    client.delete(key, cache.make_and_validate_key(view_cache.mark_key(2)))
    client.script_flush()
    asked_first = []
    for mark, value in ((10, b"5|e|0|new"), (8, b"4|e|0|old")):
        with client.pipeline(transaction=False) as pipe:
            real_immediate = pipe.immediate_execute_command

            def immediate(*args, real=real_immediate, **kwargs):
                asked_first.append(args[0])
                return real(*args, **kwargs)

            pipe.immediate_execute_command = immediate
            view_cache.store(match_id=2, mark=mark, keys=[key], values=[value], client=pipe)
            pipe.get(key)
            *_, stored = pipe.execute()
        assert stored == b"5|e|0|new"  # the late one (mark 8) stored nothing
    assert asked_first == []


def test_the_player_to_act_is_answered_from_the_cache_and_the_mover_is_not(
    operator, answered, monkeypatch
):
    match_id, polling, clients = _turn_passed(operator)
    answered.clear()
    body = view(polling, match_id)
    assert answered == [True]
    with database_only(monkeypatch):
        assert view(polling, match_id).content == body.content
    mover = next(client for client in clients if client is not polling)
    view(mover, match_id)
    assert answered == [True, False]
    # Another rendering of the answer (indented) is not the entry's: from the database.
    indented = polling.get(
        f"/api/v1/matches/{match_id}/view", HTTP_ACCEPT="application/json; indent=2"
    )
    assert indented.status_code == 200 and answered[-1] is False


def test_a_renamed_player_makes_the_entries_stale(operator, answered):
    match_id, polling, clients = _turn_passed(operator)
    other = next(client for client in clients if client is not polling)
    player_update(player=other.player, actor=SYSTEM, display_name="Someone else")
    answered.clear()
    body = view(polling, match_id).json()
    assert answered == [False]
    names = [p["display_name"] for p in body["match"]["players"]]
    assert "Someone else" in names


def test_an_outage_that_moves_the_turn_deadline_makes_the_entries_stale(operator, answered):
    now = timezone.now()
    heartbeat_write(source=WEB, now=now - timedelta(seconds=60))
    match_id, polling, _clients = _turn_passed(operator)
    before = view(polling, match_id).json()["hand"]["turn_deadline"]
    assert answered[-1] is True
    assert heartbeat_write(source=WEB, now=now + timedelta(seconds=60)) is not None
    services.turn_timers_expire(now=now + timedelta(seconds=61))
    after = view(polling, match_id).json()["hand"]["turn_deadline"]
    assert answered[-1] is False and after != before


def test_a_view_with_a_converted_amount_is_not_cached(operator, answered):
    """The display amount's rate changes without the match changing."""
    match_id, polling, _clients = _turn_passed(
        operator, practice=False, display_currency="USD", funded=True
    )
    answered.clear()
    view(polling, match_id)
    assert answered == [False]


def test_a_finished_match_is_not_cached(operator, answered):
    match_id, polling, clients = _turn_passed(operator)
    resigner = next(client for client in clients if client is not polling)
    assert resigner.post(f"/api/v1/matches/{match_id}/resign", {}, format="json").status_code == 200
    assert Match.objects.get(pk=match_id).status != Match.Status.RUNNING
    answered.clear()
    for client in clients:
        view(client, match_id)
    assert answered == [False, False]


def test_a_cached_answer_costs_the_gates_round_trip_only(operator, answered, monkeypatch):
    """The entry and the match's mark are read in the authentication gate's script: a poll
    answered from the cache makes one Redis round trip and no database query."""
    match_id, polling, _clients = _turn_passed(operator)
    view(polling, match_id)  # the credential remembered from now on
    sent: list[str] = []
    client = cache._cache.get_client(write=True)
    real = client.execute_command

    def counting(*args, **kwargs):
        sent.append(str(args[0]))
        return real(*args, **kwargs)

    monkeypatch.setattr(client, "execute_command", counting)
    answered.clear()
    with CaptureQueriesContext(connection) as queries:
        assert view(polling, match_id).status_code == 200
    assert answered == [True]
    assert sent == ["EVALSHA"]
    assert [q["sql"] for q in queries.captured_queries if "games_" in q["sql"]] == []


def _moved_with_push_lost(operator, answered, monkeypatch, *, retry_lost: bool):
    """The player to act, their view answered from the cache, moves; the move's push fails
    (a Redis blip) and, with ``retry_lost``, so does the retry marking the match stale.
    Returns the match, the player's client, the view they moved from and the move."""
    match_id, polling, _clients = _turn_passed(operator)
    look = view(polling, match_id).json()
    assert answered[-1] is True

    def failing(**_kwargs):
        raise RedisConnectionError("a blip")

    move = engine.choose_action_from_view(look["hand"])
    with monkeypatch.context() as patch:
        patch.setattr(presence, "seq_pushed_and_listened", failing)
        if retry_lost:
            patch.setattr(view_cache, "forget", lambda **_kwargs: None)
        assert act(polling, match_id, **move, expected_seq=look["seq"]).status_code == 200
    return match_id, polling, look, move


def test_a_push_that_fails_still_makes_the_entries_stale(operator, answered, monkeypatch):
    """A move whose push's round trip fails (a Redis blip) has committed: the entry of the
    seq before it must not answer any more."""
    match_id, polling, look, _move = _moved_with_push_lost(
        operator, answered, monkeypatch, retry_lost=False
    )
    after = view(polling, match_id)
    assert answered[-1] is False and after.json()["seq"] > look["seq"]


def test_a_move_refused_as_stale_stops_an_entry_that_outlived_its_change(
    operator, answered, monkeypatch
):
    """A move's push and the retry that marks the match stale both lost (Redis gone between
    the commit and them): the player's entry answers the old turn until the player acts on
    it; the refusal (409 stale-sequence) makes it stale, so the next poll reads the database
    and the player is not left looking at a turn that has passed."""
    match_id, polling, look, move = _moved_with_push_lost(
        operator, answered, monkeypatch, retry_lost=True
    )
    stale = view(polling, match_id)
    assert answered[-1] is True and stale.json()["seq"] == look["seq"]  # the hazard
    other = next(
        {"kind": a["kind"], "card": a.get("card")}
        for a in look["hand"]["legal_actions"]
        if (a["kind"], a.get("card")) != (move["kind"], move.get("card"))
    )
    refused = act(polling, match_id, **other, expected_seq=look["seq"])
    assert refused.status_code == 409
    assert refused.json()["type"].endswith("/stale-sequence")
    after = view(polling, match_id)
    assert answered[-1] is False and after.json()["seq"] > look["seq"]
