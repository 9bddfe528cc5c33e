"""Sandbox (test mode): an operator may have one sandbox twin, its own tenant
(docs/api.md "Sandbox"). A sandbox operator has a live operator; a live one has none."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("platform", "0004_browser_access"),
    ]

    operations = [
        migrations.AddField(
            model_name="operator",
            name="is_sandbox",
            field=models.BooleanField(db_default=False, default=False),
        ),
        migrations.AddField(
            model_name="operator",
            name="live_operator",
            field=models.OneToOneField(
                blank=True,
                help_text="The live operator this sandbox belongs to (sandbox operators only).",
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="sandbox",
                to="platform.operator",
            ),
        ),
        migrations.AddConstraint(
            model_name="operator",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("is_sandbox", True), ("live_operator__isnull", False)),
                    models.Q(("is_sandbox", False), ("live_operator__isnull", True)),
                    _connector="OR",
                ),
                name="operator_sandbox_has_live_operator",
            ),
        ),
    ]
