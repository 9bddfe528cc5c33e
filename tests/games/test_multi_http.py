"""Whole three- and four-player games (R12) over HTTP, First To Knock and Match Play, each
player choosing moves with the engine's bot from their own view only. EVERY response (each
seat's view and events feed, every action's answer, a watcher's view and feed, a resignation)
is checked against the database for hidden information: a player sees their own hand and
every other seat's card count only; a watcher sees no hand; the feed hides other players'
drawn cards. Forfeits are included, and the settlement adds up to the minor unit."""

from __future__ import annotations

import pytest

from games import engine, selectors, services
from games.models import Hand, Match
from settlement import services as settlement_services
from tests.factories import SYSTEM
from tests.games.factories import TableFactory
from tests.games.helpers import (
    HiddenInformationChecker,
    act,
    events,
    sit,
    view,
    watch,
    watch_events,
)
from tests.wallet.factories import fund
from wallet.selectors import balances, reconciliation

pytestmark = pytest.mark.django_db


def make_room(operator, *, seats, variant, prize_table=None):
    return services.room_create(
        operator=operator,
        name=f"{seats} players",
        variant=variant,
        currency=operator.base_currency,
        stake=777,
        fee_bps=250,
        seats=seats,
        prize_table=prize_table,
        actor=SYSTEM,
    )


def seat_everybody(clients, table_id: int) -> tuple[int, dict]:
    by_seat = {}
    match_id = None
    for client in clients:
        response = sit(client, table_id)
        assert response.status_code == 201, response.json()
        body = response.json()
        match_id = body["match_id"]
        by_seat[body["position"]] = client
    return match_id, by_seat


def check_player_view(body: dict, seat: int, seats: int) -> None:
    """R12: own cards; the others' card counts only."""
    hand = body["hand"]
    assert body["match"]["seats"] == seats and body["match"]["your_seat"] == seat
    if hand is None or hand["status"] != Hand.Status.IN_PROGRESS:
        return
    assert "hands" not in hand and "seed" not in hand and "dead" not in hand
    assert len(hand["card_counts"]) == seats
    assert hand["card_counts"][seat] == len(hand["hand"])
    for other in hand["out"]:
        assert hand["card_counts"][other] == 0


def play_http(
    by_seat: dict,
    watcher,
    match_id: int,
    checker: HiddenInformationChecker,
    *,
    resign_at: dict[int, int] | None = None,
    max_rounds: int = 3000,
) -> dict:
    """The seat to act reads its view and plays the bot from it; each round one other seat
    in turn reads its view and its events feed, and the watcher its view and feed, so every
    seat reads the game throughout while a round stays a handful of requests. Every response
    goes through ``checker``. ``resign_at``: {round: seat} resignations over HTTP. Returns
    every seat's view once the game is over."""
    resign_at = dict(resign_at or {})
    positions = sorted(by_seat)
    after = dict.fromkeys([*positions, None], 0)
    seats = len(positions)

    def look(seat: int) -> dict:
        response = view(by_seat[seat], match_id)
        assert response.status_code == 200, response.json()
        checker.check(response, seat)
        body = response.json()
        check_player_view(body, seat, seats)
        return body

    def read_feed(seat: int | None) -> None:
        client = watcher if seat is None else by_seat[seat]
        reader = watch_events if seat is None else events
        feed = reader(client, match_id, after=after[seat])
        assert feed.status_code == 200
        checker.check(feed, seat)
        after[seat] = feed.json()["next_after"]

    for round_number in range(max_rounds):
        reader = positions[round_number % seats]
        looks = {reader: look(reader)}
        read_feed(reader)
        watched = watch(watcher, match_id)
        assert watched.status_code == 200
        checker.check(watched, None)
        hand = watched.json()["hand"]
        if hand is not None and hand["status"] == Hand.Status.IN_PROGRESS:
            assert "hand" not in hand and "hands" not in hand and "legal_actions" not in hand
        read_feed(None)
        if watched.json()["match"]["status"] != Match.Status.RUNNING:
            for seat in positions:  # everybody reads the end
                looks[seat] = look(seat)
                read_feed(seat)
            return looks
        if round_number in resign_at:
            seat = resign_at.pop(round_number)
            response = by_seat[seat].post(f"/api/v1/matches/{match_id}/resign", {}, format="json")
            assert response.status_code == 200, response.json()
            checker.check(response, seat)
            continue
        to_act = hand["to_act"]
        mine = looks[to_act] if to_act in looks else look(to_act)
        assert mine["hand"]["your_turn"]
        move = engine.choose_action_from_view(mine["hand"])
        response = act(
            by_seat[to_act],
            match_id,
            kind=move["kind"],
            card=move["card"],
            expected_seq=mine["seq"],
        )
        assert response.status_code == 200, response.json()
        checker.check(response, to_act)
    raise AssertionError("the game did not end")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("seats", "variant", "prize_table", "resign_at"),
    [
        pytest.param(3, "ftk", None, {}, id="3-ftk"),
        pytest.param(4, "ftk", None, {1: 2}, id="4-ftk-resign"),
        pytest.param(3, "match", "70_30", {}, id="3-match-70_30"),
        pytest.param(4, "match", "50_30_20", {6: 1}, id="4-match-50_30_20-resign"),
    ],
)
def test_a_whole_game_over_http_hides_every_other_hand(
    operator, make_player_client, seeds, seats, variant, prize_table, resign_at
):
    options = {"seats": seats, "variant": variant, "prize_table": prize_table}
    table = TableFactory(room=make_room(operator, **options))
    clients = [make_player_client(display_name=f"P{n}") for n in range(seats)]
    for client in clients:
        fund(client.player, 10**6)
    watcher = make_player_client(display_name="Watcher")
    total_before = sum(balances.wallet_balance(player=c.player) for c in clients)
    match_id, by_seat = seat_everybody(clients, table.pk)
    checker = HiddenInformationChecker(match_id)
    looks = play_http(by_seat, watcher, match_id, checker, resign_at=resign_at)
    assert checker.responses_checked > 20
    match = Match.objects.get(pk=match_id)
    result = selectors.match_result(match.result)
    summary = looks[0]["match"]
    assert summary["result"]["ranking"] == result.ranking.to_list()
    assert summary["hand_points"] == list(result.penalty_totals)
    assert [entry["seat"] for entry in summary["forfeits"]] == list(resign_at.values())
    for seat in resign_at.values():
        assert result.ranking.groups[-1] == (seat,)
    # Once over, the last hand's showdown shows every player's cards and the seed.
    last = looks[0]["hand"]
    assert last["status"] in (Hand.Status.ENDED, Hand.Status.ABANDONED)
    assert len(last["hands"]) == seats and "seed" in last
    settlement = settlement_services.game_settle(match_id=match_id)
    total_after = sum(balances.wallet_balance(player=c.player) for c in clients)
    assert total_before - total_after == settlement.fee == result.fee
    assert settlement.fee == 777 * seats * 250 // 10_000
    for seat, client in by_seat.items():
        mine = balances.wallet_balance(player=client.player)
        assert mine == 10**6 - 777 + result.payouts[seat]
    assert reconciliation.reconcile().ok


def test_the_room_api_takes_seats_and_a_prize_table(operator_client):
    response = operator_client.post(
        "/api/v1/rooms",
        {
            "name": "Four",
            "variant": "match",
            "stake": "5.00",
            "seats": 4,
            "prize_table": "65_35",
        },
        format="json",
        HTTP_IDEMPOTENCY_KEY="four-seats",
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["seats"], body["prize_table"], body["target"]) == (4, "65_35", 100)
    assert body["rules"]["seats"] == 4
    refused = operator_client.post(
        "/api/v1/rooms",
        {"name": "Money", "variant": "money", "seats": 3, "stake_per_point_choices": ["0.10"]},
        format="json",
        HTTP_IDEMPOTENCY_KEY="money-three",
    )
    assert refused.status_code == 422
    assert refused.json()["field"] == "seats"


def test_the_lobby_shows_the_free_seats_of_a_four_seat_table(operator, make_player_client):
    table = TableFactory(room=make_room(operator, seats=4, variant="ftk"))
    alice = make_player_client(display_name="Alice")
    fund(alice.player, 10**5)
    assert sit(alice, table.pk).status_code == 201
    lobby = alice.get("/api/v1/lobby")
    assert lobby.status_code == 200, lobby.json()
    rooms = [room for room in lobby.json()["results"] if room["id"] == table.room_id]
    (room,) = rooms
    assert room["seats"] == 4 and room["prize_table"] == "winner_takes_all"
    shown = next(t for t in room["tables"] if t["id"] == table.pk)
    assert shown["free_seats"] == 3 and len(shown["seats"]) == 4
