from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from games.api.choices import FORFEIT_REASONS, MATCH_END_REASONS, VARIANTS
from gin_platform.api.fields import JsonObject
from gin_platform.api.serializers import Money
from settlement import payouts

# The tags of a statement's lines (settlement.payouts): why each amount moves.
PAYOUT_COMPONENTS = (
    payouts.STAKE,
    payouts.POT,
    payouts.FEE_DEDUCTION,
    payouts.CASHIER_RETURN,
    payouts.POINTS,
    payouts.LINE_BONUS,
    payouts.TARGET_BONUS,
    payouts.ZERO_POINT_BONUS,
    payouts.CAP_ADJUSTMENT,
)


class SettlementOutput(serializers.Serializer):
    match_id = serializers.IntegerField()
    variant = serializers.ChoiceField(choices=VARIANTS)
    currency = serializers.CharField()
    is_practice = serializers.BooleanField()
    mode = serializers.ChoiceField(
        choices=("live", "test"), help_text="test: a sandbox game (test money, docs/api.md)"
    )
    escrow = Money()
    fee = Money()
    settled_at = serializers.DateTimeField()
    ledger_reference = serializers.CharField()
    statement = serializers.JSONField(
        help_text="Every line: hand points, bonuses, stake per point, caps, fee, FX, payouts"
    )


class ReportTotalsOutput(serializers.Serializer):
    day = serializers.DateField()
    operator = serializers.CharField()
    currency = serializers.CharField()
    games = serializers.IntegerField(help_text="Games settled that day")
    player_games = serializers.IntegerField(
        help_text="Seats in those games (a heads-up game counts 2): the sum of the players "
        "table's `games`"
    )
    turnover = serializers.CharField(help_text="Stakes and cashier amounts in those escrows")
    fees = serializers.CharField(help_text="What the house kept (the platform's revenue)")
    payouts = serializers.CharField(help_text="What the escrows paid the players: turnover - fees")
    bonus_points = serializers.IntegerField(
        help_text="Line, target and zero-point bonus points awarded (Money Play)"
    )
    mode = serializers.ChoiceField(
        choices=("live", "test"), help_text="test: a sandbox operator's row (test money)"
    )
    ggr = serializers.CharField(
        help_text="Gross gaming revenue: the rake the operator keeps (peer-to-peer), "
        "= fees + tournament_fees"
    )
    ngr = serializers.CharField(
        help_text="Net gaming revenue: ggr minus fees handed back by reversals, manual "
        "adjustments credited to players and the promotion cost, as posted that day"
    )
    tournament_fees = serializers.CharField(
        help_text="Tournaments' entry fees the operator's house fee received that day"
    )
    promotion = serializers.CharField(
        help_text="What the operator's promotions cost that day: tournament overlays, "
        "freeroll prize pools and granted tickets, less overlays returned and tickets expired"
    )


class ReportPlayerOutput(serializers.Serializer):
    day = serializers.DateField()
    operator = serializers.CharField()
    currency = serializers.CharField()
    player_id = serializers.CharField()
    external_ref = serializers.CharField(help_text="The operator's own reference")
    games = serializers.IntegerField(help_text="Settled games the player sat in that day")
    staked = serializers.CharField(help_text="What the player put into those escrows")
    paid = serializers.CharField(help_text="What those escrows paid the player back")
    net = serializers.CharField(help_text="paid - staked; the day's nets sum to minus its fees")
    mode = serializers.ChoiceField(
        choices=("live", "test"), help_text="test: a sandbox operator's row (test money)"
    )


class ReportOutput(serializers.Serializer):
    to = serializers.DateTimeField()
    totals = ReportTotalsOutput(many=True, help_text="One row per UTC day, operator, currency")
    players = ReportPlayerOutput(
        many=True, help_text="One row per UTC day, operator, currency and player"
    )

    def get_fields(self):
        fields = super().get_fields()
        fields["from"] = serializers.DateTimeField()
        return fields


class ReconciliationRunOutput(serializers.Serializer):
    id = serializers.IntegerField()
    started_at = serializers.DateTimeField()
    ok = serializers.BooleanField()
    accounts_checked = serializers.IntegerField()
    transactions_checked = serializers.IntegerField()
    unsettled_games = serializers.IntegerField()
    report = serializers.JSONField()


# --- Webhooks (docs/webhooks.md): the events settlement sends the operator -----------------
# Documentation only (settlement.api.webhooks, the OpenAPI document's `webhooks`): the
# bodies are built by settlement.services and settlement.statements.
def _pair(help_text: str = "") -> serializers.ListField:
    return serializers.ListField(
        child=serializers.IntegerField(), min_length=2, max_length=2, help_text=help_text
    )


def _event_type(name: str) -> serializers.CharField:
    # A subclass of its own: extend_schema_field marks the class it is given.
    field_class = type("EventTypeField", (serializers.CharField,), {})
    field_class = extend_schema_field({"type": "string", "const": name})(field_class)
    return field_class(help_text=f"Always {name}; also in the X-Gin-Event header")


class MoneyPlayScoresOutput(serializers.Serializer):
    """R10 Money Play final scores per seat (games.engine.MoneyPlayResult)."""

    hand_points = _pair()
    line_bonus = _pair()
    target_bonus = _pair()
    zero_point_bonus = _pair()
    totals = _pair()
    winner = serializers.IntegerField(allow_null=True, help_text="Null: equal totals")
    point_difference = serializers.IntegerField()
    target = serializers.IntegerField()
    reached_target = serializers.IntegerField(allow_null=True)


class ForfeitRecordOutput(serializers.Serializer):
    seat = serializers.IntegerField()
    reason = serializers.ChoiceField(choices=FORFEIT_REASONS)


class SeatStakeOutput(serializers.Serializer):
    position = serializers.IntegerField()
    seat_id = serializers.IntegerField()
    player_id = serializers.UUIDField(
        allow_null=True,
        help_text="Null for another operator's player in a network game (docs/network.md)",
    )
    screen_name = serializers.CharField(
        required=False, help_text="Another operator's player in a network game: the screen name"
    )
    amount = serializers.IntegerField(help_text="In escrow, in minor units of `currency`")
    currency = serializers.CharField()


class MatchResultRecordOutput(serializers.Serializer):
    """A finished match's result as games records it (docs/games.md "Match result"):
    amounts are integers in minor units of ``currency``, not decimal strings."""

    format = serializers.IntegerField()
    match_id = serializers.IntegerField()
    game_ref = serializers.CharField(help_text="match:<id>, the escrow's reference")
    variant = serializers.ChoiceField(choices=VARIANTS)
    reason = serializers.ChoiceField(choices=MATCH_END_REASONS)
    winner_seat = serializers.IntegerField(
        allow_null=True, help_text="Null only in Money Play with equal final scores"
    )
    reached_target = serializers.IntegerField(
        allow_null=True, help_text="The seat that knocked first (FTK) or reached the target"
    )
    hand_points = _pair()
    hands_won = _pair()
    hands_played = serializers.IntegerField()
    target = serializers.IntegerField(allow_null=True)
    money_play = MoneyPlayScoresOutput(allow_null=True, help_text="Money Play only")
    forfeit = ForfeitRecordOutput(allow_null=True)
    currency = serializers.CharField()
    is_practice = serializers.BooleanField()
    fee_bps = serializers.IntegerField()
    stake = serializers.IntegerField(
        allow_null=True, help_text="FTK and Match Play, in minor units"
    )
    stake_per_point = serializers.IntegerField(
        allow_null=True, help_text="Money Play, in minor units"
    )
    seats = SeatStakeOutput(many=True)
    finished_at = serializers.DateTimeField()


class StatementLineOutput(serializers.Serializer):
    seat = serializers.IntegerField()
    player_id = serializers.UUIDField(
        required=False, help_text="Absent on another operator's player's lines (network game)"
    )
    component = serializers.ChoiceField(
        choices=PAYOUT_COMPONENTS,
        help_text="Why the money moves: the own stake back, the pot won or lost, the fee, "
        "Money Play's points and bonuses, a cashier cap (docs/settlement.md)",
    )
    amount = serializers.CharField(help_text='Signed decimal string, e.g. "-4.75"')
    currency = serializers.CharField()


class StatementPlayerOutput(serializers.Serializer):
    """In a network game another operator's player has only ``seat``, ``screen_name``,
    ``escrowed``, ``payout`` and ``net`` (and ``operator`` when the network reveals
    operators: docs/network.md)."""

    seat = serializers.IntegerField()
    player_id = serializers.UUIDField(required=False, help_text="Your players only")
    screen_name = serializers.CharField()
    external_ref = serializers.CharField(
        required=False, help_text="Your own reference for the player (your players only)"
    )
    escrowed = Money()
    payout = Money()
    net = Money(help_text="payout - escrowed")
    credited = Money(
        required=False,
        allow_null=True,
        help_text="What the wallet received, in the wallet's currency (your players only)",
    )
    fx = JsonObject(
        required=False,
        allow_null=True,
        help_text="The rate used when the wallet's currency differs (your players only)",
    )
    operator = serializers.CharField(
        required=False,
        help_text="Network game, when the network reveals operators: the player's operator",
    )


class StatementBonusPointsOutput(serializers.Serializer):
    line_bonus = _pair()
    target_bonus = _pair()
    zero_point_bonus = _pair()


class StatementMoneyPlayOutput(serializers.Serializer):
    scores = MoneyPlayScoresOutput()
    winnings_before_caps = Money()
    winnings = Money()
    caps_applied = serializers.ListField(
        child=serializers.JSONField(), help_text="Each cashier cap that limited the winnings"
    )
    bonus_points = StatementBonusPointsOutput()


class StatementOutput(serializers.Serializer):
    """The statement of a settled game (docs/settlement.md): every line of money and why."""

    format = serializers.IntegerField()
    match_id = serializers.IntegerField()
    game_ref = serializers.CharField()
    variant = serializers.ChoiceField(choices=VARIANTS)
    currency = serializers.CharField()
    is_practice = serializers.BooleanField()
    reason = serializers.ChoiceField(choices=MATCH_END_REASONS)
    winner_seat = serializers.IntegerField(allow_null=True)
    forfeit = ForfeitRecordOutput(allow_null=True)
    hand_points = _pair()
    hands_won = _pair()
    hands_played = serializers.IntegerField()
    target = serializers.IntegerField(allow_null=True)
    stake = Money(allow_null=True)
    stake_per_point = Money(allow_null=True)
    fee_bps = serializers.IntegerField()
    fee = Money()
    escrow = Money()
    lines = StatementLineOutput(many=True)
    players = StatementPlayerOutput(many=True)
    ledger_reference = serializers.CharField()
    ledger_transaction_id = serializers.IntegerField()
    money_play = StatementMoneyPlayOutput(required=False, help_text="Money Play only")
    network = serializers.JSONField(
        required=False,
        help_text="Network games only (docs/network.md): fee_share_bps, network_fee and "
        "your own line of the fee split (contribution, fee_share)",
    )


class GameFinishedDataOutput(serializers.Serializer):
    match_id = serializers.IntegerField()
    result = MatchResultRecordOutput()


class GameSettledDataOutput(serializers.Serializer):
    match_id = serializers.IntegerField()
    statement = StatementOutput()


class GameFinishedWebhook(serializers.Serializer):
    id = serializers.UUIDField(help_text="The event id (X-Gin-Delivery): drop duplicates by it")
    type = _event_type("game.finished")
    created_at = serializers.DateTimeField()
    data = GameFinishedDataOutput()  # type: ignore[assignment]  # a declared field, not Serializer.data (DRF's metaclass moves it)


class GameSettledWebhook(serializers.Serializer):
    id = serializers.UUIDField(help_text="The event id (X-Gin-Delivery): drop duplicates by it")
    type = _event_type("game.settled")
    created_at = serializers.DateTimeField()
    data = GameSettledDataOutput()  # type: ignore[assignment]  # a declared field, not Serializer.data (DRF's metaclass moves it)


# --- The network statement (docs/network.md "Settling the network") ----------------------
class NetworkStatementRowOutput(serializers.Serializer):
    day = serializers.DateField()
    operator = serializers.CharField(help_text="The operator's slug (or the network's)")
    currency = serializers.CharField(help_text="The network rooms' currency")
    games = serializers.IntegerField(help_text="Network games settled that day with a stake")
    turnover = serializers.CharField(
        help_text="The operator's players' stakes in those games (the network's row: every stake)"
    )
    payouts = serializers.CharField(
        help_text="What those games paid the operator's players (the network's row: all players)"
    )
    fees = serializers.CharField(
        help_text="The operator's share of those games' fees (the network's row: what it kept)"
    )
    net = serializers.CharField(
        help_text="What those games added to the position: turnover - payouts - fees (the "
        "network's row: -fees, what it kept); the rows' nets sum to zero"
    )
    settled = serializers.CharField(help_text="Net settlements posted that day (their effect)")
    confiscated = serializers.CharField(
        help_text="Confiscations posted that day (integrity's cases), their effect on the "
        "position: positive, the operator's player gave; negative, its players were made whole"
    )
    position = serializers.CharField(
        help_text="The position at the end of the day: positive, owed to the network (the "
        "network's row: the opposite of its members' sum)"
    )
    owed_to_network = serializers.CharField(
        help_text="What is owed to the network (the network's row: by its members, on balance)"
    )
    owed_by_network = serializers.CharField(
        help_text="What the network owes (the network's row: to its members, on balance)"
    )


class NetworkStatementOutput(serializers.Serializer):
    to = serializers.DateTimeField()
    rows = NetworkStatementRowOutput(many=True)

    def get_fields(self):
        fields = super().get_fields()
        fields["from"] = serializers.DateTimeField()
        return fields
