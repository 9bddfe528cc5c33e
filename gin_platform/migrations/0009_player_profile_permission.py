"""A player's profile permission (docs/backoffice.md "Roles"): ``platform.change_player``
changes a player's KYC status and status (risk); their display name, screen name, locale
and display currency also need ``platform.change_player_profile``, which the admin role gets
(a role that does not exist yet gets it when gin_platform.staff.roles.roles_sync creates it)."""

from django.db import migrations

MODEL = "player"
NEW_PERMISSIONS = {
    "change_player_profile": (
        "Can change a player's display name, screen name, locale and display currency"
    ),
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
        ("platform", "0008_network"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name='player',
            options={'permissions': [('change_player_profile', "Can change a player's display name, screen name, locale and display currency")]},
        ),
        migrations.RunPython(grant, migrations.RunPython.noop),
    ]
