"""Reads of the games app, scoped to the caller's operator (another operator's room, table or
match is reported exactly like a missing one: 404).

Hidden information (ARCHITECTURE §4): everything a player receives about a hand goes through
``games.engine.player_view`` and ``games.engine.event_view``. The stored hand state (seed,
stock order, both hands) and the server seed are never returned as such; a seed appears only
once its hand is over.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from django.db.models import Count, Prefetch, QuerySet

from games import engine
from games.models import Hand, HandEvent, Match, Room, Seat, Table
from games.problems import HandInProgressProblem
from gin_platform.models import Operator, Player
from gin_platform.money import money_dict
from gin_platform.problems import NotFoundProblem, Problem
from gin_platform.selectors import MAX_ID, as_id
from wallet import services as wallet

EVENTS_PAGE_DEFAULT, EVENTS_PAGE_MAX = 100, 500


def money(amount: int | None, currency: str, *, player: Player | None = None) -> dict | None:
    """An amount in the API's shape; with ``player``, also in their display currency (R11:
    ``display``, from the wallet; null for play money or without an exchange rate)."""
    if amount is None:
        return None
    if player is None:
        return money_dict(amount, currency)
    try:
        return wallet.display_amount(amount=amount, currency=currency, player=player)
    except Problem:
        return {**money_dict(amount, currency), "display": None}


# --- Rooms and tables ---------------------------------------------------------------------
def room_list(*, operator: Operator, active: bool | None = None) -> QuerySet[Room]:
    rooms = Room.objects.filter(operator=operator).annotate(table_count=Count("tables"))
    if active is not None:
        rooms = rooms.filter(active=active)
    return rooms


def room_get(*, operator: Operator, room_id: object) -> Room:
    room = room_list(operator=operator).filter(pk=as_id(room_id)).first()
    if room is None:
        raise NotFoundProblem(f"No room {room_id} for this operator")
    return room


def table_get(*, operator: Operator, table_id: object) -> Table:
    table = (
        Table.objects.select_related("room")
        .filter(room__operator=operator, pk=as_id(table_id))
        .first()
    )
    if table is None:
        raise NotFoundProblem(f"No table {table_id} for this operator")
    return table


def lobby_rooms(*, operator: Operator) -> QuerySet[Room]:
    """Active rooms with their open tables, each with its game (if any) and seated players."""
    seats = Seat.objects.filter(state__in=Seat.ACTIVE_STATES).select_related("player")
    open_matches = Match.objects.filter(
        status__in=(Match.Status.WAITING, Match.Status.RUNNING)
    ).prefetch_related(Prefetch("seats", queryset=seats, to_attr="active_seats"))
    tables = Table.objects.filter(status=Table.Status.OPEN).prefetch_related(
        Prefetch("matches", queryset=open_matches, to_attr="open_matches")
    )
    return Room.objects.filter(operator=operator, active=True).prefetch_related(
        Prefetch("tables", queryset=tables, to_attr="open_tables")
    )


def lobby_room_get(*, operator: Operator, room_id: object) -> Room:
    room = lobby_rooms(operator=operator).filter(pk=as_id(room_id)).first()
    if room is None:
        raise NotFoundProblem(f"No open room {room_id}")
    return room


def lobby_room(room: Room, *, player: Player) -> dict[str, Any]:
    """A room as the lobby shows it to ``player`` (from ``lobby_rooms``' prefetches)."""
    tables = [lobby_table(table, player=player) for table in room.open_tables]
    currency = room.currency
    return {
        "id": room.pk,
        "name": room.name,
        "variant": room.variant,
        "rules": room.rules,
        "target": room.target,
        "currency": currency,
        "is_practice": room.is_practice,
        "bot_enabled": room.bot_enabled,
        "fee_bps": room.fee_bps,
        "turn_seconds": room.turn_seconds,
        "stake": money(room.stake, currency, player=player),
        "stake_per_point_choices": [
            money(choice, currency, player=player) for choice in room.stake_per_point_choices
        ],
        "cashier_min": money(room.cashier_min, currency, player=player),
        "cashier_max": money(room.cashier_max, currency, player=player),
        "free_seats": sum(table["free_seats"] for table in tables),
        "tables": tables,
    }


def lobby_table(table: Table, *, player: Player) -> dict[str, Any]:
    """A table as the lobby shows it (from ``lobby_rooms``' prefetches)."""
    match = table.open_matches[0] if table.open_matches else None
    seats = sorted(match.active_seats, key=lambda seat: seat.position) if match else []
    taken = {seat.position: seat for seat in seats}
    running = match is not None and match.status == Match.Status.RUNNING
    return {
        "id": table.pk,
        "state": "playing" if running else ("waiting" if seats else "empty"),
        "match_id": match.pk if match else None,
        "free_seats": 0 if running else 2 - len(seats),
        "stake_per_point": (
            money(match.stake_per_point, match.currency, player=player) if match else None
        ),
        "seats": [
            {
                "position": position,
                "display_name": taken[position].player.display_name if position in taken else None,
            }
            for position in (0, 1)
        ],
    }


def player_seats(*, player: Player) -> QuerySet[Seat]:
    """The player's seats at tables right now (waiting or playing)."""
    return Seat.objects.select_related("match", "table").filter(
        player=player, state__in=Seat.ACTIVE_STATES
    )


# --- Matches ---------------------------------------------------------------------------
def _shown_seats() -> Prefetch:
    seats = Seat.objects.exclude(state=Seat.State.LEFT).select_related("player")
    return Prefetch("seats", queryset=seats.order_by("position"), to_attr="shown_seats")


def match_list(
    *, operator: Operator, status: str | None = None, room_id: int | None = None
) -> QuerySet[Match]:
    """The operator's matches, with their seats and hand counts (no cards)."""
    matches = (
        Match.objects.filter(operator=operator)
        .annotate(hands_played=Count("hands"))
        .prefetch_related(_shown_seats())
    )
    if status:
        matches = matches.filter(status=status)
    if room_id is not None:
        matches = matches.filter(room_id=room_id)
    return matches


def match_get(*, operator: Operator, match_id: object) -> Match:
    match = match_list(operator=operator).filter(pk=as_id(match_id)).first()
    if match is None:
        raise NotFoundProblem(f"No match {match_id} for this operator")
    return match


def player_match_seat(*, player: Player, match_id: object) -> Seat:
    """The player's seat in the match (the latest, if they sat more than once before it
    started), with the match and its seated players loaded in the same query. Only the
    match's players may see it; for anybody else it does not exist."""
    seats = list(
        Seat.objects.select_related("match", "player")
        .filter(match_id=as_id(match_id), match__operator_id=player.operator_id)
        .order_by("pk")
    )
    return own_seat(seats, player=player, match_id=match_id)


def own_seat(seats: Sequence[Seat], *, player: Player, match_id: object) -> Seat:
    """``player``'s seat among a match's ``seats`` (in primary-key order, each with its
    match and player loaded), its match carrying the seats shown to the players
    (``shown_seats``). 404 when the player holds none of them."""
    mine = [seat for seat in seats if seat.player_id == player.pk]
    if not mine:
        raise NotFoundProblem(f"No match {match_id} of yours")
    seat = mine[-1]
    seat.match.shown_seats = sorted(
        (other for other in seats if other.state != Seat.State.LEFT),
        key=lambda other: other.position,
    )
    return seat


def _match_seats(match: Match) -> list[Seat]:
    if hasattr(match, "shown_seats"):
        return match.shown_seats
    return list(
        Seat.objects.filter(match=match)
        .exclude(state=Seat.State.LEFT)
        .select_related("player")
        .order_by("position")
    )


def match_summary(match: Match, *, player: Player | None = None) -> dict[str, Any]:
    """Public facts of a match: who sits where, scores, status and, once over, the result
    (amounts also in ``player``'s display currency)."""
    seats = _match_seats(match)
    return {
        "id": match.pk,
        "status": match.status,
        "variant": match.variant,
        "target": match.target,
        "table_id": match.table_id,
        "room_id": match.room_id,
        "currency": match.currency,
        "is_practice": match.is_practice,
        "stake": money(match.stake, match.currency, player=player),
        "stake_per_point": money(match.stake_per_point, match.currency, player=player),
        "fee_bps": match.fee_bps,
        "turn_seconds": match.turn_seconds,
        "rules": match.rules,
        "players": [
            {"position": seat.position, "display_name": seat.player.display_name} for seat in seats
        ],
        "hand_points": list(match.points),
        "hands_won": list(match.hands_won),
        "winner_seat": match.winner_seat,
        "forfeit": (
            {"seat": match.forfeit_seat, "reason": match.forfeit_reason}
            if match.forfeit_seat is not None
            else None
        ),
        "result": public_result(match),
        "started_at": match.started_at,
        "finished_at": match.finished_at,
    }


PUBLIC_RESULT_KEYS = (
    "reason",
    "winner_seat",
    "reached_target",
    "hand_points",
    "hands_won",
    "hands_played",
    "target",
    "money_play",
    "forfeit",
)


def operator_match(match: Match) -> dict[str, Any]:
    """A match as its operator sees it (from ``match_list``): the summary, who sits where with
    what in escrow, how many hands were dealt. Never a card."""
    summary = match_summary(match)
    summary["seats"] = [
        {
            "position": seat.position,
            "player_id": seat.player_id,
            "state": seat.state,
            "amount": money(seat.amount, seat.currency),
        }
        for seat in _match_seats(match)
    ]
    summary["hands_played"] = match.hands_played
    return summary


def public_result(match: Match) -> dict[str, Any] | None:
    """The result of a finished match as both players (and operators) see it."""
    if match.result is None:
        return None
    return {key: match.result[key] for key in PUBLIC_RESULT_KEYS}


def _hand_state(hand: Hand) -> engine.HandState:
    return engine.state_from_json(hand.state)


def _rename_seq(view: dict[str, Any]) -> dict[str, Any]:
    """The engine's per-hand ``seq`` is ``state_seq`` in the API: ``seq`` is the match's."""
    view["state_seq"] = view.pop("seq")
    return view


# Exactly the fields of api.serializers.HandViewOutput: nothing else of the engine's view
# leaves the server (a field the engine adds later cannot leak by accident).
HAND_VIEW_KEYS = (
    "number",
    "status",
    "seed_commitment",
    "turn_deadline",
    "your_turn",
    "phase",
    "to_act",
    "dealer",
    "state_seq",
    "seat",
    "hand",
    "deadwood",
    "opponent_card_count",
    "discard_pile",
    "stock_count",
    "card_counts",
    "upcard_passes",
    "taken_from_discard",
    "reshuffles",
    "rules",
    "legal_actions",
    "outcome",
    "hands",
    "knock_card",
    "seed",
)


def hand_view(*, hand: Hand, seat: int, match_over: bool) -> dict[str, Any]:
    """``seat``'s view of a hand (engine.player_view), plus the table's facts about it.

    An abandoned hand (the match ended by forfeit during it) reveals its seed once the match
    is over, so its deal can be verified like any other (issue 7 fairness)."""
    view = _rename_seq(engine.player_view(_hand_state(hand), seat))
    view.update(
        {
            "number": hand.number,
            "status": hand.status,
            "seed_commitment": hand.seed_commitment,
            "turn_deadline": hand.turn_deadline,
            "your_turn": hand.status == Hand.Status.IN_PROGRESS and hand.to_act == seat,
        }
    )
    if hand.status == Hand.Status.ABANDONED:
        # The match ended by forfeit mid-hand: nobody may act in it any more.
        view.update({"to_act": None, "legal_actions": []})
        if match_over:
            view.update(_abandoned_showdown(hand))
    return {key: view[key] for key in HAND_VIEW_KEYS if key in view}


def _abandoned_showdown(hand: Hand) -> dict[str, Any]:
    """A hand abandoned by a forfeit, once the game is over: like any finished hand it shows
    both hands and reveals its seed, so its deal can be verified."""
    state = _hand_state(hand)
    return {
        "hands": [[str(card) for card in held] for held in state.hands],
        "seed": hand.server_seed,
    }


SHOWDOWN_KEYS = ("outcome", "hands", "knock_card", "seed", "dealer", "discard_pile")


def showdown_view(*, hand: Hand, seat: int | None) -> dict[str, Any]:
    """An ended hand: both arrangements, lay-offs, hand score and the revealed seed (the
    same for both players and for watchers, ``seat=None``)."""
    state = _hand_state(hand)
    full = engine.watcher_view(state) if seat is None else engine.player_view(state, seat)
    view = {key: full[key] for key in SHOWDOWN_KEYS if key in full}
    view.update({"number": hand.number, "seed_commitment": hand.seed_commitment})
    return view


def game_view(
    *,
    match: Match,
    seat: int,
    player: Player | None = None,
    latest_hands: Sequence[Hand] = (),
) -> dict[str, Any]:
    """Everything ``seat``'s player may see of the match now (issue 5 item 4).

    ``seq`` is the match's sequence number: send it back as ``expected_seq`` with the next
    action. ``hand`` is the hand being played (or the last one, once the match is over);
    ``previous_hand`` the showdown of the hand before it.

    ``latest_hands``: the match's newest hands (the two newest, or the only one), newest
    first, when the caller holds them as they were just written (an action's answer); read
    here otherwise.
    """
    latest = _latest_hands(match, latest_hands)
    over = match.status not in (Match.Status.WAITING, Match.Status.RUNNING)
    current = latest[0] if latest else None
    previous = latest[1] if len(latest) > 1 else None
    summary = match_summary(match, player=player)
    summary["your_seat"] = seat
    return {
        "seq": match.seq,
        "match": summary,
        "hand": None if current is None else hand_view(hand=current, seat=seat, match_over=over),
        "previous_hand": (
            None
            if previous is None or previous.status != Hand.Status.ENDED
            else showdown_view(hand=previous, seat=seat)
        ),
    }


def _latest_hands(match: Match, known: Sequence[Hand]) -> list[Hand]:
    """The match's two newest hands, newest first, reading only those ``known`` lacks."""
    if not known:
        return list(Hand.objects.filter(match=match).order_by("-number")[:2])
    latest = list(known[:2])
    if len(latest) == 1 and latest[0].number > 1:
        latest += Hand.objects.filter(match=match, number=latest[0].number - 1)
    return latest


# --- Events ---------------------------------------------------------------------------
def engine_event(row: HandEvent) -> engine.Event:
    """The engine event stored on ``row`` (services._engine_event_payload wrote it)."""
    payload = row.payload
    card = payload.get("card")
    outcome = payload.get("outcome")
    hands = payload.get("hands")
    return engine.Event(
        kind=row.kind,
        seat=row.seat,
        seq=row.state_seq,
        card=None if card is None else engine.parse_card(card),
        outcome=None if outcome is None else engine.HandOutcome.from_dict(outcome),
        hands=None if hands is None else tuple(tuple(map(engine.parse_card, h)) for h in hands),
        seed=payload.get("seed"),
        stock_count=payload.get("stock_count"),
    )


def event_for_viewer(row: HandEvent, *, hand_number: int, viewer: int | None) -> dict[str, Any]:
    """One event as ``viewer`` (a seat, or None for a watcher) may see it."""
    if row.kind in HandEvent.TABLE_KINDS:
        # The table's own events carry public facts only (never a card or a seed).
        view = {"kind": row.kind, "seat": row.seat, "state_seq": row.state_seq, **row.payload}
    else:
        view = _rename_seq(engine.event_view(engine_event(row), viewer))
    view.update({"seq": row.match_seq, "hand": hand_number, "created_at": row.created_at})
    return view


def match_events(
    *, match: Match, viewer: int | None, after: int = 0, limit: int = EVENTS_PAGE_DEFAULT
) -> list[dict[str, Any]]:
    """The match's events with ``seq`` greater than ``after``, oldest first, each filtered
    for the viewer (issue 5 item 7)."""
    rows = (
        HandEvent.objects.filter(match=match, match_seq__gt=min(max(after, 0), MAX_ID))
        .select_related("hand")
        .only(
            "kind",
            "seat",
            "state_seq",
            "payload",
            "match_seq",
            "created_at",
            "hand__number",
        )
        .order_by("match_seq")[: max(1, min(limit, EVENTS_PAGE_MAX))]
    )
    return [event_for_viewer(row, hand_number=row.hand.number, viewer=viewer) for row in rows]


# --- Replay ---------------------------------------------------------------------------
def hand_actions(hand: Hand) -> list[engine.Action]:
    """The actions of the hand, in order, as recorded on its events."""
    recorded = (
        HandEvent.objects.filter(hand=hand, action__isnull=False)
        .order_by("seq")
        .values_list("action", flat=True)
    )
    return [engine.Action.from_dict(action) for action in recorded]


def hand_replay(hand: Hand) -> engine.HandState:
    """ARCHITECTURE §4: re-deal the hand from its server seed and apply its recorded actions;
    the result equals the stored state."""
    return engine.replay(
        seed=hand.server_seed,
        dealer=hand.dealer,
        rules=engine.RuleSet.from_dict(hand.match.rules),
        actions=hand_actions(hand),
    )


# --- Watchers (issue 7 item 1, R11) ----------------------------------------------------------
# Exactly the fields of api.serializers.WatchHandOutput: the public table only. Never a card
# of either hand while the hand is played; the showdown once it has ended.
WATCH_HAND_KEYS = (
    "number",
    "status",
    "seed_commitment",
    "turn_deadline",
    "phase",
    "to_act",
    "dealer",
    "state_seq",
    "discard_pile",
    "stock_count",
    "card_counts",
    "upcard_passes",
    "taken_from_discard",
    "reshuffles",
    "rules",
    "outcome",
    "hands",
    "knock_card",
    "seed",
)


def watcher_hand_view(*, hand: Hand, match_over: bool) -> dict[str, Any]:
    """A hand as a watcher sees it: ``engine.watcher_view`` plus the table's facts."""
    view = _rename_seq(engine.watcher_view(_hand_state(hand)))
    view.update(
        {
            "number": hand.number,
            "status": hand.status,
            "seed_commitment": hand.seed_commitment,
            "turn_deadline": hand.turn_deadline,
        }
    )
    if hand.status == Hand.Status.ABANDONED:
        view["to_act"] = None
        if match_over:
            view.update(_abandoned_showdown(hand))
    return {key: view[key] for key in WATCH_HAND_KEYS if key in view}


def watch_view(*, match: Match) -> dict[str, Any]:
    """Everything a watcher may see of the match now: public match facts, the hand being
    played (public part only) and the showdown of the hand before it."""
    latest = list(Hand.objects.filter(match=match).order_by("-number")[:2])
    over = match.status not in (Match.Status.WAITING, Match.Status.RUNNING)
    current = latest[0] if latest else None
    previous = latest[1] if len(latest) > 1 else None
    return {
        "seq": match.seq,
        "match": match_summary(match),
        "hand": None if current is None else watcher_hand_view(hand=current, match_over=over),
        "previous_hand": (
            None
            if previous is None or previous.status != Hand.Status.ENDED
            else showdown_view(hand=previous, seat=None)
        ),
    }


# --- Hand history and fairness (issue 7 items 4, 5) ------------------------------------------
def player_match(*, player: Player, match_id: object) -> Match:
    """A match the player sits (or sat) in; anybody else's is 404."""
    return player_match_seat(player=player, match_id=match_id).match


def _history_hands(match: Match) -> QuerySet[Hand]:
    """The hands that are over: ended ones, and a hand abandoned by a forfeit (only ever once
    the game is over). Never a hand in progress."""
    hands = Hand.objects.filter(match=match, status=Hand.Status.ENDED)
    if match.status not in (Match.Status.WAITING, Match.Status.RUNNING):
        hands = Hand.objects.filter(match=match).exclude(status=Hand.Status.IN_PROGRESS)
    return hands.order_by("number")


def finished_hand_get(*, match: Match, number: object) -> Hand:
    """Hand ``number`` of the match once it is over; 409 hand-in-progress before."""
    hand = Hand.objects.filter(match=match, number=as_id(number) or 0).first()
    if hand is None:
        raise NotFoundProblem(f"No hand {number} in match {match.pk}")
    if not _history_hands(match).filter(pk=hand.pk).exists():
        raise HandInProgressProblem(f"hand {hand.number} of match {match.pk} is being played")
    return hand


def _history_event(row: HandEvent, hand_number: int) -> dict[str, Any]:
    """An event of a hand that is over: everything is public, including each stock draw's
    card (the revealed seed gives the whole stock order anyway)."""
    if row.kind in HandEvent.TABLE_KINDS:
        view = {"kind": row.kind, "seat": row.seat, "state_seq": row.state_seq, **row.payload}
    else:
        view = _rename_seq(engine.event_view(engine_event(row), row.seat))
    view.update({"seq": row.match_seq, "hand": hand_number, "created_at": row.created_at})
    return view


def _hand_points(outcome: dict | None) -> list[int]:
    points = [0, 0]
    if outcome is not None and outcome.get("winner") is not None:
        points[outcome["winner"]] = outcome["points"]
    return points


def hand_history(hand: Hand, rows: list[HandEvent]) -> dict[str, Any]:
    """One hand that is over (issue 7 item 5): events, both arrangements, lay-offs, score,
    final hands, what was left of the stock and the revealed seed."""
    state = _hand_state(hand)
    return {
        "number": hand.number,
        "status": hand.status,
        "dealer": hand.dealer,
        "seed_commitment": hand.seed_commitment,
        "seed": hand.server_seed,
        "outcome": hand.outcome,
        "points": _hand_points(hand.outcome),
        "hands": [[str(card) for card in held] for held in state.hands],
        "knock_card": None if state.knock_card is None else str(state.knock_card),
        "discard_pile": [str(card) for card in state.discard_pile],
        "stock": [str(card) for card in state.stock],
        "started_at": hand.created_at,
        "ended_at": hand.ended_at,
        "events": [_history_event(row, hand.number) for row in rows],
    }


def _hand_events(hands: list[Hand]) -> dict[int, list[HandEvent]]:
    grouped: dict[int, list[HandEvent]] = {hand.pk: [] for hand in hands}
    for row in HandEvent.objects.filter(hand__in=hands).order_by("match_seq"):
        grouped[row.hand_id].append(row)
    return grouped


def match_hand_history(*, match: Match) -> list[dict[str, Any]]:
    hands = list(_history_hands(match))
    events = _hand_events(hands)
    return [hand_history(hand, events[hand.pk]) for hand in hands]


def finished_hand_history(*, match: Match, number: object) -> dict[str, Any]:
    hand = finished_hand_get(match=match, number=number)
    return hand_history(hand, _hand_events([hand])[hand.pk])


HAND_SIZE, DEALT_CARDS = 10, 21  # R3: 10 cards each, then the upcard


def dealt_cards(history: dict[str, Any]) -> dict[str, Any]:
    """The deal as the recorded play shows it, worked back from a hand's history: each
    player's final cards, plus what they put down (discards, knock card), minus what they
    picked up (stock, upcard, discard pile); the stock as drawn, followed by what was left
    of it (R7 reshuffles go under the original stock, so its first 31 cards are the dealt
    stock); the upcard as dealt face up. ``consistent`` is False if the record cannot be a
    deal (a card held twice or given up without being held)."""
    held: list[Counter[str]] = [Counter(history["hands"][0]), Counter(history["hands"][1])]
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
    consistent = all(n in (0, 1) for counts in held for n in counts.values())
    hands = [
        engine.sort_by_suit(engine.parse_card(card) for card, n in counts.items() if n > 0)
        for counts in held
    ]
    return {
        "hands": [[str(card) for card in cards] for cards in hands],
        "upcard": upcard,
        "stock": (draws + history["stock"])[: len(engine.FULL_DECK) - DEALT_CARDS],
        "consistent": consistent,
    }


def _expected_dealer(hand: Hand) -> int:
    """R3: the first dealer comes from the first hand's seed; afterwards the deal alternates,
    and a void hand is redealt by the same dealer."""
    if hand.number == 1:
        return engine.first_dealer(hand.server_seed)
    previous = Hand.objects.filter(match_id=hand.match_id, number=hand.number - 1).first()
    if previous is None:  # pragma: no cover - hands are numbered from 1 without gaps
        return hand.dealer
    void = (previous.outcome or {}).get("kind") == "void"
    return previous.dealer if void else 1 - previous.dealer


def hand_fairness(*, match: Match, number: object) -> dict[str, Any]:
    """Issue 7 item 4: re-derive the deck from the revealed seed and check it against the
    commitment published before the deal and against the cards actually dealt (the first
    dealer, both hands, the upcard and the stock order). 409 while the hand is played."""
    hand = finished_hand_get(match=match, number=number)
    history = hand_history(hand, _hand_events([hand])[hand.pk])
    seed = hand.server_seed
    deck = [str(card) for card in engine.shuffled_deck(seed)]
    dealer, non_dealer = hand.dealer, 1 - hand.dealer
    expected = [[], []]
    expected[non_dealer] = deck[0 : 2 * HAND_SIZE : 2]  # R3: one at a time, non-dealer first
    expected[dealer] = deck[1 : 2 * HAND_SIZE : 2]
    dealt = dealt_cards(history)
    checks = {
        "commitment": engine.verify_deck(seed, hand.seed_commitment),
        "dealer": _expected_dealer(hand) == dealer,
        "hands": dealt["consistent"]
        and all(set(expected[seat]) == set(dealt["hands"][seat]) for seat in (0, 1)),
        "upcard": dealt["upcard"] == deck[2 * HAND_SIZE],
        "stock": dealt["stock"] == deck[DEALT_CARDS:],
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
