"""The action API's answers (R4-R8). Every refusal has its own problem type and
changes nothing; a retried request does not apply twice; a stale one is refused."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import engine, refusals
from games.models import Hand, HandEvent, Match
from games.services import hand_apply_action
from gin_platform.tenancy.principals import Actor
from gin_platform.tenancy.services import api_key_create
from tests.factories import OperatorFactory, PlayerFactory
from tests.games.factories import RoomFactory, TableFactory
from tests.games.helpers import (
    HiddenInformationChecker,
    act,
    seat_both,
    sit,
    snapshot,
    view,
)
from tests.helpers import assert_problem as _problem
from tests.helpers import bearer_client, session_client
from tests.wallet.factories import fund

pytestmark = pytest.mark.django_db


@pytest.fixture
def game(alice, bob, practice_table, seeds):
    """A running match: (match id, clients by seat, the seat to act, its view)."""
    match_id, seats = seat_both(alice, bob, practice_table.pk)
    looks = {seat: view(seats[seat], match_id).json() for seat in (0, 1)}
    to_act = looks[0]["hand"]["to_act"]
    return match_id, seats, to_act, looks


def _play_until(seats, match_id, predicate, limit: int = 200) -> dict:
    """Play the bot until ``predicate(view of the seat to act)``; return that view."""
    for _ in range(limit):
        looks = {seat: view(seats[seat], match_id).json() for seat in (0, 1)}
        to_act = looks[0]["hand"]["to_act"]
        mine = looks[to_act]
        if predicate(mine):
            return mine
        move = engine.choose_action_from_view(mine["hand"])
        assert act(seats[to_act], match_id, **move, expected_seq=mine["seq"]).status_code == 200
    raise AssertionError("the situation never came up")


def test_the_first_view_shows_the_deal_and_its_commitment(game):
    match_id, _, to_act, looks = game
    hand = Hand.objects.get(match_id=match_id)
    for seat, look in looks.items():
        assert look["seq"] == 1  # the hand_dealt event
        assert look["match"]["status"] == "running" and look["match"]["your_seat"] == seat
        current = look["hand"]
        assert current["seed_commitment"] == hand.seed_commitment
        assert current["seed_commitment"] == engine.seed_commitment(hand.server_seed)
        assert "seed" not in current and "hands" not in current
        assert len(current["hand"]) == 10 and current["opponent_card_count"] == 10
        assert current["hand"] == [
            str(c) for c in engine.sort_by_suit(engine.parse_cards(" ".join(current["hand"])))
        ]  # sorted by suit
        assert current["stock_count"] == 31 and len(current["discard_pile"]) == 1
        assert current["phase"] == "upcard_offer" and current["turn_deadline"]
        assert current["your_turn"] is (seat == to_act)
        kinds = {action["kind"] for action in current["legal_actions"]}
        assert kinds == ({"take_upcard", "pass"} if seat == to_act else set())
    # R3: the non-dealer is offered the upcard first.
    assert to_act == 1 - hand.dealer


def test_not_your_turn_is_409_and_changes_nothing(game):
    match_id, seats, to_act, looks = game
    other = 1 - to_act
    before = snapshot(match_id)
    response = act(seats[other], match_id, kind="pass", expected_seq=looks[other]["seq"])
    body = _problem(response, 409, "not-your-turn")
    assert body["to_act"] == to_act
    assert snapshot(match_id) == before


def test_an_illegal_action_is_422_listing_the_legal_ones(game):
    match_id, seats, to_act, looks = game
    before = snapshot(match_id)
    response = act(seats[to_act], match_id, kind="draw_stock", expected_seq=looks[to_act]["seq"])
    body = _problem(response, 422, "illegal-action")
    assert body["legal_actions"] == [
        {"kind": "take_upcard", "card": None},
        {"kind": "pass", "card": None},
    ]
    assert snapshot(match_id) == before


def test_a_card_not_in_hand_and_the_card_just_taken_are_illegal(game):
    match_id, seats, to_act, looks = game
    upcard = looks[to_act]["hand"]["discard_pile"][-1]
    taken = act(seats[to_act], match_id, kind="take_upcard", expected_seq=looks[to_act]["seq"])
    assert taken.status_code == 200
    after = taken.json()
    before = snapshot(match_id)
    # R5: the card taken from the pile may not be put down this turn.
    response = act(seats[to_act], match_id, kind="discard", card=upcard, expected_seq=after["seq"])
    body = _problem(response, 422, "illegal-action")
    HiddenInformationChecker(match_id).check(response, to_act)
    assert refusals.card_name(engine.parse_card(upcard)) in body["detail"]  # the player's words
    assert {"kind": "discard", "card": upcard} not in body["legal_actions"]
    assert len([a for a in body["legal_actions"] if a["kind"] == "discard"]) == 10
    opponent_card = next(
        card
        for card in map(
            str, engine.state_from_json(Hand.objects.get(match_id=match_id).state).hands[1 - to_act]
        )
    )
    response = act(
        seats[to_act], match_id, kind="discard", card=opponent_card, expected_seq=after["seq"]
    )
    body = _problem(response, 422, "illegal-action")
    HiddenInformationChecker(match_id).check(response, to_act)
    assert opponent_card not in {a["card"] for a in body["legal_actions"]}
    # Discarding needs a card.
    _problem(
        act(seats[to_act], match_id, kind="discard", expected_seq=after["seq"]),
        422,
        "illegal-action",
    )
    assert snapshot(match_id) == before


def test_knocking_over_the_limit_is_422_naming_the_deadwood(game):
    match_id, seats, _, _ = game

    def over_the_limit_card(look: dict) -> str | None:
        if look["hand"]["phase"] != "discard":
            return None
        held = engine.parse_cards(" ".join(look["hand"]["hand"]))
        for card in held:
            rest = [other for other in held if other != card]
            if engine.deadwood(rest) > 10 and str(card) != look["hand"]["taken_from_discard"]:
                return str(card)
        return None

    look = _play_until(seats, match_id, lambda look: over_the_limit_card(look) is not None)
    card = over_the_limit_card(look)
    held = [c for c in engine.parse_cards(" ".join(look["hand"]["hand"])) if str(c) != card]
    seat = look["hand"]["seat"]
    before = snapshot(match_id)
    response = act(seats[seat], match_id, kind="knock", card=card, expected_seq=look["seq"])
    body = _problem(response, 422, "knock-over-limit")
    HiddenInformationChecker(match_id).check(response, seat)
    assert body["deadwood"] == engine.deadwood(held) and body["limit"] == 10
    assert str(body["deadwood"]) in body["detail"]
    assert snapshot(match_id) == before
    # R6: nothing changed, the player still has to discard.
    assert view(seats[seat], match_id).json() == look


def test_a_stale_sequence_is_409_and_changes_nothing(game):
    match_id, seats, to_act, looks = game
    seq = looks[to_act]["seq"]
    assert act(seats[to_act], match_id, kind="pass", expected_seq=seq).status_code == 200
    now = view(seats[0], match_id).json()
    next_seat = now["hand"]["to_act"]
    before = snapshot(match_id)
    for stale in (seq, now["seq"] + 1, 0):
        body = _problem(
            act(seats[next_seat], match_id, kind="pass", expected_seq=stale), 409, "stale-sequence"
        )
        assert body["current_seq"] == now["seq"] and body["expected_seq"] == stale
    # A different action than the one applied at that sequence is no retry either.
    response = act(seats[to_act], match_id, kind="take_upcard", expected_seq=seq)
    _problem(response, 409, "stale-sequence")
    assert snapshot(match_id) == before


def test_a_retried_action_returns_the_view_and_does_not_apply_twice(game):
    match_id, seats, to_act, looks = game
    seq = looks[to_act]["seq"]
    first = act(seats[to_act], match_id, kind="take_upcard", expected_seq=seq)
    assert first.status_code == 200 and "Idempotent-Replayed" not in first
    before = snapshot(match_id)
    retry = act(seats[to_act], match_id, kind="take_upcard", expected_seq=seq)
    assert retry.status_code == 200 and retry["Idempotent-Replayed"] == "true"
    assert retry.json() == first.json()
    assert snapshot(match_id) == before
    assert HandEvent.objects.filter(match_id=match_id, kind="take_upcard").count() == 1
    # Still a retry after the game moved on: the answer is the current view.
    discard = next(a for a in first.json()["hand"]["legal_actions"] if a["kind"] == "discard")
    moved = act(seats[to_act], match_id, **discard, expected_seq=first.json()["seq"])
    assert moved.status_code == 200
    late = act(seats[to_act], match_id, kind="take_upcard", expected_seq=seq)
    assert late.status_code == 200 and late.json() == moved.json()
    # The other player cannot pass off the same action as theirs.
    _problem(
        act(seats[1 - to_act], match_id, kind="take_upcard", expected_seq=seq),
        409,
        "stale-sequence",
    )


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"kind": "fold", "expected_seq": 1}, "kind"),
        ({"kind": "discard", "card": "1Z", "expected_seq": 1}, "card"),
        ({"kind": "pass"}, "expected_seq"),
        ({"kind": "pass", "expected_seq": -1}, "expected_seq"),
    ],
)
def test_a_malformed_action_is_400_naming_the_field(game, body, field):
    match_id, seats, to_act, _ = game
    before = snapshot(match_id)
    response = seats[to_act].post(f"/api/v1/matches/{match_id}/actions", body, format="json")
    problem = _problem(response, 400, "validation-error")
    assert field in problem["errors"]
    assert snapshot(match_id) == before


def test_ten_is_accepted_as_t(game):
    match_id, seats, to_act, looks = game
    taken = act(seats[to_act], match_id, kind="take_upcard", expected_seq=looks[to_act]["seq"])
    hand = taken.json()["hand"]
    card = next(a["card"] for a in hand["legal_actions"] if a["kind"] == "discard")
    text = card.replace("T", "10").lower()  # R1: "10d" is TD
    response = act(
        seats[to_act], match_id, kind="discard", card=text, expected_seq=taken.json()["seq"]
    )
    assert response.status_code == 200
    assert response.json()["hand"]["discard_pile"][-1] == card


def test_no_action_before_the_match_starts_or_after_it_ends(alice, bob, practice_table, seeds):
    seat = sit(alice, practice_table.pk).json()
    before = snapshot(seat["match_id"])
    response = act(alice, seat["match_id"], kind="pass", expected_seq=0)
    _problem(response, 409, "match-not-in-progress")
    assert snapshot(seat["match_id"]) == before
    sit(bob, practice_table.pk)
    alice.post(f"/api/v1/tables/{practice_table.pk}/leave")  # forfeit
    match = Match.objects.get(pk=seat["match_id"])
    assert match.status == Match.Status.FINISHED
    before = snapshot(match.pk)
    _problem(act(bob, match.pk, kind="pass", expected_seq=match.seq), 409, "match-not-in-progress")
    assert snapshot(match.pk) == before


def test_only_the_matchs_players_may_see_or_play_it(game, make_player_client, operator_client):
    match_id, _, _, _ = game
    outsider = make_player_client()
    other_operator_player = PlayerFactory(operator=OperatorFactory())
    stranger = session_client(other_operator_player)
    before = snapshot(match_id)
    for client in (outsider, stranger):
        _problem(view(client, match_id), 404, "not-found")
        _problem(client.get(f"/api/v1/matches/{match_id}/events"), 404, "not-found")
        _problem(act(client, match_id, kind="pass", expected_seq=1), 404, "not-found")
    # Operators read matches through their own endpoints, never a player's view.
    assert view(operator_client, match_id).status_code == 403
    assert snapshot(match_id) == before
    other_key = api_key_create(operator=OperatorFactory(), actor=Actor.system()).key
    other_operator = bearer_client(other_key)
    _problem(other_operator.get(f"/api/v1/matches/{match_id}"), 404, "not-found")


def test_the_server_side_service_takes_engine_actions(game):
    """hand_apply_action is what a server-side bot (the house bot) calls."""
    match_id, _, to_act, looks = game
    result = hand_apply_action(
        match=match_id,
        seat=to_act,
        action=engine.Action("pass", to_act),
        expected_seq=looks[to_act]["seq"],
        actor=Actor.system("bot"),
    )
    assert result.applied and result.match.seq == looks[to_act]["seq"] + 1
    event = HandEvent.objects.get(match_id=match_id, match_seq=result.match.seq)
    assert event.kind == "pass" and event.actor == "system:bot"
    assert event.action == {"kind": "pass", "seat": to_act, "card": None}


def test_a_move_reads_nothing_twice(game):
    """The action path's statements (docs/games.md "Speed"): the session unless remembered,
    the locks (on PostgreSQL one statement for the caller's seat with the match locked, then
    the two newest hands; elsewhere two), the writes (one statement on PostgreSQL), and no
    read after them: the answer is built from the rows just written. Checked over moves in
    the first hand and in later ones (where the previous hand's showdown is in the answer)."""

    match_id, seats, _, _ = game
    _moves_read_nothing_twice(match_id, seats)


def test_reality_checks_read_nothing_on_a_move(alice, bob, operator, seeds):
    """At a real-money table under a profile with reality checks (docs/player-protection.md),
    each seat's due time is read once per deal: a move reads and writes what it does at a
    practice table, no more."""
    operator.jurisdiction = "uk"
    operator.save()
    table = TableFactory(room=RoomFactory(operator=operator, stake=500, target=100))
    for client in (alice, bob):
        fund(client.player, 10_000)
    match_id, seats = seat_both(alice, bob, table.pk)
    assert Match.objects.get(pk=match_id).clocks["reality_due"][0] is not None
    _moves_read_nothing_twice(match_id, seats)


def _moves_read_nothing_twice(match_id: int, seats) -> None:
    def writes_rows(text: str) -> bool:  # 'FOR UPDATE OF "..."' is a lock, not a write
        return text.startswith(("INSERT", "UPDATE")) or (
            text.startswith("WITH") and ('UPDATE "' in text or "INSERT INTO" in text)
        )

    checked = {"first hand": 0, "later hands": 0}
    for _ in range(400):
        looks = {seat: view(seats[seat], match_id).json() for seat in (0, 1)}
        if looks[0]["match"]["status"] != "running" or all(checked.values()):
            break
        to_act = looks[0]["hand"]["to_act"]
        move = engine.choose_action_from_view(looks[to_act]["hand"])
        with CaptureQueriesContext(connection) as queries:
            answer = act(seats[to_act], match_id, **move, expected_seq=looks[to_act]["seq"])
        assert answer.status_code == 200
        if answer.json()["hand"]["number"] != looks[0]["hand"]["number"]:
            continue  # the hand ended: the next deal and the scoring write more
        # (the session's once-a-minute last-use stamp is not the action's)
        sql = [
            q["sql"]
            for q in queries.captured_queries
            if not q["sql"].startswith('UPDATE "platform_playersession"')
        ]
        writes = [text for text in sql if writes_rows(text)]
        reads = [t for t in sql if t.startswith(("SELECT", "WITH")) and not writes_rows(t)]
        assert not reads or sql.index(reads[-1]) < sql.index(writes[0]), sql  # nothing after
        session_reads = [text for text in reads if '"platform_playersession"' in text]
        # The session: remembered by the process on Redis
        # (gin_platform/request_path/remembered_credentials.py)
        assert len(session_reads) == (0 if settings.REDIS_URL else 1), sql
        locks = [text for text in reads if text not in session_reads]
        if connection.vendor == "postgresql":  # the locks in one statement, the writes in one
            (locked,) = locks
            assert locked.index('FOR UPDATE OF "games_match"') < locked.index('"games_hand"')
            (written,) = writes
            assert written.startswith("WITH")
            assert written.count('UPDATE "') == 2 and written.count("INSERT INTO") == 1, sql
        else:
            assert len(locks) == 2, sql  # seats with the match, hands
            verbs = [text.split()[0].upper() for text in writes]
            assert verbs.count("INSERT") == 1 and verbs.count("UPDATE") == 2, sql
        checked["first hand" if looks[0]["hand"]["number"] == 1 else "later hands"] += 1
    assert all(checked.values()), checked
