"""Back-office roles (docs/backoffice.md): Django groups (``support``, ``finance``,
``risk``, ``admin``) holding real model permissions plus a few custom ones for actions
(``wallet.propose_reversal``...); the staff API and the admin check permissions, never
``is_staff`` alone, and superusers keep everything. The roles that move money (finance,
admin, superusers) log in with a TOTP token as well (gin_platform/staff/otp.py); what each
role may change on a player."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib.auth.management import create_permissions
from django.db.models import Q

if TYPE_CHECKING:
    pass


SUPPORT, FINANCE, RISK, ADMIN = "support", "finance", "risk", "admin"
# Roles whose members must pass a TOTP token (superusers too): they can move money.
OTP_ROLES = frozenset({FINANCE, ADMIN})
# The apps whose every permission the admin role holds (auth: staff users and groups).
ADMIN_APPS = (
    "platform",
    "wallet",
    "games",
    "settlement",
    "integrity",
    "protection",
    "tournaments",
    "auth",
    "otp_totp",
)

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
        # A confiscation moves money: risk proposes it, a role with a second factor approves.
        "integrity.view_case",
        "integrity.approve_confiscation",
        # Staff's tournaments put money at risk (a guarantee's overlay, refunds): four eyes.
        "tournaments.view_tournamentrequest",
        "tournaments.propose_create",
        "tournaments.approve_create",
        "tournaments.propose_cancel",
        "tournaments.approve_cancel",
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
        "games.view_match",
        "games.view_hand",
        "games.view_handevent",
        "integrity.view_playerlink",
        "integrity.add_playerlink",
        "integrity.view_alert",
        "integrity.change_alert",
        "integrity.view_case",
        "integrity.add_case",
        "integrity.change_case",
        "integrity.work_case",
        "integrity.propose_confiscation",
        # Player protection's markers of harm (docs/player-protection.md): read the flags,
        # read and change the rules.
        "protection.view_harmrule",
        "protection.change_harmrule",
        "protection.view_harmflag",
        # A tournament to stop (collusion found, say): risk proposes, finance approves.
        "tournaments.view_tournamentrequest",
        "tournaments.propose_cancel",
    ),
    ADMIN: (),  # every permission of ADMIN_APPS, resolved when the roles are synced
}


def roles_sync(apps: Any) -> None:
    """Create the role groups with their permissions (the data migration; idempotent; with
    ``django.apps.apps`` it restores them after a test flushed the tables). Model
    permissions are created first: on a fresh database they do not exist yet."""
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
