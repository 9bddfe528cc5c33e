"""Rooms, tables, seats, matches, hands and hand events (docs/games.md).

- A Room (one operator, one variant, rule options, stakes, target, fee, currency, practice or
  real money, turn time) has Tables.
- A Table hosts one Match at a time. The first player to sit opens a ``waiting`` Match (its
  escrow is ``game_ref = "match:<pk>"`` in the wallet); the second seat starts it.
- A Seat is one player's place in one Match, with the money it escrowed.
- A Match has Hands; every change to a hand is a HandEvent, numbered per hand (``seq``) and
  per match (``match_seq``, the events feed and the ``expected_seq`` of the action API).
- A hand is replayable from its server seed, its dealer, the match's rules and the actions
  recorded on its events (``selectors.hand_replay``).

The server seed and the full hand state (which holds the stock order and both hands) are
stored here but are never serialized to a player before the hand ends; the player API goes
through ``games.engine.player_view`` / ``event_view`` only.
"""

from __future__ import annotations

from django.core.serializers.json import DjangoJSONEncoder
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone

from games import engine
from games.house_bots import BotLevel as BotLevel  # the house bot's rows, named here too
from games.house_bots import HouseBot as HouseBot
from games.turn_clock import TurnClockOptions, turn_clock_constraints
from games.turn_clock import TurnProtection as TurnProtection  # R13's model, named here too
from gin_platform.models import Operator, Player

# R12: a table seats 2 (heads-up), 3 or 4 players; positions are 0..seats-1.
SEAT_COUNTS = (2, 3, 4)
MAX_SEATS = max(SEAT_COUNTS)
SEAT_POSITIONS = tuple(range(MAX_SEATS))
PRIZE_TABLES = tuple(engine.PRIZE_TABLES)  # R12: how a 3-4 player pot is shared
WINNER_TAKES_ALL = "winner_takes_all"
MAX_FEE_BPS = 10_000
MIN_TURN_SECONDS, MAX_TURN_SECONDS = 5, 600
MATCH_PLAY_TARGETS = engine.MATCH_PLAY_TARGETS  # R10, from the engine
MONEY_PLAY_TARGETS = engine.MONEY_PLAY_TARGETS


class Variant(models.TextChoices):
    """R10: the three ways to play for money."""

    FTK = engine.FIRST_TO_KNOCK, "First To Knock"
    MATCH = engine.MATCH_PLAY, "Match Play"
    MONEY = engine.MONEY_PLAY, "Money Play"


class Room(TurnClockOptions):
    """R11: many tables with one variant, stake, target and rule options; R13's clock options
    (``TurnClockOptions``). A tournament room (R14) holds a tournament's matches: no stake,
    never in the lobby, no seat taken but the one the tournament reserved."""

    class Purpose(models.TextChoices):
        CASH = "cash"  # the lobby's tables, a stake per game (R10, R11)
        TOURNAMENT = "tournament"  # R14: tables the tournament seats its matches at

    operator = models.ForeignKey(Operator, on_delete=models.PROTECT, related_name="rooms")
    name = models.CharField(max_length=100)
    variant = models.CharField(max_length=8, choices=Variant.choices)
    # games.engine.RuleSet.to_dict(): knock limit, bonuses, tie rule, stock exhaustion (R6-R9).
    rules = models.JSONField(default=dict)
    # R10: 100/250/500 for Match Play, 50/100 for Money Play, none for First To Knock.
    target = models.PositiveIntegerField(null=True, blank=True)
    # First To Knock and Match Play: each player's stake, minor units of ``currency``.
    stake = models.BigIntegerField(null=True, blank=True)
    # Money Play: the stakes per point a table may play at (minor units), and the bounds of
    # the amount a player brings to the table cashier.
    stake_per_point_choices = models.JSONField(default=list, blank=True)
    cashier_min = models.BigIntegerField(null=True, blank=True)
    cashier_max = models.BigIntegerField(null=True, blank=True)
    fee_bps = models.PositiveIntegerField(
        default=0, validators=[MaxValueValidator(MAX_FEE_BPS)], help_text="Fee in basis points"
    )
    currency = models.CharField(max_length=3)
    is_practice = models.BooleanField(default=False)
    # Practice rooms only (R11): the house bot takes the second seat as soon as a player sits
    # down alone. Real-money rooms never seat the bot (database CHECK).
    bot_enabled = models.BooleanField(default=False)
    # Practice rooms only: the level the house bot plays at here (when it sits down by
    # itself, and when a player invites it naming none). Null (no level, which the CHECK
    # below tests) at a real-money room.
    bot_level = models.CharField(max_length=8, choices=BotLevel.choices, null=True, blank=True)  # noqa: DJ001
    turn_seconds = models.PositiveIntegerField(
        default=30,
        validators=[MinValueValidator(MIN_TURN_SECONDS), MaxValueValidator(MAX_TURN_SECONDS)],
    )
    # R12: the seat count (2 heads-up; 3 or 4 for First To Knock and Match Play only; also
    # ``rules["seats"]``, so the engine deals 7 cards) and the prize table sharing the pot
    # less the fee (winner takes all with 2 seats and in First To Knock). With 3-4 seats a
    # Match Play ``target`` is the penalty target (R12 "points against", 100 by default).
    seats = models.PositiveSmallIntegerField(default=2)
    prize_table = models.CharField(max_length=20, default=WINNER_TAKES_ALL)
    purpose = models.CharField(max_length=10, choices=Purpose.choices, default=Purpose.CASH)
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        indexes = [models.Index(fields=("operator", "created_at"))]
        constraints = [
            *turn_clock_constraints("room"),
            models.CheckConstraint(
                condition=Q(seats=2, prize_table=WINNER_TAKES_ALL)
                | Q(seats__in=(3, 4), variant__in=("ftk", "match"), prize_table__in=PRIZE_TABLES),
                name="room_seats_and_prize_table",
            ),
            models.CheckConstraint(
                condition=Q(fee_bps__gte=0, fee_bps__lte=MAX_FEE_BPS), name="room_fee_bps_range"
            ),
            models.CheckConstraint(
                condition=Q(turn_seconds__gte=MIN_TURN_SECONDS)
                & Q(turn_seconds__lte=MAX_TURN_SECONDS),
                name="room_turn_seconds_range",
            ),
            models.CheckConstraint(
                condition=Q(bot_enabled=False) | Q(is_practice=True),
                name="room_bot_only_in_practice",
            ),
            models.CheckConstraint(
                condition=Q(bot_level__isnull=True) | Q(is_practice=True),
                name="room_bot_level_only_in_practice",
            ),
            models.CheckConstraint(
                condition=(
                    Q(variant="ftk", target__isnull=True, stake__gt=0)
                    | Q(variant="match", target__in=MATCH_PLAY_TARGETS, stake__gt=0)
                    | Q(
                        variant="money",
                        target__in=MONEY_PLAY_TARGETS,
                        stake__isnull=True,
                        cashier_min__gt=0,
                        cashier_max__gte=models.F("cashier_min"),
                    )
                    # R14: each match has its own target; nothing staked, no fee, no chips.
                    | Q(purpose="tournament", variant__in=("ftk", "match"), target=None, stake=None)
                    & Q(cashier_min=None, cashier_max=None, fee_bps=0, is_practice=False)
                ),
                name="room_variant_shape",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.get_variant_display()})"


class NetworkRoomOptIn(models.Model):
    """An operator offering one network room to its players (docs/network.md); a member
    with ``NetworkMembership.all_rooms`` needs no row per room."""

    operator = models.ForeignKey(Operator, on_delete=models.PROTECT, related_name="+")
    room = models.ForeignKey(Room, on_delete=models.PROTECT, related_name="network_opt_ins")
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=("operator", "room"), name="network_room_opt_in_once")
        ]

    def __str__(self) -> str:
        return f"{self.operator_id} in room {self.room_id}"


class Table(models.Model):
    """A place in a room where two players meet. ``status`` is the operator's switch; whether
    a match is being played there is the table's current Match."""

    class Status(models.TextChoices):
        OPEN = "open"
        CLOSED = "closed"

    room = models.ForeignKey(Room, on_delete=models.PROTECT, related_name="tables")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.OPEN)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ("pk",)

    def __str__(self) -> str:
        return f"table #{self.pk} of {self.room.name}"


class Match(TurnClockOptions):
    """One game at a table, from the first seat to its result (R10).

    The room's options are copied here when the match opens, so a room edited later never
    changes a game already under way.
    """

    class Status(models.TextChoices):
        WAITING = "waiting"  # seats filling; the escrow holds the seated players' buy-ins
        RUNNING = "running"
        FINISHED = "finished"  # result recorded; match_finished sent; settlement pending
        SETTLED = "settled"  # settlement posted (settlement app)
        ABORTED = "aborted"  # everybody left before it started; buy-ins refunded
        SUSPENDED = "suspended"  # R13: interrupted past the limit; no move until voided
        VOIDED = "voided"  # R13: every stake returned, no fee

    # Statuses in which the match's feed still grows (a long poll waits only on those).
    LIVE_STATUSES = (Status.WAITING, Status.RUNNING)

    class ForfeitReason(models.TextChoices):
        LEFT = "left"
        TIMEOUT = "timeout"
        RESIGNED = "resigned"
        ABSENT = "absent"  # R14 "Absence": the reserved seat was not taken in time

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="matches")
    room = models.ForeignKey(Room, on_delete=models.PROTECT, related_name="matches")
    operator = models.ForeignKey(Operator, on_delete=models.PROTECT, related_name="+")
    # Snapshot of the room (see the class docstring).
    variant = models.CharField(max_length=8, choices=Variant.choices)
    rules = models.JSONField(default=dict)
    target = models.PositiveIntegerField(null=True, blank=True)
    stake = models.BigIntegerField(null=True, blank=True)
    # Money Play: the stake per point the table plays at, chosen by the first player seated.
    stake_per_point = models.BigIntegerField(null=True, blank=True)
    currency = models.CharField(max_length=3)
    fee_bps = models.PositiveIntegerField(default=0)
    is_practice = models.BooleanField(default=False)
    turn_seconds = models.PositiveIntegerField(default=30)

    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WAITING)
    # Per-match event counter: the match_seq of the last HandEvent (0 before the first deal).
    seq = models.PositiveBigIntegerField(default=0)
    points_0 = models.PositiveIntegerField(default=0)
    points_1 = models.PositiveIntegerField(default=0)
    hands_won_0 = models.PositiveIntegerField(default=0)
    hands_won_1 = models.PositiveIntegerField(default=0)
    # R12 (docs/games.md "Three and four players"): the seat count and prize table copied
    # from the room; with 3-4 seats the running score is ``seat_scores`` =
    # {"penalty_totals": [..], "hands_won": [..]}, one entry per seat (the heads-up columns
    # above stay 0), and ``forfeits`` lists the seats that forfeited, in order:
    # [{"seat": 2, "reason": "timeout"}, ...] (a heads-up forfeit is ``forfeit_seat``).
    seat_count = models.PositiveSmallIntegerField(default=2)
    prize_table = models.CharField(max_length=20, default=WINNER_TAKES_ALL)
    seat_scores = models.JSONField(default=dict, blank=True)
    forfeits = models.JSONField(default=list, blank=True)
    winner_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    forfeit_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    forfeit_reason = models.CharField(
        max_length=10, choices=ForfeitReason.choices, blank=True, default=""
    )
    # Practice: the house bot's position, fixed when the match starts (null: two players).
    # Kept on the row so a move knows whether the bot answers without another query.
    bot_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    # Every seat the house bots hold in a practice match (R12: up to three at a 4-seat
    # table); ``bot_seat`` is the first of them.
    bot_seats = models.JSONField(default=list, blank=True)
    # The result settlement reads (docs/games.md "Match result"); set when finished.
    result = models.JSONField(null=True, blank=True, encoder=DjangoJSONEncoder)
    # R13, per seat: the time bank left (ms), auto-played turns, protected turns, and the
    # seats given the reconnect grace that have not moved since (games/services/turn_clock.py).
    clocks = models.JSONField(default=dict, blank=True)
    # R14 (``tournament_matches``): the tournament's reference for its match and, while it
    # waits for its players, when the seats not taken forfeit (cleared once it starts).
    external_ref = models.CharField(max_length=64, null=True, blank=True, unique=True)
    no_show_deadline = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    settled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "matches"
        indexes = [
            models.Index(fields=("operator", "created_at")),
            models.Index(fields=("status", "finished_at")),
            # A table's open game (seating, the lobby): the unique index below is partial on
            # status, which a prepared statement's generic plan cannot use for
            # ``status IN ($2, $3)``; without this it reads every game the table ever hosted.
            models.Index(fields=("table", "status"), name="match_table_status"),
            # R14's no-show sweep: only the matches waiting for their players have a deadline.
            models.Index(
                fields=("no_show_deadline",),
                name="match_no_show_deadline",
                condition=Q(no_show_deadline__isnull=False),
            ),
        ]
        constraints = [
            # A table hosts one game at a time.
            models.UniqueConstraint(
                fields=("table",),
                condition=Q(status__in=("waiting", "running")),
                name="match_one_open_per_table",
            ),
            models.CheckConstraint(
                condition=Q(winner_seat__isnull=True) | Q(winner_seat__in=SEAT_POSITIONS),
                name="match_winner_seat_valid",
            ),
            models.CheckConstraint(
                condition=Q(forfeit_seat__isnull=True) | Q(forfeit_seat__in=SEAT_POSITIONS),
                name="match_forfeit_seat_valid",
            ),
            models.CheckConstraint(
                condition=Q(bot_seat__isnull=True)
                | Q(bot_seat__in=SEAT_POSITIONS, is_practice=True),
                name="match_bot_seat_valid_practice_only",
            ),
            models.CheckConstraint(
                condition=Q(status__in=("waiting", "running", "aborted", "suspended", "voided"))
                | Q(result__isnull=False, finished_at__isnull=False),
                name="match_finished_has_result",
            ),
            models.CheckConstraint(
                condition=Q(seat_count__in=SEAT_COUNTS), name="match_seat_count_valid"
            ),
            *turn_clock_constraints("match"),
        ]

    def __str__(self) -> str:
        return f"match #{self.pk} ({self.variant}, {self.status})"

    @property
    def game_ref(self) -> str:
        """The wallet's escrow reference for this game."""
        return f"match:{self.pk}"

    @property
    def is_tournament(self) -> bool:
        """R14: a tournament's match (no stake, no escrow: the tournament pays the prizes)."""
        return self.external_ref is not None

    @property
    def is_multi(self) -> bool:
        """R12: a three- or four-player game."""
        return self.seat_count > 2

    @property
    def positions(self) -> tuple[int, ...]:
        return tuple(range(self.seat_count))

    @property
    def points(self) -> tuple[int, ...]:
        """Heads-up: each seat's hand points; R12: each seat's penalty total."""
        if self.is_multi:
            return tuple(self.seat_scores.get("penalty_totals") or (0,) * self.seat_count)
        return (self.points_0, self.points_1)

    @property
    def hands_won(self) -> tuple[int, ...]:
        if self.is_multi:
            return tuple(self.seat_scores.get("hands_won") or (0,) * self.seat_count)
        return (self.hands_won_0, self.hands_won_1)

    @property
    def forfeited_seats(self) -> tuple[int, ...]:
        """R12: the seats that forfeited, in the order they left."""
        return tuple(entry["seat"] for entry in self.forfeits)

    @property
    def house_bot_seats(self) -> tuple[int, ...]:
        if self.bot_seats:
            return tuple(self.bot_seats)
        return () if self.bot_seat is None else (self.bot_seat,)


class Seat(models.Model):
    """One player's place in one match, with what they escrowed to sit there."""

    class State(models.TextChoices):
        SEATED = "seated"  # waiting for an opponent; the buy-in is in escrow
        PLAYING = "playing"
        LEFT = "left"  # left before the match started; the buy-in was refunded
        FINISHED = "finished"  # the match ended (result, forfeit); settlement pays out
        RESERVED = "reserved"  # R14: kept for its player, not taken yet (not seated, no charge)
        ABSENT = "absent"  # R14 "Absence": the reserved seat was not taken in time

    ACTIVE_STATES = (State.SEATED, State.PLAYING)
    # Not the match's any more, never shown (an absent seat's position may be reused).
    GONE_STATES = (State.LEFT, State.ABSENT)

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="seats")
    match = models.ForeignKey(Match, on_delete=models.PROTECT, related_name="seats")
    position = models.PositiveSmallIntegerField()
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="seats")
    state = models.CharField(max_length=10, choices=State.choices, default=State.SEATED)
    # Escrowed at the table cashier: the stake (FTK, Match Play) or the cashier amount
    # (Money Play), minor units of ``currency``.
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=3)
    buy_in_reference = models.CharField(max_length=64, blank=True, default="")
    refund_reference = models.CharField(max_length=64, blank=True, default="")
    # A house bot's seat (practice only): the level it plays at; null for a person.
    bot_level = models.CharField(max_length=8, choices=BotLevel.choices, null=True, blank=True)  # noqa: DJ001
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    left_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("match", "position")
        indexes = [models.Index(fields=("player", "state"))]
        constraints = [
            models.CheckConstraint(
                condition=Q(position__in=SEAT_POSITIONS), name="seat_position_valid"
            ),
            models.CheckConstraint(condition=Q(amount__gte=0), name="seat_amount_non_negative"),
            models.UniqueConstraint(
                fields=("match", "position"),
                condition=Q(state__in=("reserved", "seated", "playing", "finished")),
                name="seat_position_taken_once",
            ),
            models.UniqueConstraint(
                fields=("match", "player"),
                condition=Q(state__in=("reserved", "seated", "playing", "finished")),
                name="seat_player_once_per_match",
            ),
        ]

    def __str__(self) -> str:
        return f"seat {self.position} of match #{self.match_id} ({self.player_id})"

    @property
    def is_active(self) -> bool:
        return self.state in self.ACTIVE_STATES


class Hand(models.Model):
    """One deal of a match (R3-R9). ``state`` is ``games.engine.state_to_json``: it holds
    the seed, the stock order and both hands, so it never leaves the server as such."""

    class Status(models.TextChoices):
        IN_PROGRESS = "in_progress"
        ENDED = "ended"  # gone out or void (R6, R7): outcome recorded
        ABANDONED = "abandoned"  # the match ended by forfeit during this hand (R10)

    # No index of its own: ``hand_number_unique`` (match, number) leads with it. Every
    # change of an indexed column writes each index, and hands change on every move.
    match = models.ForeignKey(Match, on_delete=models.PROTECT, related_name="hands", db_index=False)
    number = models.PositiveIntegerField()
    dealer = models.PositiveSmallIntegerField()
    server_seed = models.CharField(max_length=128)
    seed_commitment = models.CharField(max_length=64)
    state = models.JSONField()
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.IN_PROGRESS)
    # Denormalised from ``state`` for the turn check and the turn-timer sweep.
    seq = models.PositiveIntegerField(default=0)
    to_act = models.PositiveSmallIntegerField(null=True, blank=True)
    turn_deadline = models.DateTimeField(null=True, blank=True)
    # R13: what the deadline ends (the turn's own clock, the reconnect grace, the time bank)
    # and when that stage began (the bank is charged from then).
    turn_stage = models.CharField(max_length=5, default="turn")
    stage_started_at = models.DateTimeField(null=True, blank=True)
    # The seq of the hand's last HandEvent.
    event_seq = models.PositiveIntegerField(default=0)
    outcome = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("match", "number")
        indexes = [
            # The turn-timer sweep's index: only open turns have a deadline (every way a hand
            # ends clears it), and ``turn_deadline < $1`` implies the predicate, so the sweep's
            # generic plan uses it (with ``status = 'in_progress'`` it could not: docs/deploy.md).
            models.Index(
                fields=("turn_deadline",),
                condition=Q(turn_deadline__isnull=False),
                name="hand_open_turn_deadline",
            )
        ]
        constraints = [
            models.UniqueConstraint(fields=("match", "number"), name="hand_number_unique"),
            models.UniqueConstraint(
                fields=("match",),
                condition=Q(status="in_progress"),
                name="hand_one_in_progress_per_match",
            ),
            models.CheckConstraint(
                condition=Q(dealer__in=SEAT_POSITIONS), name="hand_dealer_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"hand {self.number} of match #{self.match_id}"

    @property
    def is_over(self) -> bool:
        return self.status != self.Status.IN_PROGRESS

    def engine_state(self) -> engine.HandState:
        """``state`` as the engine's hand state, parsed once per stored document: a move
        parses it, then its answer and its pushes render the same state for every audience.
        Keyed by the document's identity, so a hand given a new document (``engine_state_set``,
        a reload) is parsed again."""
        parsed = self.__dict__.get("_engine_state")
        if parsed is None or parsed[0] is not self.state:
            parsed = (self.state, engine.state_from_json(self.state))
            self.__dict__["_engine_state"] = parsed
        return parsed[1]

    def engine_state_set(self, state: engine.HandState) -> None:
        """Store ``state`` (the caller saves the row); ``engine_state`` answers it unparsed."""
        self.state = engine.state_to_json(state)
        self.__dict__["_engine_state"] = (self.state, state)


class HandEvent(models.Model):
    """Something that happened in a hand, in order.

    ``kind`` is an engine event kind (``games.engine.EVENT_KINDS``) or one of the table's own:
    ``hand_dealt`` (public: dealer, seed commitment), ``forfeit`` and ``match_finished``.
    ``payload`` holds the full event (a stock draw's card, the revealed seed, ...): what a
    viewer receives is filtered by ``games.engine.event_view``. ``action`` is the player's
    action that produced the event (on the first event of each action only): the hand is
    replayed from the seed and these.
    """

    DEALT, FORFEIT, MATCH_FINISHED = "hand_dealt", "forfeit", "match_finished"
    MATCH_VOIDED = "match_voided"  # R13: interrupted past the limit
    TABLE_KINDS = (DEALT, FORFEIT, MATCH_FINISHED, MATCH_VOIDED)

    # No indexes of their own: the unique constraints below lead with each. Every move
    # appends events, and every index of the table is written with each row.
    hand = models.ForeignKey(Hand, on_delete=models.PROTECT, related_name="events", db_index=False)
    match = models.ForeignKey(
        Match, on_delete=models.PROTECT, related_name="events", db_index=False
    )
    seq = models.PositiveIntegerField()
    match_seq = models.PositiveBigIntegerField()
    # The engine's state sequence number after the event (HandState.seq).
    state_seq = models.PositiveIntegerField(default=0)
    kind = models.CharField(max_length=20)
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    action = models.JSONField(null=True, blank=True)
    payload = models.JSONField(default=dict, blank=True)
    # Who caused it (audit): "player:<uuid>", "system:<name>".
    actor = models.CharField(max_length=80, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ("match", "match_seq")
        constraints = [
            models.UniqueConstraint(fields=("hand", "seq"), name="hand_event_seq_unique"),
            models.UniqueConstraint(
                fields=("match", "match_seq"), name="hand_event_match_seq_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} #{self.match_seq} of match #{self.match_id}"


class WaitingListEntry(models.Model):
    """A player waiting for an opponent in a room (docs/network.md "Lobby and waiting list"):
    nothing is charged while waiting; when an opponent is there the player is seated through
    ``seat_take`` (buy-in and all) and the entry points at the seat. An entry ends seated,
    left (the player), expired (``expires_at`` passed) or refused (the seat was refused:
    ``problem_type`` says why, e.g. insufficient funds)."""

    class Status(models.TextChoices):
        WAITING = "waiting"
        SEATED = "seated"
        LEFT = "left"
        EXPIRED = "expired"
        REFUSED = "refused"

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    room = models.ForeignKey(Room, on_delete=models.PROTECT, related_name="waiting_list")
    # Money Play: the stake per point and the cashier amount to sit with (minor units).
    stake_per_point = models.BigIntegerField(null=True, blank=True)
    cashier_amount = models.BigIntegerField(null=True, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WAITING)
    seat = models.ForeignKey(
        Seat, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    problem_type = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    expires_at = models.DateTimeField()
    # When a matching run took the entry to seat it (status ``seated``, no seat yet): an
    # entry left like that by a run that died is repaired by ``waiting_list_expire``.
    claimed_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=("room", "status", "created_at"))]
        constraints = [
            models.UniqueConstraint(
                fields=("player", "room"),
                condition=Q(status="waiting"),
                name="waiting_list_once_per_room",
            )
        ]

    def __str__(self) -> str:
        return f"{self.player_id} waiting in room {self.room_id} ({self.status})"
