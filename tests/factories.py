"""factory-boy factories for the platform's tenancy models, and the suite's system actor."""

import factory
from django.apps import apps
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django_otp import DEVICE_ID_SESSION_KEY
from django_otp.oath import TOTP
from django_otp.plugins.otp_totp.models import TOTPDevice

from gin_platform.models import Operator, Player
from gin_platform.staff.roles import roles_sync
from gin_platform.tenancy.principals import Actor
from gin_platform.tenancy.tokens import new_signing_secret

# The actor of every state change a test makes on nobody's behalf (audit rows: system/tests).
SYSTEM = Actor.system("tests")


class OperatorFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Operator

    name = factory.Sequence(lambda n: f"Operator {n}")
    slug = factory.Sequence(lambda n: f"operator-{n}")
    base_currency = "EUR"
    webhook_secret = factory.LazyFunction(new_signing_secret)


class PlayerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Player

    operator = factory.SubFactory(OperatorFactory)
    external_ref = factory.Sequence(lambda n: f"player-{n}")
    display_name = factory.Sequence(lambda n: f"Player {n}")
    wallet_currency = factory.SelfAttribute("operator.base_currency")
    display_currency = factory.SelfAttribute("wallet_currency")
    kyc_status = Player.KycStatus.VERIFIED


def staff_user(username: str, *roles: str, password: str = "pw-staff-1", otp: bool = True, **extra):
    """A back-office user (is_staff) in the given roles (gin_platform/staff/roles.py groups). With
    ``otp`` (the default) it gets a confirmed TOTP device, and the object returned carries it
    as ``otp_device``: what django-otp's middleware sets for a session that passed the token,
    so ``APIClient.force_authenticate(user)`` acts as a verified staff session."""
    user = get_user_model().objects.create_user(username, password=password, is_staff=True, **extra)
    if roles and Group.objects.filter(name__in=roles).count() < len(set(roles)):
        # A transactional test flushed the tables the data migration filled.
        roles_sync(apps)
    user.groups.set([Group.objects.get(name=role) for role in roles])
    user.otp_device = None
    if otp:
        user.otp_device = TOTPDevice.objects.create(user=user, name="tests", confirmed=True)
    return user


def admin_login(client, user) -> None:
    """Log ``client`` (Django's test client) in to the admin as ``user``, with the TOTP step
    done when the user has a device: the session holds the verified device, as after the
    admin's login form with a valid code (gin_platform/staff/admin_site.py)."""
    client.force_login(user)
    device = TOTPDevice.objects.filter(user=user, confirmed=True).first()
    if device is None and user.is_superuser:
        device = TOTPDevice.objects.create(user=user, name="tests", confirmed=True)
    if device is not None:
        session = client.session
        session[DEVICE_ID_SESSION_KEY] = device.persistent_id
        session.save()


def totp_code(device) -> str:
    """The current code of a TOTP device (what the staff member's authenticator app shows)."""
    totp = TOTP(device.bin_key, device.step, device.t0, device.digits, device.drift)
    return f"{totp.token():0{device.digits}d}"
