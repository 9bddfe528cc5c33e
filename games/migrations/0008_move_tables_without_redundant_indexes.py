"""Every move writes a hand and appends its events: each index of those tables is written
with them. The foreign keys' own indexes (hand.match, handevent.hand, handevent.match)
repeat the first column of a unique constraint that already serves every lookup by it
(hand_number_unique, hand_event_seq_unique, hand_event_match_seq_unique), so they go.

Dropped by name: Django's own AlterField(db_index=False) drops every single-column index on
the column it finds, and on games_hand.match_id that includes the partial unique index of
the constraint ``hand_one_in_progress_per_match``."""

import django.db.models.deletion
from django.db import migrations, models

# (table, column, the index Django created for the foreign key)
FOREIGN_KEY_INDEXES = (
    ("games_hand", "match_id", "games_hand_match_id_1fddcc5c"),
    ("games_handevent", "hand_id", "games_handevent_hand_id_d48ec1bd"),
    ("games_handevent", "match_id", "games_handevent_match_id_8b7a97aa"),
)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0007_plans_for_prepared_statements"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(
                    sql=f"DROP INDEX IF EXISTS {name}",
                    reverse_sql=f"CREATE INDEX IF NOT EXISTS {name} ON {table} ({column})",
                )
                for table, column, name in FOREIGN_KEY_INDEXES
            ],
            state_operations=[
                migrations.AlterField(
                    model_name="hand",
                    name="match",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="hands",
                        to="games.match",
                    ),
                ),
                migrations.AlterField(
                    model_name="handevent",
                    name="hand",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="events",
                        to="games.hand",
                    ),
                ),
                migrations.AlterField(
                    model_name="handevent",
                    name="match",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="events",
                        to="games.match",
                    ),
                ),
            ],
        ),
    ]
