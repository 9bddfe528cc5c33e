"""The second factor of the roles that move money (docs/backoffice.md): a TOTP code at the
admin's login or in ``X-OTP`` with HTTP Basic, a wrong code counting as a failed login, and
the enrolment of a staff user's device."""

from __future__ import annotations

import contextlib
import hashlib
from typing import TYPE_CHECKING, Any

from django.contrib.auth.signals import user_login_failed
from django.core.cache import cache
from django.db import transaction
from django.utils.translation import gettext_lazy as _
from django_otp import match_token
from django_otp.plugins.otp_totp.models import TOTPDevice

from gin_platform.audit import audit_record
from gin_platform.http.problems import Problem
from gin_platform.request_path.cache import CACHE_ERRORS
from gin_platform.staff.login_attempts import staff_secret_check

if TYPE_CHECKING:
    from django.http import HttpRequest


OTP_HEADER = "HTTP_X_OTP"
# A code accepted once for a user is accepted again for this long (the API sends it with
# every request of a burst; TOTP devices refuse a code they already matched).
OTP_REUSE_SECONDS = 90


class OtpRequiredProblem(Problem):
    slug = "otp-required"
    status = 403
    title = _("A second factor is required")
    description = (
        "The endpoint moves money and the caller's role (finance, admin, superuser) needs a "
        "verified TOTP token: log in to the admin with the token (session), or send the "
        "current code in `X-OTP` with HTTP Basic. A wrong code counts as a failed login "
        "(docs/backoffice.md)."
    )


def _reuse_key(user: Any, code: str) -> str:
    return "staff-otp:" + hashlib.sha256(f"{user.pk}:{code}".encode()).hexdigest()


def otp_verified(request: HttpRequest, user: Any) -> bool:
    """The session's OTP device is verified (django-otp's middleware), or the request
    carries an ``X-OTP`` code that one of the user's confirmed TOTP devices accepts. A wrong
    code is a failed login for django-axes (same lockout as a wrong password), and a code is
    checked only within the failures the address has left, however many arrive at once
    (``staff_secret_check``: LoginLockedOutProblem, ThrottledProblem)."""
    if getattr(user, "otp_device", None) is not None:
        return True
    code = (request.META.get(OTP_HEADER) or "").strip()
    if not code:
        return False
    with contextlib.suppress(*CACHE_ERRORS):
        if cache.get(_reuse_key(user, code)):
            return True

    with staff_secret_check(request, username=user.get_username()):
        device = match_token(user, code) if code.isdigit() and 6 <= len(code) <= 8 else None
        if device is None:
            otp_failed(request, user)  # recorded before the attempt's slot is given back
            return False
    with contextlib.suppress(*CACHE_ERRORS):
        cache.set(_reuse_key(user, code), True, OTP_REUSE_SECONDS)
    return True


def otp_failed(request: HttpRequest | None, user: Any) -> None:
    django_request = getattr(request, "_request", request)
    user_login_failed.send(
        sender=__name__,
        credentials={"username": user.get_username()},
        request=django_request,
    )


def staff_otp_enrol(*, user: Any, actor: Any, replace: bool = False) -> Any:
    """Give a staff user a confirmed TOTP device (``manage.py staff_otp_enrol``) and return
    it: its ``config_url`` (otpauth://) goes into the authenticator app. One device per
    user: an existing one is kept unless ``replace`` (then it is deleted, and the sessions
    it verified stop being verified). Audited; the key never reaches the log."""

    if not user.is_staff:
        raise ValueError(f"{user.get_username()} is not a staff user")
    with transaction.atomic():
        existing = list(TOTPDevice.objects.filter(user=user))
        if existing and not replace:
            raise ValueError(f"{user.get_username()} already has a TOTP device (use --replace)")
        for device in existing:
            device.delete()
        device = TOTPDevice.objects.create(user=user, name="back office", confirmed=True)
        audit_record(
            actor=actor,
            action="staff.otp_enrolled",
            obj=device,
            operator=None,
            data={"user": user.get_username(), "replaced": len(existing)},
        )
    return device
