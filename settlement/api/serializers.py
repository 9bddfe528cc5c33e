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


class PlayerPnlOutput(serializers.Serializer):
    player_id = serializers.CharField()
    net = serializers.CharField()


class ReportRowOutput(serializers.Serializer):
    operator = serializers.CharField()
    currency = serializers.CharField()
    day = serializers.DateField()
    games = serializers.IntegerField()
    turnover = serializers.CharField()
    fees = serializers.CharField()
    payouts = serializers.CharField()
    bonus_points = serializers.IntegerField()
    player_pnl = PlayerPnlOutput(many=True)


class ReportOutput(serializers.Serializer):
    rows = ReportRowOutput(many=True)
    to = serializers.DateTimeField()

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
