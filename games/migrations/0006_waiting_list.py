import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0005_three_and_four_seats"),
        ("platform", "0008_network"),
    ]

    operations = [
        migrations.CreateModel(
            name="WaitingListEntry",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("stake_per_point", models.BigIntegerField(blank=True, null=True)),
                ("cashier_amount", models.BigIntegerField(blank=True, null=True)),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("waiting", "Waiting"),
                            ("seated", "Seated"),
                            ("left", "Left"),
                            ("expired", "Expired"),
                            ("refused", "Refused"),
                        ],
                        default="waiting",
                        max_length=10,
                    ),
                ),
                ("problem_type", models.CharField(blank=True, default="", max_length=200)),
                (
                    "created_at",
                    models.DateTimeField(default=django.utils.timezone.now, editable=False),
                ),
                ("expires_at", models.DateTimeField()),
                ("claimed_at", models.DateTimeField(blank=True, null=True)),
                ("ended_at", models.DateTimeField(blank=True, null=True)),
                (
                    "player",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="platform.player",
                    ),
                ),
                (
                    "room",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="waiting_list",
                        to="games.room",
                    ),
                ),
                (
                    "seat",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="games.seat",
                    ),
                ),
            ],
            options={
                "indexes": [
                    models.Index(
                        fields=["room", "status", "created_at"],
                        name="games_waiti_room_id_9fa9a6_idx",
                    )
                ],
                "constraints": [
                    models.UniqueConstraint(
                        condition=models.Q(("status", "waiting")),
                        fields=("player", "room"),
                        name="waiting_list_once_per_room",
                    )
                ],
            },
        ),
    ]
