"""Back-office staff: roles, operator scope and second factor (docs/backoffice.md).

Roles are Django groups (``support``, ``finance``, ``risk``, ``admin``) holding real model
permissions plus a few custom ones for actions (``wallet.propose_reversal``...); the staff API
and the admin check permissions, never ``is_staff`` alone, and superusers keep everything.
A staff user with ``StaffOperatorScope`` rows sees only those operators (no row: all).
The roles that move money (finance, admin, superusers) log in with a TOTP token as well.
"""

from __future__ import annotations

import contextlib
import hashlib
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.auth import SESSION_KEY, get_user_model, logout
from django.core.cache import cache
from django.db.models import Q, QuerySet
from django.utils import timezone

from gin_platform.http.problems import ApprovalInvalidProblem, Problem
from gin_platform.login_attempts import staff_secret_check
from gin_platform.request_path.cache import CACHE_ERRORS

if TYPE_CHECKING:
    from django.http import HttpRequest

SUPPORT, FINANCE, RISK, ADMIN = "support", "finance", "risk", "admin"
# Roles whose members must pass a TOTP token (superusers too): they can move money.
OTP_ROLES = frozenset({FINANCE, ADMIN})
# The apps whose every permission the admin role holds (auth: staff users and groups).
ADMIN_APPS = ("platform", "wallet", "games", "settlement", "auth", "otp_totp")

ROLES: dict[str, tuple[str, ...]] = {
    SUPPORT: (
        "platform.view_operator",
        "platform.view_player",
        "platform.view_playersession",
        "games.view_room",
        "games.view_table",
        "games.view_match",
        "games.view_seat",
        "games.view_hand",
        "games.view_handevent",
        "games.view_housebot",
    ),
    FINANCE: (
        "platform.view_operator",
        "platform.view_player",
        "platform.view_reports",
        "settlement.view_settlement",
        "settlement.view_dailyreport",
        "settlement.view_reconciliationrun",
        "settlement.add_reconciliationrun",
        "wallet.view_account",
        "wallet.view_ledgertransaction",
        "wallet.view_ledgerentry",
        "wallet.view_exchangerate",
        "wallet.add_exchangerate",
        "wallet.view_approvalrequest",
        "wallet.propose_reversal",
        "wallet.approve_reversal",
        "wallet.propose_adjustment",
        "wallet.approve_adjustment",
        "wallet.propose_net_settlement",
        "wallet.approve_net_settlement",
    ),
    RISK: (
        "platform.view_operator",
        "platform.view_player",
        "platform.change_player",
        "wallet.view_playerlimit",
        "wallet.view_playerlimitchange",
        "wallet.view_selfexclusion",
        "wallet.view_cashiercaps",
        "wallet.change_cashiercaps",
        "wallet.view_approvalrequest",
        "wallet.propose_cashier_caps",
        "wallet.approve_cashier_caps",
    ),
    ADMIN: (),  # every permission of ADMIN_APPS, resolved when the roles are synced
}


def roles_sync(apps: Any) -> None:
    """Create the role groups with their permissions (the data migration; idempotent; with
    ``django.apps.apps`` it restores them after a test flushed the tables). Model
    permissions are created first: on a fresh database they do not exist yet."""
    from django.contrib.auth.management import create_permissions

    for app_config in apps.get_app_configs():
        models_module = getattr(app_config, "models_module", None)  # unset: historical apps
        app_config.models_module = models_module or True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = models_module
    group_model = apps.get_model("auth", "Group")
    permission_model = apps.get_model("auth", "Permission")
    for role, names in ROLES.items():
        group, _ = group_model.objects.get_or_create(name=role)
        if role == ADMIN:
            permissions = permission_model.objects.filter(content_type__app_label__in=ADMIN_APPS)
        else:
            # A permission a later migration introduces does not exist yet when an earlier
            # migration syncs the roles: that migration grants it (wallet 0006, say).
            wanted = Q()
            for name in names:
                app_label, codename = name.split(".")
                wanted |= Q(content_type__app_label=app_label, codename=codename)
            permissions = list(permission_model.objects.filter(wanted))
        group.permissions.set(permissions)


def role_names(user: Any) -> set[str]:
    if not getattr(user, "is_authenticated", False) or not hasattr(user, "groups"):
        return set()
    return set(user.groups.values_list("name", flat=True))


def otp_required(user: Any) -> bool:
    """Superusers and the members of a role that moves money need a second factor."""
    if not getattr(user, "is_authenticated", False):
        return False
    return bool(getattr(user, "is_superuser", False) or role_names(user) & OTP_ROLES)


# --- Operator scope ---------------------------------------------------------------------


def operator_scope(user: Any) -> frozenset | None:
    """The operator ids a staff user may see, or None for every operator (no scope row)."""
    from gin_platform.models import StaffOperatorScope

    cached = getattr(user, "_staff_operator_scope", False)
    if cached is not False:
        return cached
    ids = frozenset(
        StaffOperatorScope.objects.filter(user_id=user.pk).values_list("operator_id", flat=True)
    )
    scope = ids or None
    with contextlib.suppress(AttributeError):  # a user object that takes no attributes
        user._staff_operator_scope = scope
    return scope


def in_scope(user: Any, operator_id: Any) -> bool:
    scope = operator_scope(user)
    return scope is None or operator_id in scope


def scope_queryset(queryset: QuerySet, user: Any, field: str = "operator") -> QuerySet:
    """``queryset`` limited to the operators the user may see (``field`` leads to one)."""
    scope = operator_scope(user)
    if scope is None:
        return queryset
    return queryset.filter(**{f"{field}__in": scope})


def unscoped(user: Any) -> bool:
    """Whether a staff user sees every operator (no scope row). Only such users administer
    staff (users, roles, operator scope, second factors): a scoped user never sees them."""
    return bool(getattr(user, "is_authenticated", False)) and operator_scope(user) is None


# --- Who may propose (checked again when a request is approved and executed) ------------


# The reason and decision note of a four-eyes request (the wallet's and the staff access').
REQUEST_TEXT_LENGTH = 500


def request_text(value: object, field: str, *, required: bool = True) -> str:
    """A request's reason or note, stripped; approval-invalid naming ``field`` otherwise."""
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise ApprovalInvalidProblem(f"{field} must be a non-empty string", field=field)
    if len(value) > REQUEST_TEXT_LENGTH:
        raise ApprovalInvalidProblem(f"{field} is longer than {REQUEST_TEXT_LENGTH}", field=field)
    return value.strip()


def proposer_refusal(
    *, user_id: Any, permission: str, operator_id: Any = None, every_operator: bool = False
) -> str | None:
    """Why the staff user ``user_id`` may not (or may no longer) propose a request needing
    ``permission`` ("app.codename") about ``operator_id``, or None if they may. Read afresh
    from the database (role, active flag and scope as they are now, not as a cached user
    object remembers them); ``every_operator``: only an unscoped user may propose it."""
    user = get_user_model()._default_manager.filter(pk=user_id).first()
    if user is None or not user.is_active or not user.is_staff:
        return "not an active staff user"
    if not user.has_perm(permission):
        return f"the role does not hold {permission}"
    scope = operator_scope(user)
    if every_operator and scope is not None:
        return "limited to some operators"
    if operator_id is not None and scope is not None and operator_id not in scope:
        return "the request's operator is outside the operator scope"
    return None


# --- What a role may change on a player ----------------------------------------------------

# Risk's fields on a player (docs/backoffice.md); the rest needs PLAYER_PROFILE_PERMISSION.
PLAYER_RISK_FIELDS = frozenset({"kyc_status", "status"})
PLAYER_PROFILE_PERMISSION = "platform.change_player_profile"


def player_fields_editable(user: Any) -> frozenset[str] | None:
    """The player fields a staff user may change (with ``platform.change_player``): None for
    every editable field (``platform.change_player_profile``: admin, superusers), else KYC
    status and status only (risk)."""
    if user.has_perm(PLAYER_PROFILE_PERMISSION):
        return None
    return PLAYER_RISK_FIELDS


# --- Second factor ----------------------------------------------------------------------

OTP_HEADER = "HTTP_X_OTP"
# A code accepted once for a user is accepted again for this long (the API sends it with
# every request of a burst; TOTP devices refuse a code they already matched).
OTP_REUSE_SECONDS = 90


class OtpRequiredProblem(Problem):
    slug = "otp-required"
    status = 403
    title = "A second factor is required"
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
    from django_otp import match_token

    with staff_secret_check(request, username=user.get_username()):
        device = match_token(user, code) if code.isdigit() and 6 <= len(code) <= 8 else None
        if device is None:
            otp_failed(request, user)  # recorded before the attempt's slot is given back
            return False
    with contextlib.suppress(*CACHE_ERRORS):
        cache.set(_reuse_key(user, code), True, OTP_REUSE_SECONDS)
    return True


def otp_failed(request: HttpRequest, user: Any) -> None:
    from django.contrib.auth.signals import user_login_failed

    django_request = getattr(request, "_request", request)
    user_login_failed.send(
        sender=__name__,
        credentials={"username": user.get_username()},
        request=django_request,
    )


# --- Session timeouts -------------------------------------------------------------------

LOGIN_AT_KEY = "staff_login_at"
LAST_SEEN_KEY = "staff_last_seen"


def session_clocks_start(sender, request, user, **kwargs) -> None:
    """``user_logged_in``: both clocks of the session start at the login itself, whatever
    the login path (the admin's form, its TOTP step included, or any other ``login()``),
    not at the first request after it (connected in PlatformConfig.ready)."""
    session = getattr(request, "session", None)
    if session is None:
        return
    now = int(timezone.now().timestamp())
    session[LOGIN_AT_KEY] = now
    session[LAST_SEEN_KEY] = now


class StaffSessionTimeoutMiddleware:
    """Ends a logged-in (admin) session after STAFF_SESSION_IDLE_SECONDS without a request
    (the login counts as one), or STAFF_SESSION_MAX_SECONDS after login whatever happens;
    the request then goes on as anonymous (the admin asks for a login again, the staff API
    answers 401/403). A session without the login stamps (``session_clocks_start``), such as
    one logged in before they existed, cannot say when its clocks started: it is ended too."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        session = getattr(request, "session", None)
        if session is not None and SESSION_KEY in session:
            now = int(timezone.now().timestamp())
            login_at = session.get(LOGIN_AT_KEY)
            last_seen = session.get(LAST_SEEN_KEY)
            idle = settings.STAFF_SESSION_IDLE_SECONDS
            absolute = settings.STAFF_SESSION_MAX_SECONDS
            if (
                login_at is None
                or last_seen is None
                or now - last_seen > idle
                or now - login_at > absolute
            ):
                logout(request)
            elif now != last_seen:
                session[LAST_SEEN_KEY] = now
        return self.get_response(request)


# --- Enrolment --------------------------------------------------------------------------


def staff_otp_enrol(*, user: Any, actor: Any, replace: bool = False) -> Any:
    """Give a staff user a confirmed TOTP device (``manage.py staff_otp_enrol``) and return
    it: its ``config_url`` (otpauth://) goes into the authenticator app. One device per
    user: an existing one is kept unless ``replace`` (then it is deleted, and the sessions
    it verified stop being verified). Audited; the key never reaches the log."""
    from django.db import transaction
    from django_otp.plugins.otp_totp.models import TOTPDevice

    from gin_platform.audit import audit_record

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
