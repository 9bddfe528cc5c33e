"""Reads of the games app, scoped to the caller's operator (another operator's room, table or
match is reported exactly like a missing one: 404).

Querysets and single rows only: the API's shapes (what each reader may see of a hand, a
match, an event) are built in ``games.api.presenters``; row locks are in ``games.locks``.
The stored hand state (seed, stock order, both hands) and the server seed are read here but
never returned by the API as such.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db.models import Count, Prefetch, QuerySet

from games import engine
from games.models import Hand, HandEvent, Match, Room, Seat, Table
from games.problems import HandInProgressProblem
from gin_platform.models import Operator, Player
from gin_platform.problems import NotFoundProblem
from gin_platform.selectors import MAX_ID, as_id

EVENTS_PAGE_DEFAULT, EVENTS_PAGE_MAX = 100, 500


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


def match_seats(match: Match) -> list[Seat]:
    """The match's seats shown to players and operators (not those left before the start),
    in position order: the ones ``match_list`` / ``own_seat`` loaded, or read now."""
    if hasattr(match, "shown_seats"):
        return match.shown_seats
    return list(
        Seat.objects.filter(match=match)
        .exclude(state=Seat.State.LEFT)
        .select_related("player")
        .order_by("position")
    )


def latest_hands(match: Match, known: Sequence[Hand] = ()) -> list[Hand]:
    """The match's two newest hands, newest first, reading only those ``known`` lacks."""
    if not known:
        return list(Hand.objects.filter(match=match).order_by("-number")[:2])
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
        outcome=None if outcome is None else engine.HandOutcome.from_dict(outcome),
        hands=None if hands is None else tuple(tuple(map(engine.parse_card, h)) for h in hands),
        seed=payload.get("seed"),
        stock_count=payload.get("stock_count"),
    )


def match_event_rows(
    *, match: Match, after: int = 0, limit: int = EVENTS_PAGE_DEFAULT
) -> QuerySet[HandEvent]:
    """The match's events with ``seq`` greater than ``after``, oldest first, at most
    ``limit`` (1 to ``EVENTS_PAGE_MAX``), each with its hand's number."""
    return (
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
    """Exact replay (docs/fairness.md): re-deal the hand from its server seed and apply its
    recorded actions; the result equals the stored state."""
    return engine.replay(
        seed=hand.server_seed,
        dealer=hand.dealer,
        rules=engine.RuleSet.from_dict(hand.match.rules),
        actions=hand_actions(hand),
    )


# --- Hand history and fairness -------------------------------------------------------------
def player_match(*, player: Player, match_id: object) -> Match:
    """A match the player sits (or sat) in; anybody else's is 404."""
    return player_match_seat(player=player, match_id=match_id).match


def history_hands(match: Match) -> QuerySet[Hand]:
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
    if not history_hands(match).filter(pk=hand.pk).exists():
        raise HandInProgressProblem(f"hand {hand.number} of match {match.pk} is being played")
    return hand


def hand_events(hands: list[Hand]) -> dict[int, list[HandEvent]]:
    """The events of each of ``hands`` (by hand pk), in order."""
    grouped: dict[int, list[HandEvent]] = {hand.pk: [] for hand in hands}
    for row in HandEvent.objects.filter(hand__in=hands).order_by("match_seq"):
        grouped[row.hand_id].append(row)
    return grouped


def expected_dealer(hand: Hand) -> int:
    """R3: the first dealer comes from the first hand's seed; afterwards the deal alternates,
    and a void hand is redealt by the same dealer."""
    if hand.number == 1:
        return engine.first_dealer(hand.server_seed)
    previous = Hand.objects.filter(match_id=hand.match_id, number=hand.number - 1).first()
    if previous is None:  # pragma: no cover - hands are numbered from 1 without gaps
        return hand.dealer
    return engine.next_dealer(previous.dealer, engine.HandOutcome.from_dict(previous.outcome))


# --- Real time ----------------------------------------------------------------------------
def match_for_push(*, match_id: int) -> Match | None:
    """The match as a push renders it, with its shown seats and their players loaded once
    for every audience."""
    match = Match.objects.filter(pk=match_id).first()
    if match is not None:
        match.shown_seats = match_seats(match)
    return match


def match_bot_seat(*, match_id: int) -> int | None:
    """The house bot's seat in the match, if it plays in it (its presence is constant)."""
    return Match.objects.filter(pk=match_id).values_list("bot_seat", flat=True).first()


def match_seq(*, match_id: int) -> int | None:
    """The match's feed sequence number now (a socket's heartbeat checks it for gaps)."""
    return Match.objects.filter(pk=match_id).values_list("seq", flat=True).first()


# --- Back office (staff pages) ------------------------------------------------------------
def player_match_list(*, player: Player) -> QuerySet[Match]:
    """Every match the player sat in, newest first, with its shown seats and its hands."""
    return (
        Match.objects.filter(pk__in=Seat.objects.filter(player=player).values("match_id"))
        .order_by("-created_at", "-pk")
        .prefetch_related(
            _shown_seats(), Prefetch("hands", queryset=Hand.objects.order_by("number"))
        )
    )


def hand_is_history(hand: Hand, match: Match) -> bool:
    """Whether the hand is over as ``history_hands`` counts it (ended, or abandoned once
    the game is over): only then may anybody, staff included, see its cards."""
    if hand.status == Hand.Status.ENDED:
        return True
    return hand.status == Hand.Status.ABANDONED and match.status not in (
        Match.Status.WAITING,
        Match.Status.RUNNING,
    )


def finished_hand_cards(hand: Hand, match: Match) -> list[list[str]] | None:
    """Both players' final cards of a hand that is over; None for a hand being played (a
    running hand's cards are never shown, not even to staff)."""
    if not hand_is_history(hand, match):
        return None
    return [[str(card) for card in held] for held in engine.state_from_json(hand.state).hands]
