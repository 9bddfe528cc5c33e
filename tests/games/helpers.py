"""Playing whole games through the REST API, and checking what each response reveals."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from games import engine, selectors
from games.models import Hand, HandEvent, Match, Seat
from gin_platform.models import AuditEvent

CARD_TOKEN = re.compile(r"^(?:[A2-9TJQK]|10)[SHDC]$")


def sit(client, table_id: int, **body):
    return client.post(f"/api/v1/tables/{table_id}/sit", body, format="json")


def view(client, match_id: int):
    return client.get(f"/api/v1/matches/{match_id}/view")


def act(client, match_id: int, *, kind: str, card: str | None = None, expected_seq: int):
    return client.post(
        f"/api/v1/matches/{match_id}/actions",
        {"kind": kind, "card": card, "expected_seq": expected_seq},
        format="json",
    )


def watch(client, match_id: int):
    return client.get(f"/api/v1/matches/{match_id}/watch")


def watch_events(client, match_id: int, after: int = 0):
    return client.get(f"/api/v1/matches/{match_id}/watch/events?after={after}")


def events(client, match_id: int, after: int = 0, limit: int | None = None):
    query = f"?after={after}" + (f"&limit={limit}" if limit else "")
    return client.get(f"/api/v1/matches/{match_id}/events{query}")


def card_tokens(data: Any) -> set[str]:
    """Every card token (R1 text) anywhere in a JSON document."""
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
        elif isinstance(node, str) and CARD_TOKEN.match(node.upper()):
            found.add(str(engine.parse_card(node)))

    walk(data)
    return found


def json_keys(node: Any) -> set[str]:
    """Every key of every object in a JSON body, at any depth."""
    if isinstance(node, dict):
        return set(node) | {key for value in node.values() for key in json_keys(value)}
    if isinstance(node, list):
        return {key for value in node for key in json_keys(value)}
    return set()


def about_hand(body: Any, number: int) -> Any:
    """The parts of a response that may concern hand ``number``: the showdown of the
    previous (ended) hand and events of other hands are left out."""
    if not isinstance(body, dict):
        return body
    scoped = {key: value for key, value in body.items() if key != "previous_hand"}
    if isinstance(scoped.get("events"), list):
        scoped["events"] = [event for event in scoped["events"] if event.get("hand") == number]
    return scoped


@dataclass
class HiddenInformationChecker:
    """Checks a response to the player at ``seat`` against the database right after it.

    For each hand still in progress: the response holds no card of the stock, no card of the
    opponent's hand that was never public (upcard, discards and cards taken from the pile are
    public), and not the hand's server seed. With three and four seats (R12): no card of any
    other seat's hand, and none of the dead cards of a seat that forfeited. Parts of the
    response about hands that are over (the previous hand's showdown, events of ended hands)
    may reveal everything.
    """

    match_id: int
    responses_checked: int = 0
    upcards: dict | None = None

    def check(self, response, seat: int | None) -> None:
        """``seat`` None: a watcher, who may see no card of either hand (R11)."""
        text = response.content.decode()
        body = json.loads(text) if text else None
        for hand in Hand.objects.filter(match_id=self.match_id, status="in_progress"):
            state = engine.state_from_json(hand.state)
            assert hand.server_seed not in text, "the server seed leaked before the hand ended"
            secret = self._secret_cards(hand, state, seat)
            leaked = card_tokens(about_hand(body, hand.number)) & secret
            assert not leaked, f"hidden cards leaked to seat {seat}: {sorted(leaked)}"
        self.responses_checked += 1

    def _secret_cards(self, hand: Hand, state: engine.HandState, seat: int | None) -> set[str]:
        if self.upcards is None:
            self.upcards = {}
        if hand.pk not in self.upcards:
            rules = engine.RuleSet.from_dict(hand.state["rules"])
            out = selectors.out_at_deal(hand) if rules.is_multi else ()
            dealt = engine.deal(seed=hand.server_seed, dealer=hand.dealer, rules=rules, out=out)
            self.upcards[hand.pk] = {str(card) for card in dealt.discard_pile}
        public = {str(card) for card in state.discard_pile} | self.upcards[hand.pk]
        shown = HandEvent.objects.filter(
            hand=hand, kind__in=("discard", "take_upcard", "draw_discard", "knock")
        )
        public |= {payload["card"] for payload in shown.values_list("payload", flat=True)}
        every_seat = range(len(state.hands))
        hidden_seats = [other for other in every_seat if other != seat]
        opponent = {str(card) for other in hidden_seats for card in state.hands[other]}
        stock = {str(card) for card in state.stock}
        dead = {str(card) for card in getattr(state, "dead", ())}  # R12: out of play, unseen
        return (opponent | stock | dead) - public


class Seats:
    """The two players of a match, by seat position."""

    def __init__(self, clients_by_seat: dict[int, Any]) -> None:
        self.clients = clients_by_seat

    def __getitem__(self, seat: int):
        return self.clients[seat]


def seat_both(first, second, table_id: int, **body) -> tuple[int, Seats]:
    """Sit two players down; return the match id and the clients by seat position."""
    one = sit(first, table_id, **body)
    assert one.status_code == 201, one.json()
    two = sit(second, table_id, **body)
    assert two.status_code == 201, two.json()
    one, two = one.json(), two.json()
    assert one["match_id"] == two["match_id"]
    return one["match_id"], Seats({one["position"]: first, two["position"]: second})


@dataclass
class PlayedGame:
    match_id: int
    actions: int
    final_views: dict[int, dict]
    responses: int


def play_to_end(
    seats: Seats,
    match_id: int,
    *,
    checker: HiddenInformationChecker | None = None,
    max_actions: int = 5_000,
    on_response: Callable[[Any, int], None] | None = None,
    policy: Callable[[dict], dict] = engine.choose_action_from_view,
) -> PlayedGame:
    """Both players play (by default with the engine's bot) from their own views only, until
    the match ends. Every response (views, actions, events feeds) goes through ``checker``.
    """
    responses = 0
    positions = sorted(seats.clients)  # two seats, or three or four (R12)
    after = dict.fromkeys(positions, 0)

    def record(response, seat: int) -> None:
        nonlocal responses
        responses += 1
        if checker is not None:
            checker.check(response, seat)
        if on_response is not None:
            on_response(response, seat)

    for count in range(max_actions):
        looks = {}
        for seat in positions:
            response = view(seats[seat], match_id)
            assert response.status_code == 200, response.json()
            record(response, seat)
            looks[seat] = response.json()
            feed = events(seats[seat], match_id, after=after[seat])
            assert feed.status_code == 200
            record(feed, seat)
            after[seat] = feed.json()["next_after"]
        if looks[positions[0]]["match"]["status"] != Match.Status.RUNNING:
            return PlayedGame(match_id, count, looks, responses)
        to_act = looks[positions[0]]["hand"]["to_act"]
        mine = looks[to_act]
        assert mine["hand"]["your_turn"]
        assert not any(looks[other]["hand"]["your_turn"] for other in positions if other != to_act)
        move = policy(mine["hand"])  # a legal action as offered (a knock says its deadwood)
        response = act(
            seats[to_act], match_id, kind=move["kind"], card=move["card"], expected_seq=mine["seq"]
        )
        assert response.status_code == 200, response.json()
        record(response, to_act)
    raise AssertionError(f"match {match_id} did not end within {max_actions} actions")


def never_going_out(hand_view: dict) -> dict:
    """The bot, minus knocking and Big Gin: the hand runs the stock down (R7)."""
    legal = [a for a in hand_view["legal_actions"] if a["kind"] not in ("knock", "big_gin")]
    return engine.choose_action_from_view({**hand_view, "legal_actions": legal})


def passive_for_hands(count: int) -> Callable[[dict], dict]:
    """Never go out in the first ``count`` hands, then play the bot."""

    def policy(hand_view: dict) -> dict:
        if hand_view["number"] <= count:
            return never_going_out(hand_view)
        return engine.choose_action_from_view(hand_view)

    return policy


def snapshot(match_id: int) -> dict[str, Any]:
    """Everything an action could change, to show that a refused one changed nothing."""
    return {
        "match": Match.objects.filter(pk=match_id).values().get(),
        "hands": list(Hand.objects.filter(match_id=match_id).order_by("pk").values()),
        "events": list(HandEvent.objects.filter(match_id=match_id).order_by("pk").values()),
        "seats": list(Seat.objects.filter(match_id=match_id).order_by("pk").values()),
        "audit": AuditEvent.objects.count(),
    }
