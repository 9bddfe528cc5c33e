from rest_framework import serializers

from gin_platform.api.serializers import Money


class SettlementOutput(serializers.Serializer):
    match_id = serializers.IntegerField()
    variant = serializers.CharField()
    currency = serializers.CharField()
    is_practice = serializers.BooleanField()
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
