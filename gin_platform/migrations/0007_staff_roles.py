"""Back-office roles (docs/backoffice.md): the staff operator scope, the reports permission,
and the role groups with their permissions (gin_platform/staff/roles.py ROLES)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def roles_sync(apps, schema_editor):
    from gin_platform.staff.roles import roles_sync as sync

    sync(apps)


class Migration(migrations.Migration):
    dependencies = [
        ("platform", "0006_operator_events"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        # The roles hold the permissions of every app's models, custom ones included.
        ("wallet", "0005_approvals"),
        ("games", "0003_match_bot_seat"),
        ("settlement", "0002_daily_report_admin"),
        ("otp_totp", "0003_add_timestamps"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="operator",
            options={
                "ordering": ("name",),
                "permissions": [("view_reports", "Can view every operator's reports")],
            },
        ),
        migrations.CreateModel(
            name="StaffOperatorScope",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "operator",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="platform.operator",
                    ),
                ),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="operator_scopes",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(fields=("user", "operator"), name="staff_scope_unique")
                ],
            },
        ),
        migrations.RunPython(roles_sync, migrations.RunPython.noop),
    ]
