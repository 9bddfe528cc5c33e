"""Back-office roles (docs/backoffice.md): each role can do what it must and nothing else,
through the staff API (a matrix) and the admin; operator scope; every admin change is
audited; the second factor; the staff session's timeouts."""

from __future__ import annotations

import base64
import json
import time
from datetime import timedelta

import pytest
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.contrib import admin
from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied
from django.core.management import call_command
from django.test import Client, RequestFactory
from django.utils import timezone
from django_otp.plugins.otp_totp.models import TOTPDevice
from rest_framework.test import APIClient

from games.models import Room, Table
from gin_platform.admin.audited import AuditedModelAdmin
from gin_platform.models import (
    AuditEvent,
    Operator,
    Player,
    StaffChangeRequest,
    StaffOperatorScope,
)
from gin_platform.staff.roles import ROLES as PERMISSIONS_BY_ROLE
from gin_platform.staff.scope import operator_scope
from gin_platform.staff.sessions import LAST_SEEN_KEY, LOGIN_AT_KEY
from tests.factories import (
    OperatorFactory,
    PlayerFactory,
    admin_login,
    staff_user,
    totp_code,
)
from tests.games.factories import RoomFactory, TableFactory
from tests.helpers import api_as, assert_problem, freeze_now
from tests.wallet.factories import CashierCapsFactory, fund
from wallet.models import ApprovalRequest

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

ROLES = ("support", "finance", "risk", "admin")
NOBODY = "no role"  # is_staff, no group: today's bare staff user


@pytest.fixture
def world(operator, player):
    txn = fund(player, 5_000)
    CashierCapsFactory(operator=operator, max_deposit=500_00)
    return {"operator": operator, "player": player, "txn": txn}


def user_in(role: str, name: str | None = None, **extra):
    roles = () if role == NOBODY else (role,)
    return staff_user(name or f"u-{role.replace(' ', '-')}", *roles, **extra)


# --- The staff API matrix --------------------------------------------------------------------
# (label, method, path builder, body, the roles allowed)
FINANCE = {"finance", "admin"}
RISK = {"risk", "admin"}
ENDPOINTS = [
    ("rates: list", "get", lambda w: "/api/v1/staff/exchange-rates", None, FINANCE),
    (
        "rates: record",
        "post",
        lambda w: "/api/v1/staff/exchange-rates",
        {
            "base": "EUR",
            "quote": "USD",
            "rate": "1.07",
            "as_of": "2026-11-01T00:00:00Z",
            "source": "ecb",
        },
        FINANCE,
    ),
    (
        "caps: show",
        "get",
        lambda w: f"/api/v1/staff/operators/{w['operator'].pk}/cashier-caps/EUR",
        None,
        RISK,
    ),
    (
        "caps: set (tighter)",
        "put",
        lambda w: f"/api/v1/staff/operators/{w['operator'].pk}/cashier-caps/EUR",
        {"max_deposit": "100.00"},
        RISK,
    ),
    (
        "ledger: transaction",
        "get",
        lambda w: f"/api/v1/staff/ledger/transactions/{w['txn'].pk}",
        None,
        FINANCE,
    ),
    (
        "ledger: propose reversal",
        "post",
        lambda w: f"/api/v1/staff/ledger/transactions/{w['txn'].pk}/reversal",
        {"reference": "r-1", "reason": "chargeback"},
        FINANCE,
    ),
    ("ledger: reconcile", "get", lambda w: "/api/v1/staff/ledger/reconciliation", None, FINANCE),
    ("reports: daily", "get", lambda w: "/api/v1/backoffice/reports/daily", None, FINANCE),
    ("reconciliation runs", "get", lambda w: "/api/v1/backoffice/reconciliation", None, FINANCE),
    ("reconciliation: run", "post", lambda w: "/api/v1/backoffice/reconciliation", {}, FINANCE),
    ("approvals: list", "get", lambda w: "/api/v1/staff/approvals", None, FINANCE | RISK),
    (
        "approvals: propose adjustment",
        "post",
        lambda w: "/api/v1/staff/approvals",
        lambda w: {
            "kind": "adjustment",
            "operator_id": str(w["operator"].pk),
            "reason": "goodwill",
            "payload": {
                "player_id": str(w["player"].pk),
                "direction": "credit",
                "amount": "5.00",
                "currency": "EUR",
                "reference": "gw-1",
            },
        },
        FINANCE,
    ),
    (
        "approvals: propose cap raise",
        "post",
        lambda w: "/api/v1/staff/approvals",
        lambda w: {
            "kind": "cashier_caps",
            "operator_id": str(w["operator"].pk),
            "reason": "VIP",
            "payload": {"currency": "EUR", "caps": {"max_deposit": "900.00"}},
        },
        RISK,
    ),
    (
        "tournament requests: list",
        "get",
        lambda w: "/api/v1/staff/tournament-requests",
        None,
        FINANCE | RISK,
    ),
]


def payload(body, world):
    return body(world) if callable(body) else body


@pytest.mark.parametrize("role", [*ROLES, NOBODY])
@pytest.mark.parametrize(
    ("label", "method", "path", "body", "allowed"), ENDPOINTS, ids=[e[0] for e in ENDPOINTS]
)
def test_the_staff_api_matrix(world, role, label, method, path, body, allowed):
    client = api_as(user_in(role))
    response = getattr(client, method)(path(world), payload(body, world), format="json")
    if role in allowed:
        assert response.status_code in (200, 201), (role, label, response.content)
    else:
        assert_problem(response, 403, "permission-denied")


def test_superusers_keep_everything(world, django_user_model):
    root = django_user_model.objects.create_superuser("root", password="pw-root-12345")
    root.otp_device = TOTPDevice.objects.create(user=root, name="t", confirmed=True)
    client = api_as(root)
    for label, method, path, body, _allowed in ENDPOINTS:
        response = getattr(client, method)(path(world), payload(body, world), format="json")
        assert response.status_code in (200, 201), (label, response.content)


def test_no_role_is_not_enough_and_operators_and_players_stay_out(
    world, operator_client, player_client
):
    for client in (operator_client, player_client):
        assert client.get("/api/v1/staff/approvals").status_code == 403
    anonymous = APIClient().get("/api/v1/staff/approvals")
    assert anonymous.status_code == 401


def test_the_data_migration_made_the_four_roles():
    assert set(Group.objects.values_list("name", flat=True)) >= set(ROLES)
    finance = Group.objects.get(name="finance")
    codenames = set(finance.permissions.values_list("codename", flat=True))
    assert {"view_reports", "propose_reversal", "approve_reversal", "add_exchangerate"} <= codenames
    assert "change_player" not in codenames
    everything = Group.objects.get(name="admin").permissions.count()
    assert everything > 100  # every model permission of the apps, and the custom ones


def test_after_the_migrations_every_role_holds_every_permission_it_names():
    """An earlier migration syncs the roles before a later one creates some of their
    permissions; the later one grants them, and none may be missing or misspelt."""
    for role, names in PERMISSIONS_BY_ROLE.items():
        held = {
            f"{app_label}.{codename}"
            for app_label, codename in Group.objects.get(name=role).permissions.values_list(
                "content_type__app_label", "codename"
            )
        }
        assert set(names) <= held, (role, set(names) - held)


# --- The admin, role by role -----------------------------------------------------------------
ADMIN_PAGES = {
    "/admin/platform/player/": {"support", "finance", "risk", "admin"},
    # Risk reads the games behind its integrity cases.
    "/admin/games/match/": {"support", "risk", "admin"},
    "/admin/games/handevent/": {"support", "risk", "admin"},
    "/admin/wallet/ledgertransaction/": {"finance", "admin"},
    "/admin/settlement/dailyreport/": {"finance", "admin"},
    "/admin/settlement/reconciliationrun/": {"finance", "admin"},
    "/admin/wallet/cashiercaps/": {"risk", "admin"},
    "/admin/wallet/selfexclusion/": {"risk", "admin"},
    "/admin/wallet/approvalrequest/": {"finance", "risk", "admin"},
    "/admin/tournaments/tournamentrequest/": {"finance", "risk", "admin"},
    "/admin/auth/user/": {"admin"},
    "/admin/platform/auditevent/": {"admin"},
}


@pytest.mark.parametrize("role", [*ROLES, NOBODY])
def test_the_admin_shows_each_role_its_pages_only(world, client, role):
    admin_login(client, user_in(role))
    assert client.get("/admin/").status_code == 200
    for page, allowed in ADMIN_PAGES.items():
        expected = 200 if role in allowed else 403
        assert client.get(page).status_code == expected, (role, page)


def kyc_form(player: Player, kyc_status: str) -> dict:
    return {
        "display_name": player.display_name,
        "display_currency": player.display_currency,
        "locale": player.locale,
        "status": player.status,
        "kyc_status": kyc_status,
    }


@pytest.mark.parametrize("role", [*ROLES, NOBODY])
def test_only_risk_and_admin_change_a_players_kyc_status_and_it_is_audited(world, client, role):
    player = PlayerFactory(operator=world["operator"], kyc_status=Player.KycStatus.PENDING)
    user = user_in(role)
    admin_login(client, user)
    url = f"/admin/platform/player/{player.pk}/change/"
    response = client.post(url, kyc_form(player, "verified"))
    player.refresh_from_db()
    if role in RISK:
        assert response.status_code == 302, response.content[:2000]
        assert player.kyc_status == "verified"
        event = AuditEvent.objects.get(action="admin.change", object_id=str(player.pk))
        assert (event.actor_type, event.actor_id) == ("staff", str(user.pk))
        assert event.operator == world["operator"]
        assert event.data["changes"]["kyc_status"] == ["pending", "verified"]
    else:
        assert response.status_code == 403
        assert player.kyc_status == "pending"
        assert not AuditEvent.objects.filter(action="admin.change").exists()


def player_form(player: Player, **changes) -> dict:
    return {
        "display_name": player.display_name,
        "display_currency": player.display_currency,
        "locale": player.locale,
        "screen_name": player.screen_name or "",
        "status": player.status,
        "kyc_status": player.kyc_status,
        **changes,
    }


def test_risk_changes_a_players_kyc_status_and_status_and_nothing_else(operator, client):
    player = PlayerFactory(
        operator=operator, display_name="Ann", locale="en", display_currency="EUR",
        kyc_status="pending",
    )  # fmt: skip
    admin_login(client, staff_user("rita", "risk"))
    url = f"/admin/platform/player/{player.pk}/change/"
    html = client.get(url).content.decode()
    assert 'name="kyc_status"' in html and 'name="status"' in html
    for field in ("display_name", "screen_name", "locale", "display_currency"):
        assert f'name="{field}"' not in html, field
    response = client.post(
        url,
        player_form(
            player,
            display_name="Renamed",
            screen_name="renamed",
            locale="de",
            display_currency="GBP",
            kyc_status="verified",
            status="suspended",
        ),
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    player.refresh_from_db()
    assert (player.kyc_status, player.status) == ("verified", "suspended")
    assert (player.display_name, player.screen_name, player.locale) == ("Ann", None, "en")
    assert player.display_currency == "EUR"
    event = AuditEvent.objects.get(action="admin.change", object_id=str(player.pk))
    assert set(event.data["changes"]) == {"kyc_status", "status"}


def test_the_save_refuses_risk_a_change_of_any_other_field(operator):
    player = PlayerFactory(operator=operator, display_name="Ann")
    request = RequestFactory().post("/admin/")
    request.user = staff_user("rita", "risk")
    player_admin = admin.site._registry[Player]
    player.display_name = "Renamed"
    with pytest.raises(PermissionDenied):
        player_admin.save_model(request, player, form=None, change=True)
    player.refresh_from_db()
    assert player.display_name == "Ann"
    assert not AuditEvent.objects.filter(object_id=str(player.pk)).exists()


def test_admin_still_changes_a_players_profile(operator, client):
    player = PlayerFactory(operator=operator, display_name="Ann")
    admin_login(client, staff_user("root-admin", "admin"))
    response = client.post(
        f"/admin/platform/player/{player.pk}/change/", player_form(player, display_name="Anne")
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    player.refresh_from_db()
    assert player.display_name == "Anne"


def test_the_money_roles_need_the_second_factor_in_the_admin(world):
    for role, needs in (("support", False), ("risk", False), ("finance", True), ("admin", True)):
        client = Client()
        client.force_login(user_in(role, name=f"no-otp-{role}"))  # password only
        response = client.get("/admin/")
        assert response.status_code == (302 if needs else 200), role
        if needs:
            assert response["Location"].startswith("/admin/login/")


# --- Operator scope ------------------------------------------------------------------------
@pytest.fixture
def two_operators(world):
    other = OperatorFactory()
    other_player = PlayerFactory(operator=other)
    other_txn = fund(other_player, 700)
    scoped = staff_user("scoped", "admin")
    StaffOperatorScope.objects.create(user=scoped, operator=world["operator"])
    return {**world, "other": other, "other_player": other_player, "other_txn": other_txn,
            "scoped": scoped}  # fmt: skip


def test_a_scoped_staff_user_sees_only_their_operators_in_the_api(two_operators):
    w = two_operators
    client = api_as(w["scoped"])
    mine = client.get(f"/api/v1/staff/ledger/transactions/{w['txn'].pk}")
    assert mine.status_code == 200
    theirs = client.get(f"/api/v1/staff/ledger/transactions/{w['other_txn'].pk}")
    assert_problem(theirs, 404, "not-found")
    reversal = client.post(
        f"/api/v1/staff/ledger/transactions/{w['other_txn'].pk}/reversal",
        {"reference": "x", "reason": "y"},
        format="json",
    )
    assert_problem(reversal, 404, "not-found")
    caps = client.get(f"/api/v1/staff/operators/{w['other'].pk}/cashier-caps/EUR")
    assert_problem(caps, 404, "not-found")
    report = client.get(f"/api/v1/backoffice/reports/daily?operator={w['other'].slug}")
    assert_problem(report, 404, "not-found")
    mine = client.get(f"/api/v1/backoffice/reports/daily?operator={w['operator'].slug}")
    assert mine.status_code == 200
    assert client.get("/api/v1/backoffice/reports/daily").status_code == 200  # theirs only
    # Everything-at-once endpoints are for unscoped staff.
    assert_problem(client.get("/api/v1/backoffice/reconciliation"), 403, "permission-denied")
    # Approvals: another operator's request is not found, and not listed.
    other_request = ApprovalRequest.objects.create(
        kind="reversal",
        operator=w["other"],
        payload={"transaction_id": w["other_txn"].pk, "reference": "z"},
        reason="r",
        proposed_by=staff_user("someone", "finance"),
    )
    assert client.get("/api/v1/staff/approvals").json()["results"] == []
    assert_problem(client.get(f"/api/v1/staff/approvals/{other_request.pk}"), 404, "not-found")
    refused = client.post(f"/api/v1/staff/approvals/{other_request.pk}/approve", {})
    assert_problem(refused, 404, "not-found")
    assert ApprovalRequest.objects.get(pk=other_request.pk).status == "pending"


def test_a_scoped_staff_user_sees_only_their_operators_in_the_admin(two_operators, client):
    w = two_operators
    admin_login(client, w["scoped"])
    players = client.get("/admin/platform/player/").content.decode()
    assert w["player"].external_ref in players
    assert w["other_player"].external_ref not in players
    operators = client.get("/admin/platform/operator/").content.decode()
    assert w["operator"].slug in operators and w["other"].slug not in operators
    ledger = client.get("/admin/wallet/ledgertransaction/").content.decode()
    assert w["txn"].reference in ledger and w["other_txn"].reference not in ledger
    page = client.get(f"/admin/platform/player/{w['other_player'].pk}/change/")
    assert page.status_code == 302  # "doesn't exist": the admin's not-found
    assert operator_scope(w["scoped"]) == frozenset({w["operator"].pk})


# --- Every admin change is audited -----------------------------------------------------------
def _instances(world) -> dict:
    """One object of every model whose admin can change anything. A new changeable admin
    needs an entry here, and its class needs AuditedModelAdmin."""
    someone = staff_user("someone-else", "support")
    axes_row = {"user_agent": "t", "path_info": "/admin/login/", "http_accept": "*/*"}
    room = RoomFactory(operator=world["operator"])
    return {
        Operator: world["operator"],
        Player: world["player"],
        Room: room,
        Table: TableFactory(room=room),
        Group: Group.objects.get(name="support"),
        type(someone): someone,
        TOTPDevice: TOTPDevice.objects.create(user=someone, name="phone", confirmed=True),
        StaffOperatorScope: StaffOperatorScope.objects.create(
            user=someone, operator=world["operator"]
        ),
        StaffChangeRequest: StaffChangeRequest.objects.create(
            user=someone, changes={"is_superuser": [False, True]}, reason="r", proposed_by=someone
        ),
        AccessAttempt: AccessAttempt.objects.create(
            ip_address="198.51.100.1", username="x", failures_since_start=1, **axes_row
        ),
        AccessLog: AccessLog.objects.create(ip_address="198.51.100.1", username="x", **axes_row),
        AccessFailureLog: AccessFailureLog.objects.create(
            ip_address="198.51.100.1", username="x", locked_out=False, **axes_row
        ),
    }


def test_every_admin_that_can_change_anything_audits_every_change(world, django_user_model):
    root = django_user_model.objects.create_superuser("root", password="pw-root-12345")
    request = RequestFactory().post("/admin/")
    request.user = root
    instances = _instances(world)
    changeable = []
    for model, model_admin in admin.site._registry.items():
        if not (
            model_admin.has_add_permission(request)
            or model_admin.has_change_permission(request)
            or model_admin.has_delete_permission(request)
        ):
            continue
        changeable.append(model)
        assert isinstance(model_admin, AuditedModelAdmin), model
        assert model in instances, f"add an instance of {model.__name__} to _instances"
        obj = instances[model]
        model_admin.save_model(request, obj, form=None, change=True)
        event = AuditEvent.objects.filter(
            action="admin.change", object_type=model._meta.label_lower, object_id=str(obj.pk)
        ).first()
        assert event is not None, model
        assert (event.actor_type, event.actor_id) == ("staff", str(root.pk))
    assert {Operator, Player, Room, Table, django_user_model} <= set(changeable)
    # Roles and operator scope rows change only through access change requests.
    assert Group not in changeable and StaffOperatorScope not in changeable
    # No secret reaches the log: a TOTP device's key is left out.
    totp_event = AuditEvent.objects.get(object_type="otp_totp.totpdevice")
    assert "key" not in str(totp_event.data["changes"])


def test_admin_deletes_inline_changes_and_bulk_actions_are_audited(world, client):
    root = staff_user("root-admin", "admin")
    admin_login(client, root)
    owner = staff_user("phones", "support", otp=False)
    doomed = [
        TOTPDevice.objects.create(user=owner, name=f"old phone {n}", confirmed=True)
        for n in range(2)
    ]
    response = client.post(
        "/admin/otp_totp/totpdevice/",
        {"action": "delete_selected", "_selected_action": [d.pk for d in doomed], "post": "yes"},
    )
    assert response.status_code == 302
    deleted = AuditEvent.objects.filter(action="admin.delete", object_type="otp_totp.totpdevice")
    assert sorted(e.object_id for e in deleted) == sorted(str(d.pk) for d in doomed)
    assert all(e.data["changes"]["name"][1] is None for e in deleted)
    assert not TOTPDevice.objects.filter(user=owner).exists()

    # A staff user's profile changed on their page: before and after.
    user = staff_user("limited", "support")
    form = {
        "username": "limited",
        "first_name": "Lim",
        "last_name": "",
        "email": "",
        "operator_scopes-TOTAL_FORMS": "0",
        "operator_scopes-INITIAL_FORMS": "0",
        "operator_scopes-MIN_NUM_FORMS": "0",
        "operator_scopes-MAX_NUM_FORMS": "1000",
    }
    response = client.post(f"/admin/auth/user/{user.pk}/change/", form)
    assert response.status_code == 302, response.content.decode()[:3000]
    changed = AuditEvent.objects.get(action="admin.change", object_type="auth.user")
    assert changed.object_id == str(user.pk)
    assert changed.data["changes"]["first_name"] == ["", "Lim"]

    # A room deactivated in the admin: before and after.
    room = RoomFactory(operator=world["operator"], active=True)
    response = client.post(
        f"/admin/games/room/{room.pk}/change/",
        {
            "name": room.name,
            "tables-TOTAL_FORMS": "0",
            "tables-INITIAL_FORMS": "0",
            "tables-MIN_NUM_FORMS": "0",
            "tables-MAX_NUM_FORMS": "1000",
        },
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    event = AuditEvent.objects.get(object_type="games.room", object_id=str(room.pk))
    assert event.data["changes"]["active"] == [True, False]


# --- Second factor --------------------------------------------------------------------------
def basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


@pytest.fixture
def finance_basic(world, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    user = staff_user("fin", "finance", password="pw-fin-correct")
    device = user.otp_device
    client = APIClient(REMOTE_ADDR="203.0.113.7")
    client.credentials(HTTP_AUTHORIZATION=basic("fin", "pw-fin-correct"))
    return client, device


def propose_reversal(client, world, **headers):
    return client.post(
        f"/api/v1/staff/ledger/transactions/{world['txn'].pk}/reversal",
        json.dumps({"reference": "otp-1", "reason": "test"}),
        content_type="application/json",
        **headers,
    )


def test_money_endpoints_need_the_second_factor_over_basic_auth(world, finance_basic):
    client, device = finance_basic
    assert_problem(propose_reversal(client, world), 403, "otp-required")
    wrong = f"{(int(totp_code(device)) + 1) % 10**6:06d}"
    assert_problem(propose_reversal(client, world, HTTP_X_OTP=wrong), 403, "otp-required")
    assert AccessAttempt.objects.get().failures_since_start == 1  # a failed login for axes
    # django-otp throttles the device after a failure (1 s, doubling with each failure).
    throttled = propose_reversal(client, world, HTTP_X_OTP=totp_code(device))
    assert_problem(throttled, 403, "otp-required")
    time.sleep(1.1)
    code = totp_code(device)
    assert propose_reversal(client, world, HTTP_X_OTP=code).status_code == 201
    # The same code again within its window (a burst of requests) is accepted...
    again = client.get("/api/v1/staff/approvals", HTTP_X_OTP=code)
    assert again.status_code == 200
    # ... and reads that move no money never need it.
    assert client.get(f"/api/v1/staff/ledger/transactions/{world['txn'].pk}").status_code == 200
    assert ApprovalRequest.objects.count() == 1


def test_roles_that_move_no_money_need_no_second_factor(world, settings):
    risk = staff_user("risky", "risk", otp=False)
    response = api_as(risk).post(
        "/api/v1/staff/approvals",
        {
            "kind": "cashier_caps",
            "operator_id": str(world["operator"].pk),
            "reason": "VIP",
            "payload": {"currency": "EUR", "caps": {"max_deposit": "900.00"}},
        },
        format="json",
    )
    assert response.status_code == 201, response.content


def test_wrong_codes_lock_the_address_out_like_wrong_passwords(world, finance_basic):
    client, device = finance_basic
    wrong = f"{(int(totp_code(device)) + 1) % 10**6:06d}"
    for _ in range(5):
        propose_reversal(client, world, HTTP_X_OTP=wrong)
    locked = propose_reversal(client, world, HTTP_X_OTP=totp_code(device))
    assert_problem(locked, 429, "login-locked-out")
    assert ApprovalRequest.objects.count() == 0


def login_form(client, password: str, code: str | None):
    data = {"username": "fin", "password": password}
    if code is not None:
        data["otp_token"] = code
    return client.post("/admin/login/?next=/admin/", data)


def test_the_admin_login_asks_the_money_roles_for_a_code(world, finance_basic):
    _api, device = finance_basic
    client = Client(REMOTE_ADDR="203.0.113.8")
    assert login_form(client, "pw-fin-correct", None).status_code == 200  # code missing
    assert client.get("/admin/").status_code == 302
    wrong = f"{(int(totp_code(device)) + 1) % 10**6:06d}"
    assert login_form(client, "pw-fin-correct", wrong).status_code == 200
    time.sleep(1.1)  # django-otp throttles the device for a second after a failure
    response = login_form(client, "pw-fin-correct", totp_code(device))
    assert response.status_code == 302 and response["Location"] == "/admin/"
    assert client.get("/admin/").status_code == 200
    # The verified session moves money over the staff API too (no X-OTP needed).
    assert propose_reversal(client, world).status_code == 201


def test_wrong_codes_at_the_admin_login_count_towards_the_lockout(world, finance_basic):
    _api, device = finance_basic
    client = Client(REMOTE_ADDR="198.51.100.9")
    wrong = f"{(int(totp_code(device)) + 1) % 10**6:06d}"
    statuses = [login_form(client, "pw-fin-correct", wrong).status_code for _ in range(5)]
    assert statuses == [200, 200, 200, 200, 429]
    # Locked out: the right password and code are not even checked from there.
    assert login_form(client, "pw-fin-correct", totp_code(device)).status_code == 429


def test_the_enrol_command_prints_an_otpauth_url(world, capsys):
    user = staff_user("newcomer", "finance", otp=False)
    call_command("staff_otp_enrol", "newcomer")
    url = capsys.readouterr().out.strip()
    assert url.startswith("otpauth://totp/") and "newcomer" in url
    device = TOTPDevice.objects.get(user=user)
    assert device.confirmed
    assert AuditEvent.objects.filter(action="staff.otp_enrolled").exists()
    assert device.key not in str(AuditEvent.objects.get(action="staff.otp_enrolled").data)


# --- Session timeouts -------------------------------------------------------------------------
def test_a_staff_session_ends_after_the_idle_timeout(world, client, settings):
    settings.STAFF_SESSION_IDLE_SECONDS = 1800
    admin_login(client, staff_user("idle", "support"))
    assert client.get("/admin/").status_code == 200  # starts the clock
    session = client.session
    now = int(timezone.now().timestamp())
    session[LAST_SEEN_KEY] = now - 1799
    session.save()
    assert client.get("/admin/").status_code == 200  # still in time: the clock restarts
    session = client.session
    session[LAST_SEEN_KEY] = now - 1801
    session.save()
    response = client.get("/admin/")
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")
    assert client.get("/admin/").status_code == 302  # logged out for good


def test_a_staff_session_ends_eight_hours_after_login_whatever_happens(world, client):
    admin_login(client, staff_user("long", "support"))
    assert client.get("/admin/").status_code == 200
    session = client.session
    session[LOGIN_AT_KEY] = int((timezone.now() - timedelta(hours=8, seconds=1)).timestamp())
    session.save()
    assert client.get("/admin/").status_code == 302
    # The staff API over the same (ended) cookie is not authenticated either.
    assert client.get("/api/v1/staff/approvals").status_code in (401, 403)


def admin_form_login(role: str) -> Client:
    """A Client logged in through the admin's login form: the password, and for a money
    role the TOTP step (the current code) as well."""
    user = user_in(role, name=f"clock-{role}", password="pw-clock-correct")
    data = {"username": user.username, "password": "pw-clock-correct"}
    if user.otp_device is not None:
        data["otp_token"] = totp_code(user.otp_device)
    client = Client(REMOTE_ADDR="203.0.113.30")
    response = client.post("/admin/login/?next=/admin/", data)
    assert response.status_code == 302 and response["Location"] == "/admin/", response.content
    return client


@pytest.fixture
def short_sessions(world, settings, monkeypatch):
    """Idle 8 s, 20 s at most, on a clock the test moves (the login happens at its start)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.STAFF_SESSION_IDLE_SECONDS = 8
    settings.STAFF_SESSION_MAX_SECONDS = 20
    return freeze_now(monkeypatch, timezone.now())


@pytest.mark.parametrize("role", ["support", "finance"])  # password only; password and code
def test_the_idle_clock_starts_at_login_not_at_the_first_request(short_sessions, role):
    client = admin_form_login(role)
    short_sessions.advance(seconds=9)  # never used since the login, 9 s ago
    response = client.get("/admin/")
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")
    assert client.get("/api/v1/staff/approvals").status_code in (401, 403)


@pytest.mark.parametrize("role", ["support", "finance"])
def test_the_lifetime_is_counted_from_login_not_from_the_first_request(short_sessions, role):
    client = admin_form_login(role)
    for _ in range(4):  # used every 5 s: never idle, up to 20 s after the login
        short_sessions.advance(seconds=5)
        assert client.get("/admin/").status_code == 200
    short_sessions.advance(seconds=1)  # 21 s after the login, 16 s after the first request
    response = client.get("/admin/")
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")


def test_a_session_without_the_login_stamps_is_ended(world, client):
    """A session logged in before the stamps existed cannot say when its clocks started."""
    admin_login(client, staff_user("old", "support"))
    session = client.session
    del session[LOGIN_AT_KEY]
    session.save()
    response = client.get("/admin/")
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")
