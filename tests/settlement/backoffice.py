"""Logging a staff user into the back office in tests: a superuser, with the second factor
the admin asks of the roles that move money (a verified TOTP device in the session) when
django-otp is installed."""

from __future__ import annotations

from django.apps import apps


def login_staff(client, django_user_model, username: str = "root"):
    """``client`` logged into the admin as a superuser; returns the user."""
    user = django_user_model.objects.create_superuser(username, password="pw-root-12345")
    client.force_login(user)
    if apps.is_installed("django_otp"):
        from django_otp import DEVICE_ID_SESSION_KEY
        from django_otp.plugins.otp_totp.models import TOTPDevice

        device = TOTPDevice.objects.create(user=user, name="tests", confirmed=True)
        session = client.session
        session[DEVICE_ID_SESSION_KEY] = device.persistent_id
        session.save()
    return user
