"""Reads of the games app, scoped to the caller's operator (another operator's room, table or
match is reported exactly like a missing one: 404).

Querysets and single rows only: the API's shapes (what each reader may see of a hand, a
match, an event) are built in ``games.api.presenters``; row locks are in ``games.locks``.
The stored hand state (seed, stock order, both hands) and the server seed are read here but
never returned by the API as such.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import TypeVar, cast

from django.db.models import Count, F, Model, Prefetch, Q, QuerySet, Value
from django.utils import timezone
from django.utils.translation import gettext

from games import engine
from games.models import (
    Hand,
    HandEvent,
    Match,
    NetworkRoomOptIn,
    Room,
    Seat,
    Table,
    WaitingListEntry,
)
from games.problems import HandInProgressProblem
from gin_platform.http.problems import NotFoundProblem
from gin_platform.models import Operator, Player
from gin_platform.request_path.precompiled import PrecompiledQuery, fetch_then
from gin_platform.tenancy.selectors import (
    MAX_ID,
    as_id,
    network_membership_get,
    network_operator_id,
)

EVENTS_PAGE_DEFAULT, EVENTS_PAGE_MAX = 100, 500
M = TypeVar("M", bound=Model)


# --- Rooms and tables ---------------------------------------------------------------------
def room_list(*, operator: Operator, active: bool | None = None) -> QuerySet[Room]:
    rooms = Room.objects.filter(operator=operator).annotate(table_count=Count("tables"))
    if active is not None:
        rooms = rooms.filter(active=active)
    return rooms


def by_id(rows: QuerySet[M], row_id: object, missing: str) -> M:
    """The row of ``rows`` whose primary key is ``row_id`` as a client sent it; 404
    ``missing`` when there is none (an id that is no id matches nothing)."""
    row = rows.filter(pk=as_id(row_id)).first()
    if row is None:
        raise NotFoundProblem(missing)
    return row


def room_get(*, operator: Operator, room_id: object) -> Room:
    return by_id(room_list(operator=operator), room_id, f"No room {room_id} for this operator")


def table_open_match(table: Table) -> Match | None:
    """The table's game waiting for players or being played, if any (seating reads it under
    the table's lock)."""
    # A table has at most one (match_one_open_per_table): no ORDER BY, which would let a
    # generic plan walk every game in key order to the open one (docs/deploy.md).
    open_matches = Match.objects.filter(
        table=table, status__in=(Match.Status.WAITING, Match.Status.RUNNING)
    )
    return next(iter(open_matches[:1]), None)


# --- Network rooms (docs/network.md) -------------------------------------------------------
def network_rooms_offered(*, operator: Operator) -> QuerySet[Room]:
    """The network rooms ``operator`` offers its players: none unless it is a member of the
    network now; every network room with ``all_rooms``, else those it opted into."""
    network_id = network_operator_id()
    membership = network_membership_get(operator=operator)
    if network_id is None or membership is None or not membership.is_member:
        return Room.objects.none()
    rooms = Room.objects.filter(operator_id=network_id)
    if not membership.all_rooms:
        rooms = rooms.filter(
            pk__in=NetworkRoomOptIn.objects.filter(operator=operator).values("room_id")
        )
    return rooms


def network_room_list() -> QuerySet[Room]:
    """Every network room (open and closed), with its table count, for the member
    operators choosing which to offer (``GET /operators/me/network/rooms``); a network
    tournament's room is not offered (its tournament seats its players, R14)."""
    network_id = network_operator_id()
    if network_id is None:
        return Room.objects.none()
    rooms = Room.objects.filter(operator_id=network_id, purpose=Room.Purpose.CASH)
    return rooms.annotate(table_count=Count("tables"))


def network_room_get(*, room_id: object) -> Room:
    return by_id(network_room_list(), room_id, f"No network room {room_id}")


def network_room_opt_in_ids(*, operator: Operator) -> set[int]:
    """The network rooms the operator opted into one by one."""
    return set(NetworkRoomOptIn.objects.filter(operator=operator).values_list("room_id", flat=True))


def network_room_offered(*, operator: Operator, room: Room) -> bool:
    """Whether ``room`` is a network room that ``operator`` offers its players now."""
    return network_rooms_offered(operator=operator).filter(pk=room.pk).exists()


def room_offered_to_player(*, player: Player, room: Room) -> bool:
    """Whether the room is in the player's lobby: their operator's, or a network room their
    operator offers."""
    return room.operator_id == player.operator_id or network_room_offered(
        operator=player.operator, room=room
    )


def _player_rooms(operator: Operator) -> Q:
    """The rooms an operator's players may reach: its own and the network rooms it offers."""
    return Q(operator=operator) | Q(pk__in=network_rooms_offered(operator=operator).values("pk"))


def player_table_get(*, player: Player, table_id: object) -> Table:
    """A table the player may sit at or leave: one of their operator's, or one in a network
    room (the seating rules decide whether they may sit there, ``seat_take``). A network
    table is found for a player who is seated at it even once the operator stopped offering
    its room, so that they can still leave."""
    table = (
        Table.objects.select_related("room")  # type: ignore[misc]  # pk=None matches no row (Django reads IS NULL); the stubs refuse None
        .filter(pk=as_id(table_id))
        .filter(
            Q(room__operator_id=player.operator_id)
            | Q(room__operator_id=network_operator_id() or uuid.UUID(int=0))
        )
        .first()
    )
    if table is None:
        raise NotFoundProblem(gettext("There is no such table."))
    return table


def player_network_seated(*, player: Player) -> bool:
    """Whether the player holds a seat at a network table now (waiting or playing)."""
    network_id = network_operator_id()
    return network_id is not None and (
        Seat.objects.filter(
            player=player, state__in=Seat.ACTIVE_STATES, match__operator_id=network_id
        ).exists()
    )


def match_player_operator_ids(match: Match) -> set[uuid.UUID]:
    """The operators of the players who took a seat in the match (also those who left it
    before the start): each sees the match and gets its webhooks about its own players."""
    return set(
        Seat.objects.filter(match=match).values_list("player__operator_id", flat=True).distinct()
    )


def lobby_rooms(*, operator: Operator) -> QuerySet[Room]:
    """Active rooms with their open tables, each with its game (if any) and seated players;
    never a tournament's room (R14: the tournament seats its players)."""
    seats = Seat.objects.filter(state__in=Seat.ACTIVE_STATES).select_related("player")
    open_matches = Match.objects.filter(
        status__in=(Match.Status.WAITING, Match.Status.RUNNING)
    ).prefetch_related(Prefetch("seats", queryset=seats, to_attr="active_seats"))
    tables = Table.objects.filter(status=Table.Status.OPEN).prefetch_related(
        Prefetch("matches", queryset=open_matches, to_attr="open_matches")
    )
    waiting = Q(
        waiting_list__status=WaitingListEntry.Status.WAITING,
        waiting_list__expires_at__gt=timezone.now(),
    )
    return (
        Room.objects.filter(_player_rooms(operator), active=True, purpose=Room.Purpose.CASH)
        .annotate(players_waiting=Count("waiting_list", filter=waiting))
        .prefetch_related(Prefetch("tables", queryset=tables, to_attr="open_tables"))
    )


def lobby_room_get(*, operator: Operator, room_id: object) -> Room:
    return by_id(lobby_rooms(operator=operator), room_id, f"No open room {room_id}")


# --- The waiting list (docs/network.md "Lobby and waiting list") -----------------------------
def player_waiting_list(
    *, player: Player, waiting_only: bool = False
) -> QuerySet[WaitingListEntry]:
    """The player's waiting-list entries, newest first (only those still waiting)."""
    entries = WaitingListEntry.objects.select_related("room", "seat").filter(player=player)
    if waiting_only:
        entries = entries.filter(status=WaitingListEntry.Status.WAITING)
    return entries.order_by("-created_at", "-pk")


def room_has_waiting_players(*, room_id: int) -> bool:
    return WaitingListEntry.objects.filter(
        room_id=room_id, status=WaitingListEntry.Status.WAITING
    ).exists()


def player_waiting_entry(*, player: Player, room: Room) -> WaitingListEntry:
    """The player's latest entry for the room (waiting or ended); 404 when none."""
    entry = player_waiting_list(player=player).filter(room=room).first()
    if entry is None:
        raise NotFoundProblem(gettext("You are not on the waiting list of this room."))
    return entry


def player_seats(*, player: Player) -> QuerySet[Seat]:
    """The player's seats at tables right now (waiting or playing)."""
    return Seat.objects.select_related("match", "table").filter(
        player=player, state__in=Seat.ACTIVE_STATES
    )


# --- Matches ---------------------------------------------------------------------------
def shown_seats_prefetch() -> Prefetch:
    seats = Seat.objects.exclude(state__in=Seat.GONE_STATES).select_related("player")
    return Prefetch("seats", queryset=seats.order_by("position"), to_attr="shown_seats")


def match_list(
    *, operator: Operator, status: str | None = None, room_id: int | None = None
) -> QuerySet[Match]:
    """The operator's matches, with their seats and hand counts (no cards): the games of
    its rooms, and the network games its players sat in (docs/network.md "Tenancy")."""
    matches = (
        Match.objects.filter(_operator_matches(operator))
        .annotate(hands_played=Count("hands"))
        .prefetch_related(shown_seats_prefetch())
    )
    if status:
        matches = matches.filter(status=status)
    if room_id is not None:
        matches = matches.filter(room_id=room_id)
    return matches


def _operator_matches(operator: Operator) -> Q:
    """The matches an operator reads: its own rooms', and network matches where one of its
    players took a seat."""
    network_id = network_operator_id()
    own = Q(operator=operator)
    if network_id is None:
        return own
    sat = Seat.objects.filter(player__operator=operator, match__operator_id=network_id)
    return own | Q(operator_id=network_id, pk__in=sat.values("match_id"))


def watch_match_get(*, operator: Operator, match_id: object) -> Match:
    """A match a player of ``operator`` may watch (R11): one the operator reads
    (``match_get``), or a game in a network room the operator offers its players."""
    offered = network_rooms_offered(operator=operator).values("pk")
    match = (
        Match.objects.filter(_operator_matches(operator) | Q(room_id__in=offered))  # type: ignore[misc]  # pk=None matches no row (Django reads IS NULL); the stubs refuse None
        .annotate(hands_played=Count("hands"))
        .prefetch_related(shown_seats_prefetch())
        .filter(pk=as_id(match_id))
        .first()
    )
    if match is None:
        raise NotFoundProblem(f"No match {match_id} for this operator")
    return match


def match_get(*, operator: Operator, match_id: object) -> Match:
    return by_id(match_list(operator=operator), match_id, f"No match {match_id} for this operator")


def player_match_seat(*, player: Player, match_id: object) -> Seat:
    """The player's seat in the match (the latest, if they sat more than once before it
    started), with the match and its seated players loaded in the same query. Only the
    match's players may see it; for anybody else it does not exist."""
    match_pk = as_id(match_id)
    seats = [] if match_pk is None else _SEATS_OF_MATCH.fetch(match_pk, _operators(player))
    return own_seat(seats, player=player, match_id=match_id)


def player_match_view(*, player: Player, match_id: object) -> tuple[Seat, list[Hand]]:
    """``player_match_seat`` and the two newest hands, newest first: one statement, one snapshot."""
    match_pk = as_id(match_id)
    if match_pk is None:
        return player_match_seat(player=player, match_id=match_id), []  # 404
    seating = (match_pk, _operators(player))  # the hands are shown only if the player is seated
    seats, hands = fetch_then(_SEATS_OF_MATCH, seating, _NEWEST_HANDS, (match_pk,))
    seat = own_seat(sorted(seats, key=lambda row: row.pk), player=player, match_id=match_id)
    hands.sort(key=lambda hand: hand.number, reverse=True)
    if hands and hands[0].read_at_match_seq != seat.match.seq:  # type: ignore[attr-defined]  # annotated by _NEWEST_HANDS' query: the stubs see a plain Hand
        return seat, latest_hands(seat.match)  # two statements (not PostgreSQL): read again
    for hand in hands:
        hand.match = seat.match
    return seat, cast("list[Hand]", hands)  # the stubs see the annotation as another model


def _operators(player: Player) -> list[uuid.UUID]:  # the player's own, and the network
    network_id = network_operator_id()  # cached: no statement on the view path
    return [player.operator_id] if network_id is None else [player.operator_id, network_id]


# The reads of every GET .../view and every push: compiled once per process thread
# (gin_platform/request_path/precompiled.py).
_MATCH_BY_ID = PrecompiledQuery(lambda match_id: Match.objects.filter(pk=match_id)[:1])
_SHOWN_SEATS = PrecompiledQuery(
    lambda match_id: (
        Seat.objects.filter(match_id=match_id)
        .exclude(state__in=Seat.GONE_STATES)
        .select_related("player")
        .order_by("position")
    )
)
_NEWEST_HANDS = PrecompiledQuery(  # with the match's seq as this statement saw it
    lambda match_id: (
        Hand.objects.filter(match_id=match_id)
        .annotate(read_at_match_seq=F("match__seq"))
        .order_by("-number")[:2]
    )
)
CONSISTENT_READ_ATTEMPTS = 10  # latest_hands: reads when moves keep committing meanwhile
_SEATS_OF_MATCH = PrecompiledQuery(
    lambda match_id, operators: (
        Seat.objects.select_related("match", "player")
        .filter(match_id=match_id, match__operator_id__in=operators)
        .order_by("pk")
    )
)


def own_seat(seats: Sequence[Seat], *, player: Player, match_id: object) -> Seat:
    """``player``'s seat among a match's ``seats`` (in primary-key order, each with its
    match and player loaded), its match carrying the seats shown to the players
    (``shown_seats``). 404 when the player holds none, or only one they left (or never
    took, R14) at a position that is not free any more."""
    mine = [seat for seat in seats if seat.player_id == player.pk]
    shown = sorted((s for s in seats if s.state not in Seat.GONE_STATES), key=lambda s: s.position)
    seat = mine[-1] if mine else None
    free = set(range(seat.match.seat_count)) - {s.position for s in shown} if seat else set()
    if seat is None or (seat.state in Seat.GONE_STATES and seat.position not in free):
        raise NotFoundProblem(gettext("You have no such game."))
    seat.match.shown_seats = shown  # type: ignore[attr-defined]  # the to_attr of shown_seats_prefetch(), set by hand: the stubs know no such attribute
    return seat


def match_seats(match: Match) -> list[Seat]:
    """The match's seats shown to players and operators (not those left before the start),
    in position order: the ones ``match_list`` / ``own_seat`` loaded, or read now."""
    if hasattr(match, "shown_seats"):
        return match.shown_seats
    seats = _SHOWN_SEATS.fetch(match.pk)
    for seat in seats:
        seat.match = match  # as filter(match=match) would have set it: no query to reach it
    return seats


def latest_hands(match: Match, known: Sequence[Hand] = ()) -> list[Hand]:
    """The match's two newest hands, newest first, reading only those ``known`` lacks.

    A move committing between the caller's read of ``match`` and this one would give a view
    a ``seq`` older than its cards (a client acting on it: 409). The hands come with the seq
    their statement saw; unless it is ``match.seq``, both are read again (bounded)."""
    if not known:
        for _attempt in range(CONSISTENT_READ_ATTEMPTS):
            hands = cast("list[Hand]", _NEWEST_HANDS.fetch(match.pk))
            if not hands or hands[0].read_at_match_seq == match.seq:  # type: ignore[attr-defined]  # annotated by _NEWEST_HANDS' query: the stubs see a plain Hand
                break
            match.refresh_from_db()
        for hand in hands:
            hand.match = match
        return hands
    latest = list(known[:2])
    if len(latest) == 1 and latest[0].number > 1:
        latest += Hand.objects.filter(match=match, number=latest[0].number - 1)
    return latest


def match_reload(match: Match) -> Match:
    """``match`` read again in place (its loaded seats kept): after a move in a game against
    the house bot, which may have answered already."""
    match.refresh_from_db()
    return match


# --- Events ---------------------------------------------------------------------------
def hand_outcome(data: dict | None) -> engine.HandOutcome | None:
    """A stored hand outcome: heads-up, or R12 (it has ``penalties`` per seat)."""
    if data is None:
        return None
    return engine.HandOutcome.from_dict(data)


def match_result(data: dict) -> engine.MatchResult | engine.MultiMatchResult:
    """A stored match result: heads-up (R10), or three and four players (R12: it has a
    ``ranking``)."""
    if "ranking" in data:
        return engine.MultiMatchResult.from_dict(data)
    return engine.MatchResult.from_dict(data)


def ended_hand_outcomes(match: Match) -> list[engine.HandOutcome]:
    """The outcomes of the match's hands that ended, in order (void ones included; a hand
    abandoned by a forfeit counts nothing)."""
    rows = Hand.objects.filter(match=match, status=Hand.Status.ENDED, outcome__isnull=False)
    outcomes = rows.order_by("number").values_list("outcome", flat=True)
    return [engine.HandOutcome.from_dict(data) for data in outcomes if data is not None]


def engine_event(row: HandEvent) -> engine.Event:
    """The engine event stored on ``row`` (``services.play._engine_event_payload`` wrote
    it)."""
    payload = row.payload
    card = payload.get("card")
    outcome = payload.get("outcome")
    hands = payload.get("hands")
    return engine.Event(
        kind=row.kind,
        seat=row.seat,
        seq=row.state_seq,
        card=None if card is None else engine.parse_card(card),
        outcome=hand_outcome(outcome),
        hands=None if hands is None else tuple(tuple(map(engine.parse_card, h)) for h in hands),
        seed=payload.get("seed"),
        stock_count=payload.get("stock_count"),
    )


def match_event_rows(
    *, match: Match, after: int = 0, limit: int = EVENTS_PAGE_DEFAULT
) -> list[HandEvent]:
    """The match's events with ``seq`` greater than ``after``, oldest first, at most
    ``limit`` (1 to ``EVENTS_PAGE_MAX``), each with its hand's number."""
    limit = max(1, min(limit, EVENTS_PAGE_MAX))
    if limit not in _EVENTS_AFTER:  # ``Value``: a bound the ORM does not range-check, so the
        # statement compiles once with a stand-in (``after`` is kept within 0..MAX_ID)
        _EVENTS_AFTER[limit] = PrecompiledQuery(
            lambda match_id, after: (
                HandEvent.objects.filter(match_id=match_id, match_seq__gt=Value(after))
                .select_related("hand")
                .only(*_FEED_FIELDS)
                .order_by("match_seq")[:limit]
            )
        )
    return _EVENTS_AFTER[limit].fetch(match.pk, min(max(after, 0), MAX_ID))


def match_event_rows_through(*, match: Match, after: int, through: int) -> list[HandEvent]:
    """Every event with ``after < seq <= through``, oldest first, however many pages: the
    events that lead to a view of ``through``. A message that carries a view and events
    must stop its events at the view's ``seq`` (docs/realtime.md): events read after the
    view may already hold a move committed since, whose view the message does not have.
    Read after the view, they always reach it (a move writes its events and the match's
    ``seq`` in one transaction)."""
    rows: list[HandEvent] = []
    while after < through:
        page = match_event_rows(match=match, after=after, limit=EVENTS_PAGE_MAX)
        rows += (row for row in page if row.match_seq <= through)
        if len(page) < EVENTS_PAGE_MAX:
            break
        after = page[-1].match_seq
    return rows


# Page size -> its read of the feed, compiled once (every push reads it).
_EVENTS_AFTER: dict[int, PrecompiledQuery[HandEvent]] = {}
_FEED_FIELDS = ("kind", "seat", "state_seq", "payload", "match_seq", "created_at", "hand__number")


# --- Replay ---------------------------------------------------------------------------
def hand_replay(hand: Hand) -> engine.HandState:
    """Exact replay (docs/fairness.md): re-deal the hand from its server seed and apply its
    recorded actions; the result equals the stored state. R12: forfeits are replayed from
    their recorded entries, and the seats that had forfeited before the deal are dealt
    dead cards as they were."""
    recorded = _recorded_actions(hand)
    return engine.replay(
        seed=hand.server_seed,
        dealer=hand.dealer,
        rules=engine.RuleSet.from_dict(hand.match.rules),
        actions=recorded,
        out=out_at_deal(hand, recorded),
    )


def _recorded_actions(hand: Hand) -> list[dict]:
    actions = (
        HandEvent.objects.filter(hand=hand, action__isnull=False)
        .order_by("seq")
        .values_list("action", flat=True)
    )
    return cast("list[dict]", list(actions))  # action__isnull=False: each a recorded dict


def out_at_deal(hand: Hand, recorded: Sequence[dict] | None = None) -> list[int]:
    """R12: the seats that had forfeited the match when ``hand`` was dealt (the hand's
    ``out`` less the seats that forfeited during it)."""
    if recorded is None:
        recorded = _recorded_actions(hand)
    left_here = {entry["seat"] for entry in recorded if entry.get("kind") == HandEvent.FORFEIT}
    return [seat for seat in hand.state.get("out", []) if seat not in left_here]


# --- Hand history and fairness -------------------------------------------------------------
def player_match(*, player: Player, match_id: object) -> Match:
    """A match the player sits (or sat) in; anybody else's is 404."""
    return player_match_seat(player=player, match_id=match_id).match


def history_hand_statuses(match: Match) -> tuple[str, ...]:
    """The statuses of the match's hands that are over, whose cards may be shown: ended
    ones, and once the game is over a hand abandoned by its forfeit (R10). Never a hand in
    progress: the one rule for the history, the fairness pages and the back office."""
    if match.status in Match.LIVE_STATUSES:
        return (Hand.Status.ENDED,)
    return (Hand.Status.ENDED, Hand.Status.ABANDONED)


def history_hands(match: Match) -> QuerySet[Hand]:
    """The hands that are over (``history_hand_statuses``), in order."""
    return Hand.objects.filter(match=match, status__in=history_hand_statuses(match)).order_by(
        "number"
    )


def finished_hand_get(*, match: Match, number: object) -> Hand:
    """Hand ``number`` of the match once it is over; 409 hand-in-progress before."""
    hand = Hand.objects.filter(match=match, number=as_id(number) or 0).first()
    if hand is None:
        raise NotFoundProblem(gettext("This game has no such hand."))
    if hand.status not in history_hand_statuses(match):
        raise HandInProgressProblem(gettext("This hand is still being played."))
    return hand


def hand_events(hands: list[Hand]) -> dict[int, list[HandEvent]]:
    """The events of each of ``hands`` (by hand pk), in order."""
    grouped: dict[int, list[HandEvent]] = {hand.pk: [] for hand in hands}
    for row in HandEvent.objects.filter(hand__in=hands).order_by("match_seq"):
        grouped[row.hand_id].append(row)
    return grouped


_DEALER_CARDS = 48  # a multiple of 3 and of 4


def first_dealer_for(seed: str, seats: int) -> int:
    """R3 heads-up: ``engine.first_dealer``. R12: chosen by the first hand's shuffle too:
    the first card of the shuffled deck among the 48 lowest card indexes (48 is a multiple
    of 3 and of 4, so every seat is equally likely), its index modulo the seat count."""
    if seats == 2:
        return engine.first_dealer(seed)
    card = next(card for card in engine.shuffled_deck(seed) if card.index < _DEALER_CARDS)
    return card.index % seats


def expected_dealer(hand: Hand) -> int:
    """R3: the first dealer comes from the first hand's seed; afterwards ``engine.next_dealer``
    (R12: the seats out as they were when the hand was dealt)."""
    rules = engine.RuleSet.from_dict(hand.state["rules"])
    if hand.number == 1:
        return first_dealer_for(hand.server_seed, rules.seats)
    previous = Hand.objects.filter(match_id=hand.match_id, number=hand.number - 1).first()
    if previous is None:  # pragma: no cover - hands are numbered from 1 without gaps
        return hand.dealer
    return engine.next_dealer(
        previous.dealer,
        hand_outcome(previous.outcome),
        seats=rules.seats,
        out=out_at_deal(hand) if rules.is_multi else (),  # heads-up: nobody is ever out
    )


# --- Real time ----------------------------------------------------------------------------
def match_for_push(*, match_id: int) -> Match | None:
    """The match as a push renders it, with its shown seats and their players loaded once
    for every audience."""
    match = next(iter(_MATCH_BY_ID.fetch(match_id)), None)
    if match is not None:
        match.shown_seats = match_seats(match)  # type: ignore[attr-defined]  # the to_attr of shown_seats_prefetch(), set by hand: the stubs know no such attribute
    return match


def match_presence_facts(*, match_id: int) -> tuple[int, tuple[int, ...]]:
    """The match's seat count (R12) and the seats its house bots hold (always here)."""
    match = Match.objects.filter(pk=match_id).only("seat_count", "bot_seat", "bot_seats").first()
    if match is None:
        return 2, ()
    return match.seat_count, match.house_bot_seats


def match_seq(*, match_id: int) -> int | None:
    """The match's feed sequence number now (a socket's heartbeat checks it for gaps)."""
    return Match.objects.filter(pk=match_id).values_list("seq", flat=True).first()
