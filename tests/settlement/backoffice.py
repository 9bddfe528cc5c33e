"""Logging a staff user into the back office in tests: a superuser, with the second factor
the admin asks of the roles that move money (a verified TOTP device in the session)."""

from __future__ import annotations

from tests.factories import admin_login


def login_staff(client, django_user_model, username: str = "root"):
    """``client`` logged into the admin as a superuser; returns the user."""
    user = django_user_model.objects.create_superuser(username, password="pw-root-12345")
    admin_login(client, user)
    return user
