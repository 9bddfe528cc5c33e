"""Four-eyes approvals (docs/backoffice.md) and the staff adjustment ledger kind."""

import django.core.serializers.json
import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("platform", "0006_operator_events"),
        ("wallet", "0004_seamless_wallet"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterField(
            model_name="ledgertransaction",
            name="kind",
            field=models.CharField(
                choices=[
                    ("deposit", "Deposit"),
                    ("withdrawal", "Withdrawal"),
                    ("buy_in", "Buy In"),
                    ("refund", "Refund"),
                    ("settlement", "Settlement"),
                    ("reversal", "Reversal"),
                    ("practice_grant", "Practice Grant"),
                    ("practice_top_up", "Practice Top Up"),
                    ("seamless_debit", "Seamless Debit"),
                    ("seamless_credit", "Seamless Credit"),
                    ("seamless_rollback", "Seamless Rollback"),
                    ("adjustment", "Adjustment"),
                ],
                max_length=24,
            ),
        ),
        migrations.CreateModel(
            name="ApprovalRequest",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("reversal", "Reversal"),
                            ("cashier_caps", "Cashier Caps"),
                            ("adjustment", "Adjustment"),
                        ],
                        max_length=16,
                    ),
                ),
                (
                    "payload",
                    models.JSONField(
                        default=dict, encoder=django.core.serializers.json.DjangoJSONEncoder
                    ),
                ),
                ("reason", models.CharField(max_length=500)),
                ("proposed_at", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("pending", "Pending"),
                            ("approved", "Approved"),
                            ("rejected", "Rejected"),
                            ("executed", "Executed"),
                            ("failed", "Failed"),
                        ],
                        default="pending",
                        max_length=16,
                    ),
                ),
                ("decided_at", models.DateTimeField(blank=True, null=True)),
                ("decision_note", models.CharField(blank=True, default="", max_length=500)),
                ("result_ref", models.CharField(blank=True, default="", max_length=64)),
                (
                    "decided_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "operator",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="platform.operator",
                    ),
                ),
                (
                    "proposed_by",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ("-proposed_at", "-id"),
                "permissions": [
                    ("propose_reversal", "Can propose a ledger reversal"),
                    ("approve_reversal", "Can approve a ledger reversal"),
                    ("propose_adjustment", "Can propose a manual wallet adjustment"),
                    ("approve_adjustment", "Can approve a manual wallet adjustment"),
                    ("propose_cashier_caps", "Can propose raising cashier caps"),
                    ("approve_cashier_caps", "Can approve raising cashier caps"),
                ],
                "indexes": [
                    models.Index(fields=["status", "proposed_at"], name="wallet_approval_status")
                ],
            },
        ),
    ]
