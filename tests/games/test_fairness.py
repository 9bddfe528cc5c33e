"""Provable fairness (R3, docs/fairness.md). The commitment is public before the deal; after the
hand the seed is revealed; the endpoint and the offline procedure of docs/fairness.md (run
here exactly as written there) re-derive the deck and check it against the commitment and
the cards dealt, and fail on a tampered seed."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from games import engine
from games.models import Hand, Match
from tests.games.factories import RoomFactory, TableFactory
from tests.games.helpers import act, events, passive_for_hands, play_to_end, seat_both, view

pytestmark = pytest.mark.django_db

FAIRNESS_DOC = Path(__file__).resolve().parents[2] / "docs" / "fairness.md"


def offline_verifier():
    """The first ```python block of docs/fairness.md, run in a namespace of its own with
    nothing imported for it: it must stand alone on the standard library."""
    text = FAIRNESS_DOC.read_text()
    block = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    namespace: dict = {"__name__": "fairness_doc"}
    exec(compile(block, str(FAIRNESS_DOC), "exec"), namespace)
    return namespace


def _finished_match_play(alice, bob, operator, *, passive_hands: int = 0):
    table = TableFactory(room=RoomFactory(operator=operator, practice=True, stake=100))
    match_id, seats = seat_both(alice, bob, table.pk)
    kwargs = {"policy": passive_for_hands(passive_hands)} if passive_hands else {}
    play_to_end(seats, match_id, **kwargs)
    return Match.objects.get(pk=match_id), seats


def _history(client, match_id: int, number: int) -> dict:
    response = client.get(f"/api/v1/matches/{match_id}/hands/{number}")
    assert response.status_code == 200, response.json()
    return response.json()


@pytest.mark.slow
def test_the_offline_procedure_verifies_real_hands_and_fails_on_a_tampered_seed(
    alice, bob, operator, seeds
):
    verifier = offline_verifier()
    assert verifier["deck"]("0" * 64)[:4] == ["2H", "QH", "QS", "4S"]  # engine.md's answer
    match, seats = _finished_match_play(alice, bob, operator, passive_hands=1)
    hands = list(match.hands.order_by("number"))
    assert len(hands) >= 2 and hands[0].outcome["kind"] == "void"  # R7: a full stock run
    for hand in hands:
        history = _history(seats[0], match.pk, hand.number)
        assert verifier["verify_hand"](history) == [], hand.number
        assert verifier["deck"](history["seed"]) == [
            str(card) for card in engine.shuffled_deck(hand.server_seed)
        ]
        tampered_seed = hashlib.sha256(b"not the seed").hexdigest()
        failed = verifier["verify_hand"]({**history, "seed": tampered_seed})
        assert "commitment" in failed and "stock" in failed and len(failed) >= 4
        # A seed that matches a forged commitment still does not give the dealt cards.
        forged = {
            **history,
            "seed": tampered_seed,
            "seed_commitment": hashlib.sha256(tampered_seed.encode()).hexdigest(),
        }
        assert "commitment" not in verifier["verify_hand"](forged)
        assert verifier["verify_hand"](forged)
        # A swapped card in the record of play is caught too.
        stock = list(history["stock"])
        if len(stock) >= 2:
            stock[0], stock[1] = stock[1], stock[0]
            assert verifier["verify_hand"]({**history, "stock": stock}) == ["stock"]


@pytest.mark.slow
def test_the_endpoint_verifies_every_hand_for_both_players_and_the_operator(
    alice, bob, operator, operator_client, seeds
):
    match, seats = _finished_match_play(alice, bob, operator)
    for hand in match.hands.all():
        path = f"/api/v1/matches/{match.pk}/hands/{hand.number}/fairness"
        answers = [client.get(path) for client in (seats[0], seats[1], operator_client)]
        assert [a.status_code for a in answers] == [200, 200, 200]
        body = answers[0].json()
        assert answers[1].json() == body == answers[2].json()
        assert body["verified"] is True and all(body["checks"].values()), body["checks"]
        assert body["seed"] == hand.server_seed
        assert body["deck"] == [str(c) for c in engine.shuffled_deck(hand.server_seed)]
        dealt = engine.deal(seed=hand.server_seed, dealer=hand.dealer)
        assert body["dealt"]["hands"] == [[str(c) for c in h] for h in dealt.hands]
        assert body["dealt"]["upcard"] == str(dealt.upcard)
        assert body["dealt"]["stock"] == [str(c) for c in dealt.stock]
        assert body["first_dealer"] == (hand.dealer if hand.number == 1 else None)


def test_a_tampered_seed_fails_the_endpoint_check(alice, bob, operator, seeds):
    match, seats = _finished_match_play(alice, bob, operator)
    hand = match.hands.order_by("number").first()
    Hand.objects.filter(pk=hand.pk).update(server_seed=hashlib.sha256(b"other").hexdigest())
    body = seats[0].get(f"/api/v1/matches/{match.pk}/hands/1/fairness").json()
    assert body["verified"] is False
    assert body["checks"]["commitment"] is False
    assert body["checks"]["hands"] is False and body["checks"]["stock"] is False


def test_the_commitment_comes_before_the_deal_and_the_check_waits_for_the_end(
    alice, bob, operator, practice_table, seeds
):
    match_id, seats = seat_both(alice, bob, practice_table.pk)
    hand = Hand.objects.get(match_id=match_id)
    dealt = events(seats[0], match_id).json()["events"][0]
    assert dealt["kind"] == "hand_dealt"
    assert (
        dealt["seed_commitment"] == hand.seed_commitment == engine.seed_commitment(hand.server_seed)
    )
    assert dealt["upcard"] == view(seats[0], match_id).json()["hand"]["discard_pile"][0]
    assert "seed" not in view(seats[0], match_id).json()["hand"]
    for path in ("hands/1/fairness", "hands/1"):
        response = seats[0].get(f"/api/v1/matches/{match_id}/{path}")
        assert response.status_code == 409, path
        assert response.json()["type"] == "/problems/hand-in-progress"
        assert hand.server_seed not in response.content.decode()
    look = view(seats[0], match_id).json()
    to_act = look["hand"]["to_act"]
    act(seats[to_act], match_id, kind="pass", expected_seq=look["seq"])
    # After a forfeit the abandoned hand's seed is revealed, and it verifies too.
    resign = seats[0].post(f"/api/v1/matches/{match_id}/resign")
    assert resign.status_code == 200
    body = seats[1].get(f"/api/v1/matches/{match_id}/hands/1/fairness").json()
    assert body["verified"] is True, body["checks"]
    history = _history(seats[1], match_id, 1)
    assert history["status"] == "abandoned"
    assert offline_verifier()["verify_hand"](history) == []
