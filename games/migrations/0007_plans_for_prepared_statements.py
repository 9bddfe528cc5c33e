"""Indexes a prepared statement's generic plan can use (docs/deploy.md "Prepared statements
and worker connections"): the turn-timer sweep's index keyed on open turns by their
deadline (``turn_deadline IS NOT NULL``, which ``turn_deadline < $1`` implies; every way a
hand ends clears the deadline) instead of ``status = 'in_progress'``, and a table's games by
status, so seating reads the table's open game and not every game it hosted."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0006_waiting_list"),
        ("platform", "0008_network"),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name="hand",
            name="hand_open_turn_deadline",
        ),
        migrations.AddIndex(
            model_name="hand",
            index=models.Index(
                condition=models.Q(("turn_deadline__isnull", False)),
                fields=["turn_deadline"],
                name="hand_open_turn_deadline",
            ),
        ),
        migrations.AddIndex(
            model_name="match",
            index=models.Index(fields=["table", "status"], name="match_table_status"),
        ),
    ]
