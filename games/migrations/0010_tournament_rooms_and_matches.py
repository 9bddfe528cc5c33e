# R14: tournament rooms (``Room.purpose``), a tournament's matches opened with their players
# known (``Match.external_ref``, ``Match.no_show_deadline``), reserved seats and the seats
# of players who never came (``Seat.State``), and the forfeit of an absent player.

from django.db import migrations, models
from django.db.models import F, Q

OPEN_SEAT_STATES = ("reserved", "seated", "playing", "finished")


class Migration(migrations.Migration):
    dependencies = [("games", "0009_interrupted_play")]

    operations = [
        migrations.AddField(
            model_name="room",
            name="purpose",
            field=models.CharField(
                choices=[("cash", "Cash"), ("tournament", "Tournament")],
                default="cash",
                max_length=10,
            ),
        ),
        migrations.RemoveConstraint(model_name="room", name="room_variant_shape"),
        migrations.AddConstraint(
            model_name="room",
            constraint=models.CheckConstraint(
                condition=(
                    Q(variant="ftk", target__isnull=True, stake__gt=0)
                    | Q(variant="match", target__in=(100, 250, 500), stake__gt=0)
                    | Q(
                        variant="money",
                        target__in=(50, 100),
                        stake__isnull=True,
                        cashier_min__gt=0,
                        cashier_max__gte=F("cashier_min"),
                    )
                    | Q(purpose="tournament", variant__in=("ftk", "match"), target=None, stake=None)
                    & Q(cashier_min=None, cashier_max=None, fee_bps=0, is_practice=False)
                ),
                name="room_variant_shape",
            ),
        ),
        migrations.AddField(
            model_name="match",
            name="external_ref",
            field=models.CharField(blank=True, max_length=64, null=True, unique=True),
        ),
        migrations.AddField(
            model_name="match",
            name="no_show_deadline",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddIndex(
            model_name="match",
            index=models.Index(
                fields=["no_show_deadline"],
                name="match_no_show_deadline",
                condition=Q(no_show_deadline__isnull=False),
            ),
        ),
        migrations.AlterField(
            model_name="match",
            name="forfeit_reason",
            field=models.CharField(
                blank=True,
                choices=[
                    ("left", "Left"),
                    ("timeout", "Timeout"),
                    ("resigned", "Resigned"),
                    ("absent", "Absent"),
                ],
                default="",
                max_length=10,
            ),
        ),
        migrations.AlterField(
            model_name="seat",
            name="state",
            field=models.CharField(
                choices=[
                    ("seated", "Seated"),
                    ("playing", "Playing"),
                    ("left", "Left"),
                    ("finished", "Finished"),
                    ("reserved", "Reserved"),
                    ("absent", "Absent"),
                ],
                default="seated",
                max_length=10,
            ),
        ),
        # A reserved seat holds its position and its player like a seated one.
        migrations.RemoveConstraint(model_name="seat", name="seat_position_taken_once"),
        migrations.RemoveConstraint(model_name="seat", name="seat_player_once_per_match"),
        migrations.AddConstraint(
            model_name="seat",
            constraint=models.UniqueConstraint(
                fields=("match", "position"),
                condition=Q(state__in=OPEN_SEAT_STATES),
                name="seat_position_taken_once",
            ),
        ),
        migrations.AddConstraint(
            model_name="seat",
            constraint=models.UniqueConstraint(
                fields=("match", "player"),
                condition=Q(state__in=OPEN_SEAT_STATES),
                name="seat_player_once_per_match",
            ),
        ),
    ]
