"""Input and output serializers of the games endpoints (shape only, no rules); the query
parameters' are in ``games.api.filters``.

Output serializers are also the whitelist: only the fields declared here leave the server,
so a field added to an engine view later can never leak by accident; ``games.api.presenters``
builds each shape from them (``presenters.declared_fields``): each is written once, here.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from games import engine
from games.api import clocks as clock_api
from games.api.choices import MATCH_END_REASONS, MATCH_EVENT_KINDS
from games.models import BotLevel, Match, Room, Seat, Table, Variant
from gin_platform.api.fields import DecimalString, JsonObject
from gin_platform.api.inputs import StrictInput
from gin_platform.api.serializers import OptionallyDisplayedMoney
from gin_platform.money import PRACTICE_CURRENCY, CurrencyError, money_dict, normalize_currency
from wallet.amounts import parse_money


def choice(choices, **kwargs) -> serializers.ChoiceField:
    """A ChoiceField: the schema lists its values as an enum. drf-spectacular names enum
    components by field name, so each set of games values (a ``status``, ``state`` or
    ``kind`` that another app also has) is named in SPECTACULAR_SETTINGS
    ``ENUM_NAME_OVERRIDES`` (``MatchStatusEnum``, ``SeatStateEnum``, ``ActionKindEnum``, ...)."""
    return serializers.ChoiceField(choices=choices, **kwargs)


def parse_amount(value: object, currency: str, field: str) -> int | None:
    """A money field's raw JSON value in ``currency`` -> signed minor units; None stays None.

    The API's one rule for amounts (``wallet.amounts.parse_money``): a JSON string of ASCII
    digits, at most the currency's decimals; otherwise ``amount-invalid`` or
    ``amount-too-precise`` (422, naming ``field``). The games services judge the range
    (a stake must be positive, a cashier amount within the room's bounds)."""
    if value is None:
        return None
    return parse_money(value, currency, field=field)


# --- Rooms ----------------------------------------------------------------------------
class RoomCreateInput(StrictInput):
    name = serializers.CharField(max_length=100)
    variant = choice(Variant.choices)
    is_practice = serializers.BooleanField(required=False, default=False)
    bot_enabled = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Practice rooms only: the house bot takes the second seat at once",
    )
    bot_level = choice(
        BotLevel.choices,
        required=False,
        allow_null=True,
        default=None,
        help_text="Practice rooms only: the house bot's level (easy by default); refused "
        "(invalid-room-options) at a real-money room",
    )
    currency = serializers.CharField(
        max_length=3,
        required=False,
        help_text="Defaults to the operator's base currency; XGC (chips) for practice rooms",
    )
    rules = serializers.DictField(
        required=False,
        default=dict,
        help_text=(
            "Rule options (R6, R7, R9): knock_limit, gin_bonus, big_gin_bonus, "
            "undercut_bonus, tie_rule, stock_exhaustion; defaults as in docs/rules.md"
        ),
    )
    target = serializers.IntegerField(
        required=False, allow_null=True, default=None, min_value=0, max_value=10_000
    )
    stake = DecimalString(required=False, allow_null=True, default=None)
    stake_per_point_choices = serializers.ListField(
        child=DecimalString(), required=False, default=list
    )
    cashier_min = DecimalString(required=False, allow_null=True, default=None)
    cashier_max = DecimalString(required=False, allow_null=True, default=None)
    # Wide bounds that only keep numbers storable; the service says what each variant allows.
    fee_bps = serializers.IntegerField(required=False, default=0, min_value=0, max_value=10**6)
    turn_seconds = serializers.IntegerField(
        required=False, default=30, min_value=0, max_value=10**6
    )
    turn_clock = clock_api.TurnClockOptionsInput(required=False, help_text="R13's clock options")
    tables = serializers.IntegerField(required=False, default=1, min_value=0, max_value=10**6)
    seats = serializers.IntegerField(
        required=False, default=None, allow_null=True, min_value=0, max_value=100,
        help_text="2 (default), or 3-4 for First To Knock and Match Play (R12)",
    )  # fmt: skip
    prize_table = serializers.CharField(
        required=False, default=None, allow_null=True, max_length=20,
        help_text="R12: winner_takes_all (default); 70_30 (3 seats); 65_35, 50_30_20 (4)",
    )  # fmt: skip

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        practice = attrs["is_practice"]
        currency = attrs.get("currency") or (
            PRACTICE_CURRENCY if practice else self.context["operator"].base_currency
        )
        try:
            currency = normalize_currency(currency)
        except CurrencyError as exc:
            raise serializers.ValidationError({"currency": [str(exc)]}) from exc
        attrs["currency"] = currency
        for field in ("stake", "cashier_min", "cashier_max"):
            attrs[field] = parse_amount(attrs[field], currency, field)
        attrs["stake_per_point_choices"] = [
            parse_amount(value, currency, "stake_per_point_choices")
            for value in attrs["stake_per_point_choices"]
        ]
        return attrs


class RoomUpdateInput(StrictInput):
    name = serializers.CharField(max_length=100, required=False)
    active = serializers.BooleanField(required=False)


def _money(amount: int | None, currency: str) -> dict[str, str] | None:
    return None if amount is None else money_dict(amount, currency)


class RoomOutput(serializers.ModelSerializer):
    variant = choice(Variant.choices)
    stake = serializers.SerializerMethodField()
    stake_per_point_choices = serializers.SerializerMethodField()
    cashier_min = serializers.SerializerMethodField()
    cashier_max = serializers.SerializerMethodField()
    tables = serializers.SerializerMethodField()
    turn_clock = clock_api.TurnClockOptionsOutput(source="*")

    class Meta:
        model = Room
        fields: tuple[str, ...] = (
            "id",
            "name",
            "variant",
            "rules",
            "target",
            "stake",
            "stake_per_point_choices",
            "cashier_min",
            "cashier_max",
            "fee_bps",
            "currency",
            "is_practice",
            "bot_enabled",
            "bot_level",
            "turn_seconds",
            "turn_clock",
            "seats",
            "prize_table",
            "purpose",
            "active",
            "tables",
            "created_at",
        )

    def get_stake(self, room: Room) -> OptionallyDisplayedMoney(allow_null=True):  # type: ignore[valid-type]  # drf-spectacular reads a field instance as the schema of the answer
        return _money(room.stake, room.currency)

    def get_stake_per_point_choices(self, room: Room) -> OptionallyDisplayedMoney(many=True):  # type: ignore[valid-type]  # drf-spectacular reads a field instance as the schema of the answer
        return [_money(choice, room.currency) for choice in room.stake_per_point_choices]

    def get_cashier_min(self, room: Room) -> OptionallyDisplayedMoney(allow_null=True):  # type: ignore[valid-type]  # drf-spectacular reads a field instance as the schema of the answer
        return _money(room.cashier_min, room.currency)

    def get_cashier_max(self, room: Room) -> OptionallyDisplayedMoney(allow_null=True):  # type: ignore[valid-type]  # drf-spectacular reads a field instance as the schema of the answer
        return _money(room.cashier_max, room.currency)

    def get_tables(self, room: Room) -> int:
        return room.table_count  # type: ignore[attr-defined]  # annotated by selectors.room_list / room_get; the field is declared for any Room


class TableOutput(serializers.ModelSerializer):
    room_id = serializers.IntegerField(read_only=True)
    status = choice(Table.Status.choices)

    class Meta:
        model = Table
        fields = ("id", "room_id", "status", "created_at")


# --- Seats ----------------------------------------------------------------------------
class SitInput(StrictInput):
    cashier_amount = DecimalString(
        required=False,
        allow_null=True,
        default=None,
        help_text="Money Play: what to bring to the table cashier (decimal string)",
    )
    stake_per_point = DecimalString(
        required=False,
        allow_null=True,
        default=None,
        help_text="Money Play: one of the room's stakes per point (decimal string)",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """The amounts in the table's currency (``context["currency"]``), in minor units."""
        currency = self.context["currency"]
        return {field: parse_amount(attrs[field], currency, field) for field in attrs}


# Renders ``presenters.player_seat(seat, player=...)``: every amount answered to a player is
# also shown in their display currency (R11).
class BotSeatInput(StrictInput):
    bot_level = choice(
        BotLevel.choices,
        required=False,
        allow_null=True,
        default=None,
        help_text="How well the bot plays (docs/engine.md); by default the room's level",
    )


class SeatOutput(serializers.ModelSerializer):
    room_id = serializers.IntegerField(read_only=True)
    table_id = serializers.IntegerField(read_only=True)
    match_id = serializers.IntegerField(read_only=True)
    match_status = choice(Match.Status.choices, read_only=True)
    state = choice(Seat.State.choices)
    amount = OptionallyDisplayedMoney(read_only=True)
    stake_per_point = OptionallyDisplayedMoney(read_only=True, allow_null=True)

    class Meta:
        model = Seat
        fields = (
            "id",
            "room_id",
            "table_id",
            "match_id",
            "match_status",
            "position",
            "state",
            "amount",
            "stake_per_point",
            "created_at",
            "left_at",
        )


# --- The game ---------------------------------------------------------------------------
class ActionInput(StrictInput):
    kind = choice(engine.ACTION_KINDS)
    card = serializers.CharField(
        required=False,
        allow_null=True,
        default=None,
        help_text="The card put down, for discard and knock (R1 notation: 7H, TD, 10d)",
    )
    expected_seq = serializers.IntegerField(
        min_value=0,
        max_value=2**63 - 1,
        help_text="The `seq` of the game view this action was decided on",
    )

    def validate_card(self, value: str | None) -> str | None:
        if value is None:
            return None
        try:
            return str(engine.parse_card(value))
        except engine.CardParseError as exc:
            raise serializers.ValidationError(str(exc)) from exc


class MatchPlayerOutput(serializers.Serializer):
    position = serializers.IntegerField()
    display_name = serializers.CharField(
        allow_null=True,
        help_text="Null for another operator's player at a network table (docs/network.md)",
    )
    screen_name = serializers.CharField(allow_null=True)
    operator = serializers.CharField(
        allow_null=True,
        help_text="Network games with operators revealed: the player's operator's name",
    )
    bot_level = choice(
        BotLevel.choices, allow_null=True, help_text="The house bot's level; null for a person"
    )


class ForfeitOutput(serializers.Serializer):
    seat = serializers.IntegerField()
    reason = choice(Match.ForfeitReason.choices)


class MatchResultOutput(serializers.Serializer):
    reason = choice(MATCH_END_REASONS)
    winner_seat = serializers.IntegerField(
        allow_null=True, help_text="Null: Money Play with equal final scores; no contest (R14)"
    )
    reached_target = serializers.IntegerField(
        allow_null=True, help_text="The seat that knocked first (FTK) or reached the target (R10)"
    )
    hand_points = serializers.ListField(child=serializers.IntegerField())
    hands_won = serializers.ListField(child=serializers.IntegerField())
    hands_played = serializers.IntegerField()
    target = serializers.IntegerField(allow_null=True)
    money_play = JsonObject(
        allow_null=True,
        help_text="Money Play final scores (R10): hand points, line, target and zero-point "
        "bonuses, totals, winner, point difference",
    )
    forfeit = ForfeitOutput(allow_null=True)
    # R12 only (3-4 seats): places best first (a shared place lists several seats), each
    # seat's points against, the seats that left in order.
    ranking = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField()), required=False
    )
    penalty_totals = serializers.ListField(child=serializers.IntegerField(), required=False)
    forfeits = ForfeitOutput(many=True, required=False)


class MatchSummaryOutput(serializers.Serializer):
    id = serializers.IntegerField()
    status = choice(Match.Status.choices)
    variant = choice(Variant.choices)
    target = serializers.IntegerField(allow_null=True)
    table_id = serializers.IntegerField()
    room_id = serializers.IntegerField()
    currency = serializers.CharField()
    is_practice = serializers.BooleanField()
    is_tournament = serializers.BooleanField(help_text="R14: a tournament's match (no statement)")
    stake = OptionallyDisplayedMoney(allow_null=True)
    stake_per_point = OptionallyDisplayedMoney(allow_null=True)
    fee_bps = serializers.IntegerField()
    turn_seconds = serializers.IntegerField()
    rules = serializers.JSONField()
    players = MatchPlayerOutput(many=True)
    seats = serializers.IntegerField(help_text="2, 3 or 4 (R12)")
    prize_table = serializers.CharField()
    hand_points = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="Per seat: hand points (heads-up) or penalty totals (3-4 seats, R12)",
    )
    hands_won = serializers.ListField(child=serializers.IntegerField())
    winner_seat = serializers.IntegerField(allow_null=True)
    forfeit = ForfeitOutput(allow_null=True, help_text="Heads-up; 3-4 seats: forfeits")
    forfeits = ForfeitOutput(many=True, help_text="3-4 seats (R12): who left, in order")
    result = MatchResultOutput(allow_null=True)
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    turn_clock = clock_api.TurnClockOptionsOutput(help_text="R13's options, copied from the room")
    clocks = clock_api.SeatClockOutput(many=True, help_text="R13: each seat's time bank and counts")


class PlayerMatchSummaryOutput(MatchSummaryOutput):
    your_seat = serializers.IntegerField()


class LegalActionOutput(serializers.Serializer):
    kind = choice(engine.ACTION_KINDS)
    card = serializers.CharField(allow_null=True)
    deadwood = serializers.IntegerField(
        required=False, help_text="knock only: the deadwood of the ten cards it shows (R6)"
    )


class MeldOutput(serializers.Serializer):
    kind = choice(("set", "run"))
    cards = serializers.ListField(
        child=serializers.CharField(), help_text="A run in rank order, a set in suit order (R2)"
    )


class ShowdownOutput(serializers.Serializer):
    """A hand once it is over: everything is revealed (R8, R9, fairness)."""

    outcome = serializers.JSONField(
        help_text="Kind, knocker, winner, points and the result: both arrangements (melds, "
        "deadwood cards), lay-offs and the hand score (R8, R9); result is null for a void hand"
    )
    hands = serializers.ListField(child=serializers.ListField(child=serializers.CharField()))
    knock_card = serializers.CharField(allow_null=True)
    seed = serializers.CharField(help_text="The revealed server seed: SHA-256 = seed_commitment")
    dealer = serializers.IntegerField()
    discard_pile = serializers.ListField(child=serializers.CharField())
    number = serializers.IntegerField()
    seed_commitment = serializers.CharField()
    # R12 only (3-4 seats): seats that forfeited, their dead cards (count; cards once over).
    seats = serializers.IntegerField(required=False)
    out = serializers.ListField(child=serializers.IntegerField(), required=False)
    dead_count = serializers.IntegerField(required=False)
    dead = serializers.ListField(child=serializers.CharField(), required=False)


class HandViewOutput(serializers.Serializer):
    """A player's view of a hand (docs/games.md): never the opponent's cards or the stock
    order; the seed, both hands and the outcome only once the hand is over."""

    number = serializers.IntegerField()
    status = choice(("in_progress", "ended", "abandoned"))
    seed_commitment = serializers.CharField(help_text="SHA-256 of the hand's server seed")
    turn_deadline = serializers.DateTimeField(allow_null=True)
    turn_stage = choice(clock_api.TURN_STAGES, help_text="What the deadline ends (R13)")
    your_turn = serializers.BooleanField()
    phase = choice(engine.PHASES)
    to_act = serializers.IntegerField(allow_null=True)
    dealer = serializers.IntegerField()
    state_seq = serializers.IntegerField(help_text="The hand's own move counter")
    seat = serializers.IntegerField()
    hand = serializers.ListField(child=serializers.CharField(), help_text="Sorted by suit")
    deadwood = serializers.IntegerField(help_text="R2; with 11 cards, after the best discard")
    melds = MeldOutput(many=True, help_text="Your own cards' best arrangement (R2)")
    deadwood_cards = serializers.ListField(
        child=serializers.CharField(), help_text="Your cards in no meld: they sum to deadwood"
    )
    best_discard = serializers.CharField(
        allow_null=True, help_text="11 cards: the discard the arrangement assumes; else null"
    )
    opponent_card_count = serializers.IntegerField()
    discard_pile = serializers.ListField(child=serializers.CharField(), help_text="Top last")
    stock_count = serializers.IntegerField()
    card_counts = serializers.ListField(child=serializers.IntegerField())
    upcard_passes = serializers.IntegerField()
    taken_from_discard = serializers.CharField(allow_null=True)
    reshuffles = serializers.IntegerField()
    rules = serializers.JSONField()
    legal_actions = LegalActionOutput(many=True)
    outcome = JsonObject(allow_null=True)
    hands = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()),
        required=False,
        help_text="Both hands: only once the hand has ended",
    )
    knock_card = serializers.CharField(required=False, allow_null=True)
    seed = serializers.CharField(
        required=False, help_text="The revealed server seed: only once the hand is over"
    )
    # R12 only (3-4 seats): seats that forfeited, their dead cards (count; cards once over).
    seats = serializers.IntegerField(required=False)
    out = serializers.ListField(child=serializers.IntegerField(), required=False)
    dead_count = serializers.IntegerField(required=False)
    dead = serializers.ListField(child=serializers.CharField(), required=False)


class GameViewOutput(serializers.Serializer):
    seq = serializers.IntegerField(
        help_text="The match's sequence number: send it as expected_seq with the next action"
    )
    match = PlayerMatchSummaryOutput()
    hand = HandViewOutput(allow_null=True)
    previous_hand = ShowdownOutput(allow_null=True)


class EventOutput(serializers.Serializer):
    seq = serializers.IntegerField(help_text="Per-match sequence number")
    hand = serializers.IntegerField(help_text="Hand number")
    state_seq = serializers.IntegerField()
    kind = choice(
        MATCH_EVENT_KINDS,
        help_text="An engine event (an action, stock_reshuffled, hand_ended) or a table event "
        "(hand_dealt, forfeit, match_finished, match_voided)",
    )
    seat = serializers.IntegerField(allow_null=True)
    created_at = serializers.DateTimeField()
    auto = serializers.BooleanField(required=False, help_text="R13: played for the seat")
    card = serializers.CharField(
        required=False, allow_null=True, help_text="Null for another player's stock draw"
    )
    stock_count = serializers.IntegerField(required=False)
    outcome = serializers.JSONField(required=False)
    hands = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()), required=False
    )
    seed = serializers.CharField(required=False)
    number = serializers.IntegerField(required=False)
    dealer = serializers.IntegerField(required=False)
    seed_commitment = serializers.CharField(required=False)
    to_act = serializers.IntegerField(required=False, allow_null=True)
    upcard = serializers.CharField(required=False, help_text="hand_dealt: the upcard (R3)")
    reason = serializers.CharField(required=False)
    winner_seat = serializers.IntegerField(required=False, allow_null=True)
    reached_target = serializers.IntegerField(required=False, allow_null=True)
    hand_points = serializers.ListField(child=serializers.IntegerField(), required=False)
    hands_won = serializers.ListField(child=serializers.IntegerField(), required=False)
    hands_played = serializers.IntegerField(required=False)
    target = serializers.IntegerField(required=False, allow_null=True)
    money_play = JsonObject(required=False, allow_null=True)
    forfeit = ForfeitOutput(required=False, allow_null=True)
    ranking = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField()), required=False
    )
    penalty_totals = serializers.ListField(child=serializers.IntegerField(), required=False)
    forfeits = ForfeitOutput(many=True, required=False)


class EventsOutput(serializers.Serializer):
    seq = serializers.IntegerField(help_text="The match's sequence number now")
    next_after = serializers.IntegerField(help_text="Pass as `after` to read on")
    events = EventOutput(many=True)


class OperatorSeatOutput(serializers.Serializer):
    position = serializers.IntegerField()
    player_id = serializers.UUIDField(
        allow_null=True,
        help_text="Null for another operator's player in a network game (docs/network.md)",
    )
    screen_name = serializers.CharField(allow_null=True)
    state = choice(Seat.State.choices)
    amount = OptionallyDisplayedMoney()


class OperatorMatchOutput(MatchSummaryOutput):
    seats = OperatorSeatOutput(many=True)  # type: ignore[assignment]  # a declared field replacing the base's (DRF's metaclass collects them)
    hands_played = serializers.IntegerField()


# --- Watchers, resigning, hand history, fairness --------------------------------------------
class WatchHandOutput(serializers.Serializer):
    """A hand as a watcher sees it (R11): the public table only; the showdown (both hands,
    outcome, seed) once it has ended."""

    number = serializers.IntegerField()
    status = choice(("in_progress", "ended", "abandoned"))
    seed_commitment = serializers.CharField(help_text="SHA-256 of the hand's server seed")
    turn_deadline = serializers.DateTimeField(allow_null=True)
    turn_stage = choice(clock_api.TURN_STAGES, help_text="What the deadline ends (R13)")
    phase = choice(engine.PHASES)
    to_act = serializers.IntegerField(allow_null=True)
    dealer = serializers.IntegerField()
    state_seq = serializers.IntegerField()
    discard_pile = serializers.ListField(child=serializers.CharField(), help_text="Top last")
    stock_count = serializers.IntegerField()
    card_counts = serializers.ListField(child=serializers.IntegerField())
    upcard_passes = serializers.IntegerField()
    taken_from_discard = serializers.CharField(allow_null=True)
    reshuffles = serializers.IntegerField()
    rules = serializers.JSONField()
    outcome = JsonObject(allow_null=True)
    hands = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()),
        required=False,
        help_text="Both hands: only once the hand has ended",
    )
    knock_card = serializers.CharField(required=False, allow_null=True)
    seed = serializers.CharField(required=False, help_text="Only once the hand is over")
    # R12 only (3-4 seats): seats that forfeited, their dead cards (count; cards once over).
    seats = serializers.IntegerField(required=False)
    out = serializers.ListField(child=serializers.IntegerField(), required=False)
    dead_count = serializers.IntegerField(required=False)
    dead = serializers.ListField(child=serializers.CharField(), required=False)


class WatchViewOutput(serializers.Serializer):
    seq = serializers.IntegerField(help_text="The match's sequence number")
    match = MatchSummaryOutput()
    hand = WatchHandOutput(allow_null=True)
    previous_hand = ShowdownOutput(allow_null=True)


class ResignInput(StrictInput):
    expected_seq = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=0,
        max_value=2**63 - 1,
        help_text="Optional: resign only if the game is still at this `seq`",
    )
