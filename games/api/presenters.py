"""Turn games rows into the API's shapes (docs/games.md): what each reader may see.

Reads go through ``games.selectors``; this module only builds dicts. Each shape has ONE field
whitelist: the fields its output serializer (``games.api.serializers``) declares. The views
that answer a built dict as is (the game and watch views) send exactly those fields, so a
field the engine adds later can never leave the server by accident; the other views render
through their serializer, which keeps its declared fields only.

Hidden information: everything a player receives about a hand goes through
``games.engine.player_view`` and ``games.engine.event_view`` (a watcher's through
``engine.watcher_view`` and ``event_view(event, None)``). The stored hand state (seed, stock
order, both hands) and the server seed are never returned as such; a seed appears only once
its hand is over.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from rest_framework import serializers as drf

from games import engine, selectors
from games.api.clocks import seat_clocks
from games.api.serializers import (
    HandViewOutput,
    MatchResultOutput,
    ShowdownOutput,
    WatchHandOutput,
)
from games.clock_selectors import auto_moves_follow_r13
from games.models import Hand, HandEvent, Match, Seat, WaitingListEntry
from gin_platform.http.problems import Problem
from gin_platform.models import Player
from gin_platform.money import money_dict
from gin_platform.tenancy.selectors import is_network_operator, network_reveals_operators
from wallet.selectors.rates import display_amount

if TYPE_CHECKING:
    from games.services import ActionResult


def declared_fields(serializer_class: type[drf.Serializer]) -> tuple[str, ...]:
    """The fields an output serializer declares, in order: the whitelist of its shape."""
    return tuple(serializer_class._declared_fields)


HAND_VIEW_KEYS = declared_fields(HandViewOutput)
WATCH_HAND_KEYS = declared_fields(WatchHandOutput)
SHOWDOWN_KEYS = declared_fields(ShowdownOutput)
PUBLIC_RESULT_KEYS = declared_fields(MatchResultOutput)


def _only(view: dict[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    return {key: view[key] for key in keys if key in view}


def money(amount: int | None, currency: str, *, player: Player | None = None) -> dict | None:
    """An amount in the API's shape; with ``player``, also in their display currency (R11:
    ``display``, from the wallet; null for play money or without an exchange rate)."""
    if amount is None:
        return None
    if player is None:
        return money_dict(amount, currency)
    try:
        return display_amount(amount=amount, currency=currency, player=player)
    except Problem:
        return {**money_dict(amount, currency), "display": None}


# --- Who sits there (docs/network.md "Tenancy") ----------------------------------------------
def seat_identity(player: Player, *, match_operator_id: object, viewer: object) -> dict[str, Any]:
    """How a seated player is named to ``viewer`` (an operator's id; None: anybody, such as
    a watcher or the lobby). At an operator's own table: the display name, as always. At a
    network table: the screen name only, unless ``viewer`` is the player's own operator
    (then the display name too); with ``Network.reveal_operators`` also the operator's name
    (never an id or a reference)."""
    network = is_network_operator(match_operator_id)
    own = not network or (viewer is not None and str(player.operator_id) == str(viewer))
    revealed = network and network_reveals_operators()
    return {
        "display_name": player.display_name if own else None,
        "screen_name": player.screen_name,
        "operator": player.operator.name if revealed else None,
    }


# --- Seats ---------------------------------------------------------------------------------
def player_seat(seat: Seat, *, player: Player) -> dict[str, Any]:
    """A seat as its player sees it (``SeatOutput``): amounts also in their display currency
    (R11). ``seat`` comes with its match and table (``select_related`` or just written)."""
    return {
        "id": seat.pk,
        "room_id": seat.table.room_id,
        "table_id": seat.table_id,
        "match_id": seat.match_id,
        "match_status": seat.match.status,
        "position": seat.position,
        "state": seat.state,
        "amount": money(seat.amount, seat.currency, player=player),
        "stake_per_point": money(seat.match.stake_per_point, seat.currency, player=player),
        "created_at": seat.created_at,
        "left_at": seat.left_at,
    }


# --- Matches ---------------------------------------------------------------------------
def match_summary(
    match: Match, *, player: Player | None = None, viewer: object = None
) -> dict[str, Any]:
    """Public facts of a match: who sits where, scores, status and, once over, the result
    (amounts also in ``player``'s display currency). Seated players are named as
    ``seat_identity`` names them to ``viewer`` (an operator's id; by default ``player``'s
    operator; None for anybody)."""
    seats = selectors.match_seats(match)
    if viewer is None and player is not None:
        viewer = player.operator_id
    return {
        "id": match.pk,
        "status": match.status,
        "variant": match.variant,
        "target": match.target,
        "table_id": match.table_id,
        "room_id": match.room_id,
        "currency": match.currency,
        "is_practice": match.is_practice,
        "is_tournament": match.is_tournament,
        "stake": money(match.stake, match.currency, player=player),
        "stake_per_point": money(match.stake_per_point, match.currency, player=player),
        "fee_bps": match.fee_bps,
        "turn_seconds": match.turn_seconds,
        "rules": match.rules,
        "players": [
            {
                "position": seat.position,
                **seat_identity(seat.player, match_operator_id=match.operator_id, viewer=viewer),
                "bot_level": seat.bot_level,
            }
            for seat in seats
        ],
        "seats": match.seat_count,
        "prize_table": match.prize_table,
        # Heads-up: hand points; R12: penalty totals ("points against").
        "hand_points": list(match.points),
        "hands_won": list(match.hands_won),
        "winner_seat": match.winner_seat,
        "forfeit": (
            {"seat": match.forfeit_seat, "reason": match.forfeit_reason}
            if match.forfeit_seat is not None
            else None
        ),
        "forfeits": list(match.forfeits),
        "turn_clock": match.turn_clock_options(),
        "clocks": seat_clocks(match),
        "result": public_result(match),
        "started_at": match.started_at,
        "finished_at": match.finished_at,
    }


def operator_match(match: Match, *, operator_id: object) -> dict[str, Any]:
    """A match as operator ``operator_id`` sees it (from ``selectors.match_list``): the
    summary, who sits where with what in escrow, how many hands were dealt. Never a card. In
    a network game another operator's player has no ``player_id``, only a screen name."""
    summary = match_summary(match, viewer=operator_id)
    summary["seats"] = [
        {
            "position": seat.position,
            "player_id": (
                seat.player_id if str(seat.player.operator_id) == str(operator_id) else None
            ),
            "screen_name": seat.player.screen_name,
            "state": seat.state,
            "amount": money(seat.amount, seat.currency),
        }
        for seat in selectors.match_seats(match)
    ]
    summary["hands_played"] = match.hands_played  # type: ignore[attr-defined]  # an annotation of selectors.match_list: the stubs type a plain Match
    return summary


def public_result(match: Match) -> dict[str, Any] | None:
    """The result of a finished match as both players (and operators) see it."""
    if match.result is None:
        return None
    result = selectors.match_result(match.result)
    public = result.public()
    if isinstance(result, engine.MultiMatchResult):
        # R12: the ranking and the penalty totals; hand_points carries the totals too.
        public = {
            **public,
            "reached_target": None,
            "hand_points": public["penalty_totals"],
            "money_play": None,
            "forfeit": None,
        }
    return {key: public[key] for key in PUBLIC_RESULT_KEYS if key in public}


# --- The game: a player's view, a watcher's view ----------------------------------------
def _rename_seq(view: dict[str, Any]) -> dict[str, Any]:
    """The engine's per-hand ``seq`` is ``state_seq`` in the API: ``seq`` is the match's."""
    view["state_seq"] = view.pop("seq")
    return view


def hand_view(*, hand: Hand, seat: int, match_over: bool) -> dict[str, Any]:
    """``seat``'s view of a hand (engine.player_view), plus the table's facts about it. The
    engine arranges the player's own cards (``melds``, ``deadwood_cards``, ``best_discard``,
    R2) and gives each knock's ``deadwood`` (R6): clients show them and work out nothing.

    An abandoned hand (the match ended by forfeit during it) reveals its seed once the match
    is over, so its deal can be verified like any other (fairness)."""
    view = _rename_seq(engine.player_view(hand.engine_state(), seat))
    view.update(
        {
            "number": hand.number,
            "status": hand.status,
            "seed_commitment": hand.seed_commitment,
            "turn_deadline": hand.turn_deadline,
            "turn_stage": hand.turn_stage,
            "your_turn": hand.status == Hand.Status.IN_PROGRESS and hand.to_act == seat,
        }
    )
    if hand.status == Hand.Status.ABANDONED:
        # The match ended by forfeit mid-hand: nobody may act in it any more.
        view.update({"to_act": None, "legal_actions": []})
        if match_over:
            view.update(_abandoned_showdown(hand))
    return _only(view, HAND_VIEW_KEYS)


def _abandoned_showdown(hand: Hand) -> dict[str, Any]:
    """A hand abandoned by a forfeit, once the game is over: like any finished hand it shows
    both hands and reveals its seed, so its deal can be verified."""
    state = hand.engine_state()
    return {
        "hands": [[str(card) for card in held] for held in state.hands],
        "seed": hand.server_seed,
    }


def showdown_view(*, hand: Hand) -> dict[str, Any]:
    """An ended hand: both arrangements, lay-offs, hand score and the revealed seed, the same
    for both players and for watchers: built from the public view (``engine.watcher_view``),
    so no player's own arrangement is worked out for it. Worked out once per hand instance
    and stored state, since it is the same for every viewer (a push renders it for each
    audience), and once per process for a hand that has ended (``recent_showdowns``); the
    answer is shared, so nobody may change it."""
    kept = hand.__dict__.get("_showdown_view")
    if kept is not None and kept[0] is hand.state:
        return kept[1]
    ended = hand.pk is not None and hand.status == Hand.Status.ENDED
    # An ended hand never changes again; its seed's commitment (a SHA-256) tells it apart
    # from any other hand that could have had its id in a database made anew (tests, demo).
    key = (hand.pk, hand.seq, hand.seed_commitment)
    view = recent_showdowns.get(key) if ended else None
    if view is None:
        view = _only(engine.watcher_view(hand.engine_state()), SHOWDOWN_KEYS)
        view.update({"number": hand.number, "seed_commitment": hand.seed_commitment})
        if ended:
            recent_showdowns.put(key, view)
    hand.__dict__["_showdown_view"] = (hand.state, view)
    return view


class RecentShowdowns:
    """The showdowns of the hands that ended last, by hand: every move of the next hand
    shows the one before it (``previous_hand``), and each move reads that hand again, so
    without these it was parsed and worked out anew for every move's answer and push, 3 %
    of a socket move's web CPU (docs/benchmarks.md). Bounded: the oldest goes first."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._views: dict[tuple[object, ...], dict[str, Any]] = {}
        self._lock = threading.Lock()

    def get(self, key: tuple[object, ...]) -> dict[str, Any] | None:
        return self._views.get(key)

    def clear(self) -> None:
        with self._lock:
            self._views.clear()

    def put(self, key: tuple[object, ...], view: dict[str, Any]) -> None:
        with self._lock:
            self._views[key] = view
            while len(self._views) > self._size:
                del self._views[next(iter(self._views))]


# A running match needs one (its previous hand); a web process plays a few hundred at most.
recent_showdowns = RecentShowdowns(size=2048)


def _is_over(match: Match) -> bool:
    return match.status not in (Match.Status.WAITING, Match.Status.RUNNING)


def _previous_showdown(previous: Hand | None) -> dict[str, Any] | None:
    if previous is None or previous.status != Hand.Status.ENDED:
        return None
    return showdown_view(hand=previous)


def game_view(
    *,
    match: Match,
    seat: int,
    player: Player | None = None,
    latest_hands: Sequence[Hand] = (),
) -> dict[str, Any]:
    """Everything ``seat``'s player may see of the match now (``GameViewOutput``).

    ``seq`` is the match's sequence number: send it back as ``expected_seq`` with the next
    action. ``hand`` is the hand being played (or the last one, once the match is over);
    ``previous_hand`` the showdown of the hand before it.

    ``latest_hands``: the match's newest hands (the two newest, or the only one), newest
    first, when the caller holds them as they were just written (an action's answer); read
    otherwise.
    """
    latest = selectors.latest_hands(match, known=latest_hands)
    current = latest[0] if latest else None
    summary = match_summary(match, player=player)
    summary["your_seat"] = seat
    return {
        "seq": match.seq,
        "match": summary,
        "hand": (
            None
            if current is None
            else hand_view(hand=current, seat=seat, match_over=_is_over(match))
        ),
        "previous_hand": _previous_showdown(latest[1] if len(latest) > 1 else None),
    }


def action_view(result: ActionResult, *, player: Player) -> dict[str, Any]:
    """The mover's game view after an action, built from the rows the action wrote. In a
    game against the house bot the bot may have answered already (eager Celery runs its
    move on commit): the game is read again, so the answer (and its ``seq``) includes it."""
    match, latest_hands = result.match, result.latest_hands
    if match.bot_seat is not None:
        selectors.match_reload(match)
        latest_hands = ()
    return game_view(match=match, seat=result.seat, player=player, latest_hands=latest_hands)


def watcher_hand_view(*, hand: Hand, match_over: bool) -> dict[str, Any]:
    """A hand as a watcher sees it (R11): ``engine.watcher_view`` plus the table's facts."""
    view = _rename_seq(engine.watcher_view(hand.engine_state()))
    view.update(
        {
            "number": hand.number,
            "status": hand.status,
            "seed_commitment": hand.seed_commitment,
            "turn_deadline": hand.turn_deadline,
            "turn_stage": hand.turn_stage,
        }
    )
    if hand.status == Hand.Status.ABANDONED:
        view["to_act"] = None
        if match_over:
            view.update(_abandoned_showdown(hand))
    return _only(view, WATCH_HAND_KEYS)


def watch_view(*, match: Match, latest_hands: Sequence[Hand] = ()) -> dict[str, Any]:
    """Everything a watcher may see of the match now (``WatchViewOutput``): public match
    facts, the hand being played (public part only) and the showdown of the hand before.
    ``latest_hands`` as for ``game_view``."""
    latest = selectors.latest_hands(match, known=latest_hands)
    current = latest[0] if latest else None
    return {
        "seq": match.seq,
        "match": match_summary(match),
        "hand": (
            None if current is None else watcher_hand_view(hand=current, match_over=_is_over(match))
        ),
        "previous_hand": _previous_showdown(latest[1] if len(latest) > 1 else None),
    }


# --- Events ---------------------------------------------------------------------------
def _table_event(row: HandEvent) -> dict[str, Any]:
    """The table's own events carry public facts only (never a card or a seed)."""
    return {"kind": row.kind, "seat": row.seat, "state_seq": row.state_seq, **row.payload}


def event_for_viewer(row: HandEvent, *, hand_number: int, viewer: int | None) -> dict[str, Any]:
    """One event as ``viewer`` (a seat, or None for a watcher) may see it."""
    if row.kind in HandEvent.TABLE_KINDS:
        view = _table_event(row)
    else:
        view = _rename_seq(engine.event_view(selectors.engine_event(row), viewer))
    view.update({"seq": row.match_seq, "hand": hand_number, "created_at": row.created_at})
    if row.payload.get("auto"):  # R13: a turn the platform played for the seat
        view["auto"] = True
    return view


def events_feed(*, match: Match, viewer: int | None, after: int, limit: int) -> dict[str, Any]:
    """``EventsOutput``: the match's events after ``after`` as ``viewer`` may see them, the
    match's ``seq`` now and ``next_after`` to read on."""
    events = [
        event_for_viewer(row, hand_number=row.hand.number, viewer=viewer)
        for row in selectors.match_event_rows(match=match, after=after, limit=limit)
    ]
    return {
        "seq": max(match.seq, events[-1]["seq"] if events else 0),
        "next_after": events[-1]["seq"] if events else max(after, 0),
        "events": events,
    }


# --- Hand history and fairness ------------------------------------------------------------
def _history_event(row: HandEvent, hand_number: int) -> dict[str, Any]:
    """An event of a hand that is over: everything is public, including each stock draw's
    card (the revealed seed gives the whole stock order anyway): as its own seat saw it."""
    return event_for_viewer(row, hand_number=hand_number, viewer=row.seat)


def _hand_points(outcome: dict | None) -> list[int]:
    if outcome is not None and "penalties" in outcome:  # R12: points against, per seat
        return list(outcome["penalties"])
    points = [0, 0]
    if outcome is not None and outcome.get("winner") is not None:
        points[outcome["winner"]] = outcome["points"]
    return points


def hand_history(hand: Hand, rows: Iterable[HandEvent]) -> dict[str, Any]:
    """One hand that is over (``HandHistoryOutput``): events, both arrangements, lay-offs,
    score, final hands, what was left of the stock and the revealed seed."""
    state = hand.engine_state()
    return {
        "number": hand.number,
        "status": hand.status,
        "dealer": hand.dealer,
        "seed_commitment": hand.seed_commitment,
        "seed": hand.server_seed,
        "outcome": hand.outcome,
        "points": _hand_points(hand.outcome),
        "hands": [[str(card) for card in held] for held in state.hands],
        # R12: the seats that forfeited and their dead cards (empty heads-up).
        "out": list(getattr(state, "out", ())),
        "dead": [str(card) for card in getattr(state, "dead", ())],
        "knock_card": None if state.knock_card is None else str(state.knock_card),
        "discard_pile": [str(card) for card in state.discard_pile],
        "stock": [str(card) for card in state.stock],
        "started_at": hand.created_at,
        "ended_at": hand.ended_at,
        "events": [_history_event(row, hand.number) for row in rows],
    }


def match_hand_history(*, match: Match) -> dict[str, Any]:
    """``HandHistoryListOutput``: every hand of the match that is over."""
    hands = list(selectors.history_hands(match))
    events = selectors.hand_events(hands)
    return {"match_id": match.pk, "hands": [hand_history(h, events[h.pk]) for h in hands]}


def finished_hand_history(*, match: Match, number: object) -> dict[str, Any]:
    hand = selectors.finished_hand_get(match=match, number=number)
    return hand_history(hand, selectors.hand_events([hand])[hand.pk])


def dealt_cards(history: dict[str, Any], *, stock_size: int) -> dict[str, Any]:
    """The deal as the recorded play shows it, worked back from a hand's history: each
    player's final cards, plus what they put down (discards, knock card), minus what they
    picked up (stock, upcard, discard pile); the stock as drawn, followed by what was left
    of it (R7 reshuffles go under the original stock, so its first ``stock_size`` cards are
    the dealt stock); the upcard as dealt face up. ``consistent`` is False if the record cannot be a
    deal (a card held twice or given up without being held)."""
    held: list[Counter[str]] = [Counter(cards) for cards in history["hands"]]
    draws: list[str] = []
    upcard = None
    for event in history["events"]:
        kind, seat, card = event["kind"], event["seat"], event.get("card")
        if kind == HandEvent.DEALT:
            upcard = event.get("upcard")
        elif kind in ("draw_stock", "take_upcard", "draw_discard"):
            held[seat][card] -= 1
            if kind == "draw_stock":
                draws.append(card)
        elif kind in ("discard", "knock"):
            held[seat][card] += 1
    # R12: a seat that forfeited during the hand holds nothing at its end (its cards went
    # dead), so its own record cannot be worked back; the other seats' can.
    out = history.get("out", ())
    consistent = all(
        n in (0, 1) for seat, counts in enumerate(held) if seat not in out for n in counts.values()
    )
    hands = [
        engine.sort_by_suit(engine.parse_card(card) for card, n in counts.items() if n > 0)
        for counts in held
    ]
    return {
        "hands": [[str(card) for card in cards] for cards in hands],
        "upcard": upcard,
        "stock": (draws + history["stock"])[:stock_size],
        "consistent": consistent,
    }


def hand_fairness(*, match: Match, number: object) -> dict[str, Any]:
    """``FairnessOutput``: re-derive the deck from the revealed seed and check it against the
    commitment published before the deal and against the cards actually dealt (the first
    dealer, both hands, the upcard and the stock order). 409 while the hand is played."""
    hand = selectors.finished_hand_get(match=match, number=number)
    history = hand_history(hand, selectors.hand_events([hand])[hand.pk])
    seed = hand.server_seed
    deck = [str(card) for card in engine.shuffled_deck(seed)]
    # R3 as the engine deals it from this seed: both hands, the upcard, the stock.
    rules = engine.RuleSet.from_dict(hand.state["rules"])
    out = selectors.out_at_deal(hand) if rules.is_multi else ()  # R12: dead seats
    dealt_by_seed = engine.deal(seed=seed, dealer=hand.dealer, rules=rules, out=out)
    expected = [[str(card) for card in held] for held in dealt_by_seed.hands]
    dealer = hand.dealer
    dealt = dealt_cards(history, stock_size=len(dealt_by_seed.stock))
    checks = {
        "commitment": engine.verify_deck(seed, hand.seed_commitment),
        "dealer": selectors.expected_dealer(hand) == dealer,
        "hands": dealt["consistent"]
        # R12: a seat that forfeited holds no cards at the end (they went dead): the check
        # covers the seats still in at the end of the hand.
        and all(
            set(expected[seat]) == set(dealt["hands"][seat])
            for seat in range(len(expected))
            if seat not in history["out"]
        ),
        "upcard": dealt["upcard"] == str(dealt_by_seed.discard_pile[0]),
        "stock": dealt["stock"] == [str(card) for card in dealt_by_seed.stock],
        "auto_play": auto_moves_follow_r13(hand),
    }
    return {
        "match_id": match.pk,
        "number": hand.number,
        "seed": seed,
        "seed_commitment": hand.seed_commitment,
        "dealer": dealer,
        "first_dealer": engine.first_dealer(seed) if hand.number == 1 else None,
        "deck": deck,
        "dealt": {key: dealt[key] for key in ("hands", "upcard", "stock")},
        "checks": checks,
        "verified": all(checks.values()),
    }


# --- The waiting list ---------------------------------------------------------------------------
def waiting_list_entry(entry: WaitingListEntry, *, player: Player) -> dict[str, Any]:
    """A waiting-list entry as its player sees it (``WaitingListEntryOutput``); amounts also
    in their display currency."""
    currency, seat = entry.room.currency, entry.seat
    return {
        "id": entry.pk,
        "room_id": entry.room_id,
        "status": entry.status,
        "stake_per_point": money(entry.stake_per_point, currency, player=player),
        "cashier_amount": money(entry.cashier_amount, currency, player=player),
        "seat": (
            None
            if seat is None
            else {"table_id": seat.table_id, "match_id": seat.match_id, "position": seat.position}
        ),
        "problem_type": entry.problem_type or None,
        "created_at": entry.created_at,
        "expires_at": entry.expires_at,
        "ended_at": entry.ended_at,
    }
