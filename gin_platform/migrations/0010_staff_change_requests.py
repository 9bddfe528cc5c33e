"""Staff access changes (docs/backoffice.md "Staff access"): the access change requests,
with their propose and approve permissions, which the admin role gets (a role that does not
exist yet gets them when gin_platform.staff.roles.roles_sync creates it)."""

import django.core.serializers.json
import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

MODEL = "staffchangerequest"
NEW_PERMISSIONS = {
    "add_staffchangerequest": "Can add staff change request",
    "change_staffchangerequest": "Can change staff change request",
    "delete_staffchangerequest": "Can delete staff change request",
    "view_staffchangerequest": "Can view staff change request",
    "propose_staff_change": "Can propose a change of a staff user's access",
    "approve_staff_change": "Can approve a change of a staff user's access",
}


def grant(apps, schema_editor) -> None:
    content_type_model = apps.get_model("contenttypes", "ContentType")
    permission_model = apps.get_model("auth", "Permission")
    group_model = apps.get_model("auth", "Group")
    content_type, _ = content_type_model.objects.get_or_create(app_label="platform", model=MODEL)
    permissions = [
        permission_model.objects.get_or_create(
            content_type=content_type, codename=codename, defaults={"name": name}
        )[0]
        for codename, name in NEW_PERMISSIONS.items()
    ]
    for group in group_model.objects.filter(name="admin"):
        group.permissions.add(*permissions)


class Migration(migrations.Migration):
    dependencies = [
        ("platform", "0009_player_profile_permission"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.CreateModel(
            name='StaffChangeRequest',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('changes', models.JSONField(default=dict, encoder=django.core.serializers.json.DjangoJSONEncoder)),
                ('reason', models.CharField(max_length=500)),
                ('proposed_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('status', models.CharField(choices=[('pending', 'Pending'), ('executed', 'Executed'), ('rejected', 'Rejected'), ('failed', 'Failed')], default='pending', max_length=16)),
                ('decided_at', models.DateTimeField(blank=True, null=True)),
                ('decision_note', models.CharField(blank=True, default='', max_length=500)),
                ('decided_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('proposed_by', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ('-proposed_at', '-id'),
                'permissions': [('propose_staff_change', "Can propose a change of a staff user's access"), ('approve_staff_change', "Can approve a change of a staff user's access")],
                'indexes': [models.Index(fields=['status', 'proposed_at'], name='staff_change_status')],
            },
        ),
        migrations.RunPython(grant, migrations.RunPython.noop),
    ]
