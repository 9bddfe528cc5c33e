# R13 interrupted play: the rooms' and matches' clock options, the matches' clocks and the
# voided status, the hands' clock stage, and the protected turns.

import django.db.models.deletion
import django.utils.timezone
from django.core.validators import MaxValueValidator
from django.db import migrations, models

# The options as games/turn_clock.py declared them when this migration was written: the
# name, its default and its largest value.
CLOCK_OPTIONS = {
    "time_bank_seconds": (60, 600),
    "time_bank_top_up_seconds": (10, 120),
    "reconnect_grace_seconds": (30, 300),
    "auto_play_turns": (3, 10),
}
STATUSES = ["waiting", "running", "finished", "settled", "aborted", "suspended", "voided"]


def clock_options(model):
    """Each option as a column of ``model``, with its CHECK."""
    for name, (default, most) in CLOCK_OPTIONS.items():
        field = models.PositiveSmallIntegerField(
            default=default, validators=[MaxValueValidator(most)]
        )
        yield migrations.AddField(model_name=model, name=name, field=field)
        check = models.CheckConstraint(
            condition=models.Q((f"{name}__lte", most)), name=f"{model}_{name}_range"
        )
        yield migrations.AddConstraint(model_name=model, constraint=check)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0008_move_tables_without_redundant_indexes"),
        ("platform", "0011_interrupted_play"),
    ]

    operations = [
        *clock_options("room"),
        *clock_options("match"),
        migrations.AddField(
            model_name="match", name="clocks", field=models.JSONField(blank=True, default=dict)
        ),
        migrations.AlterField(
            model_name="match",
            name="status",
            field=models.CharField(
                choices=[(status, status.capitalize()) for status in STATUSES],
                default="waiting",
                max_length=10,
            ),
        ),
        migrations.RemoveConstraint(model_name="match", name="match_finished_has_result"),
        migrations.AddConstraint(
            model_name="match",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    status__in=("waiting", "running", "aborted", "suspended", "voided")
                )
                | models.Q(result__isnull=False, finished_at__isnull=False),
                name="match_finished_has_result",
            ),
        ),
        migrations.AddField(
            model_name="hand",
            name="turn_stage",
            field=models.CharField(default="turn", max_length=5),
        ),
        migrations.AddField(
            model_name="hand",
            name="stage_started_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.CreateModel(
            name="TurnProtection",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("hand_number", models.PositiveIntegerField()),
                ("seat", models.PositiveSmallIntegerField()),
                ("granted_at", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "match",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="games.match",
                    ),
                ),
                (
                    "player",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="platform.player",
                    ),
                ),
            ],
            options={
                "indexes": [
                    models.Index(
                        fields=["player", "granted_at"], name="games_turnp_player__685fe3_idx"
                    )
                ]
            },
        ),
    ]
