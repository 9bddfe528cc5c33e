"""Staff access (docs/backoffice.md "Staff access"): a scoped staff user never sees or
changes staff administration (users, roles, operator scope); nobody changes their own user;
a user's flags, roles, permissions and operator scope change only through a request that
another unscoped staff member approves (four eyes), and only while its proposer may still
propose it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.contrib import admin
from django.contrib.auth.models import Group, Permission
from django.test import RequestFactory

from gin_platform.http.problems import (
    ApprovalInvalidProblem,
    ApprovalNotPendingProblem,
    FourEyesRequiredProblem,
    PermissionDeniedProblem,
    ProposerNotEntitledProblem,
)
from gin_platform.models import AuditEvent, StaffChangeRequest, StaffOperatorScope
from gin_platform.staff.access import (
    staff_change_approve,
    staff_change_propose,
    staff_change_reject,
)
from gin_platform.staff.roles import ROLES
from tests.factories import OperatorFactory, PlayerFactory, admin_login, staff_user

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

REQUESTS = "/admin/platform/staffchangerequest/"


@pytest.fixture
def two(operator, player):
    """Operator A (``operator``) with a player, operator B with one, and an admin-role
    user limited to A: the tester's setting."""
    other = OperatorFactory()
    scoped = staff_user("scoped-admin", "admin")
    StaffOperatorScope.objects.create(user=scoped, operator=operator)
    return {
        "a": operator,
        "b": other,
        "a_player": player,
        "b_player": PlayerFactory(operator=other),
        "scoped": scoped,
    }


def roles(user) -> set[str]:
    return set(user.groups.values_list("name", flat=True))


def user_form(user, **changes) -> dict:
    """The whole change form of ``user`` as the admin renders it (with every field that
    the stock Django user admin makes editable), then ``changes``."""
    scopes = list(StaffOperatorScope.objects.filter(user=user))
    form = {
        "username": user.username,
        "first_name": user.first_name,
        "last_name": user.last_name,
        "email": user.email,
        "groups": [g.pk for g in user.groups.all()],
        "user_permissions": [p.pk for p in user.user_permissions.all()],
        "last_login_0": "",
        "last_login_1": "",
        "date_joined_0": "2026-11-30",
        "date_joined_1": "10:00:00",
        "initial-date_joined_0": "2026-11-30",
        "initial-date_joined_1": "10:00:00",
        "operator_scopes-TOTAL_FORMS": str(len(scopes)),
        "operator_scopes-INITIAL_FORMS": str(len(scopes)),
        "operator_scopes-MIN_NUM_FORMS": "0",
        "operator_scopes-MAX_NUM_FORMS": "1000",
    }
    for flag in ("is_active", "is_staff", "is_superuser"):
        if getattr(user, flag):
            form[flag] = "on"
    for n, scope in enumerate(scopes):
        form[f"operator_scopes-{n}-id"] = str(scope.pk)
        form[f"operator_scopes-{n}-user"] = str(user.pk)
        form[f"operator_scopes-{n}-operator"] = str(scope.operator_id)
    form.update(changes)
    return form


# --- A scoped user: no staff administration at all ---------------------------------------------
def test_a_scoped_admin_cannot_delete_its_own_scope_row_and_stays_scoped(two, client):
    """The tester's report: deleting one's own operator-scope row on one's own user page,
    then opening operator B's pages."""
    scoped, row = two["scoped"], StaffOperatorScope.objects.get(user=two["scoped"])
    admin_login(client, scoped)
    page = f"/admin/auth/user/{scoped.pk}/change/"
    deleted = client.post(page, user_form(scoped, **{"operator_scopes-0-DELETE": "on"}))
    assert deleted.status_code == 403
    assert client.post(f"/admin/auth/user/{scoped.pk}/delete/", {"post": "yes"}).status_code == 403
    bulk = client.post(
        "/admin/auth/user/",
        {"action": "delete_selected", "_selected_action": [scoped.pk], "post": "yes"},
    )
    assert bulk.status_code == 403
    # The scope model has no admin of its own to go round by.
    assert client.get("/admin/platform/staffoperatorscope/").status_code == 404
    assert client.get(f"/admin/platform/staffoperatorscope/{row.pk}/delete/").status_code == 404

    assert StaffOperatorScope.objects.filter(pk=row.pk).exists()
    assert not AuditEvent.objects.filter(object_type="platform.staffoperatorscope").exists()
    # Still limited to A: B's operator and player are "not found" (the admin's redirect).
    b_operator = client.get(f"/admin/platform/operator/{two['b'].pk}/change/")
    assert b_operator.status_code == 302
    assert client.get(f"/admin/platform/player/{two['b_player'].pk}/change/").status_code == 302
    assert client.get(f"/admin/platform/operator/{two['a'].pk}/change/").status_code == 200


def test_a_scoped_user_never_sees_users_roles_scopes_or_requests(two, client):
    other = staff_user("colleague", "support")
    StaffOperatorScope.objects.create(user=other, operator=two["b"])
    admin_login(client, two["scoped"])
    for page in (
        "/admin/auth/user/",
        f"/admin/auth/user/{other.pk}/change/",
        f"/admin/auth/user/{two['scoped'].pk}/change/",
        "/admin/auth/user/add/",
        f"/admin/auth/user/{other.pk}/password/",
        "/admin/auth/group/",
        "/admin/otp_totp/totpdevice/",
        REQUESTS,
        f"{REQUESTS}add/?user={other.pk}",
    ):
        assert client.get(page).status_code == 403, page
    index = client.get("/admin/").content.decode()
    assert "/admin/auth/user/" not in index and REQUESTS not in index
    assert two["b"].name not in index
    assert client.get("/admin/platform/player/").status_code == 200  # the rest stays


STAFF_MODELS = ("auth.user", "auth.group", "auth.permission", "platform.staffoperatorscope",
                "platform.staffchangerequest", "otp_totp.totpdevice")  # fmt: skip


def test_no_admin_page_or_inline_shows_staff_administration_to_a_scoped_user(two):
    """The class: every registered admin and every inline of one, present and future."""
    request = RequestFactory().get("/admin/")
    request.user = two["scoped"]
    checked = []
    for model, model_admin in admin.site._registry.items():
        candidates = [(model, model_admin)]
        candidates += [(i.model, i) for i in model_admin.get_inline_instances(request)]
        candidates += [(i.model, i(model, admin.site)) for i in model_admin.inlines]
        for inner, page in candidates:
            if inner._meta.label_lower not in STAFF_MODELS:
                continue
            checked.append(inner._meta.label_lower)
            assert not page.has_view_permission(request), inner
            if hasattr(page, "parent_model"):
                assert not page.has_add_permission(request, None), inner
            else:
                assert not page.has_add_permission(request), inner
                assert not page.has_module_permission(request), inner
            assert not page.has_change_permission(request), inner
            assert not page.has_delete_permission(request), inner
    assert {"auth.user", "auth.group", "platform.staffoperatorscope"} <= set(checked)


# --- Nobody changes their own user; access is read only on the user page -----------------------
def test_nobody_changes_their_own_user_not_even_an_unscoped_admin(client):
    ana = staff_user("ana", "admin")
    admin_login(client, ana)
    finance = Group.objects.get(name="finance")
    page = f"/admin/auth/user/{ana.pk}/change/"
    assert client.get(page).status_code == 200  # shown, read only
    grab = user_form(ana, groups=[*[g.pk for g in ana.groups.all()], finance.pk])
    assert client.post(page, {**grab, "is_superuser": "on"}).status_code == 403
    renamed = client.post(page, user_form(ana, first_name="Anna"))
    assert renamed.status_code == 403
    password = client.post(
        f"/admin/auth/user/{ana.pk}/password/",
        {"password1": "a-New-pw-4711!", "password2": "a-New-pw-4711!"},
    )
    assert password.status_code == 403
    ana.refresh_from_db()
    assert roles(ana) == {"admin"} and not ana.is_superuser and ana.first_name == ""
    assert ana.check_password("pw-staff-1")
    assert not AuditEvent.objects.filter(object_type="auth.user", object_id=str(ana.pk)).exists()
    # The self-service page, which asks for the current password, still works.
    own = client.post(
        "/admin/password_change/",
        {
            "old_password": "pw-staff-1",
            "new_password1": "a-New-pw-4711!",
            "new_password2": "a-New-pw-4711!",
        },
    )
    assert own.status_code == 302
    ana.refresh_from_db()
    assert ana.check_password("a-New-pw-4711!")


def test_another_users_access_is_read_only_on_their_page(operator, client):
    ana, sam = staff_user("ana", "admin"), staff_user("sam", "support")
    admin_login(client, ana)
    page = f"/admin/auth/user/{sam.pk}/change/"
    html = client.get(page).content.decode()
    assert 'name="groups"' not in html and 'name="is_superuser"' not in html
    assert f"{REQUESTS}add/?user={sam.pk}" in html  # the way to change it
    form = user_form(
        sam,
        first_name="Samuel",
        groups=[Group.objects.get(name="admin").pk],
        is_superuser="on",
        user_permissions=[Permission.objects.get(codename="approve_reversal").pk],
        **{
            "operator_scopes-TOTAL_FORMS": "1",
            "operator_scopes-0-user": str(sam.pk),
            "operator_scopes-0-operator": str(operator.pk),
        },
    )
    response = client.post(page, form)
    assert response.status_code == 302, response.content.decode()[:2000]
    sam.refresh_from_db()
    assert sam.first_name == "Samuel"  # a profile field: changed directly, audited
    assert roles(sam) == {"support"} and not sam.is_superuser
    assert not sam.user_permissions.exists()
    assert not StaffOperatorScope.objects.filter(user=sam).exists()
    event = AuditEvent.objects.get(action="admin.change", object_id=str(sam.pk))
    assert set(event.data["changes"]) == {"first_name"}
    # Roles are read only for everybody: what a role holds is code (ROLES) and migrations.
    support = Group.objects.get(name="support")
    assert client.post(f"/admin/auth/group/{support.pk}/change/", {"name": "x"}).status_code == 403
    assert client.get("/admin/auth/group/add/").status_code == 403


# --- Four eyes ---------------------------------------------------------------------------------
def propose_in_admin(client, subject, **fields):
    data = {"reason": "joins the finance desk", **fields}
    return client.post(f"{REQUESTS}add/?user={subject.pk}", data)


def decide_in_admin(client, change, verb: str = "approve"):
    return client.post(
        REQUESTS, {"action": f"{verb}_selected", "_selected_action": [change.pk]}, follow=True
    )


def test_an_access_change_is_proposed_by_one_admin_and_approved_by_another(operator, client):
    ana, ben = staff_user("ana", "admin"), staff_user("ben", "admin")
    sam = staff_user("sam", "support")
    admin_login(client, ana)
    form = client.get(f"{REQUESTS}add/?user={sam.pk}")
    assert form.status_code == 200
    assert form.context["adminform"].form.initial["groups"] == ["support"]
    response = propose_in_admin(
        client,
        sam,
        is_active="on",
        is_staff="on",
        groups=["support", "finance"],
        operator_scope=[str(operator.pk)],
    )
    assert response.status_code == 302, response.context["adminform"].form.errors
    change = StaffChangeRequest.objects.get()
    assert change.status == "pending" and change.proposed_by == ana and change.user == sam
    assert change.changes == {
        "groups": [["support"], ["finance", "support"]],
        "operator_scope": [[], [str(operator.pk)]],
    }
    sam.refresh_from_db()
    assert roles(sam) == {"support"} and not StaffOperatorScope.objects.filter(user=sam).exists()

    mine = decide_in_admin(client, change)
    assert "another staff member must decide it" in mine.content.decode()
    assert StaffChangeRequest.objects.get().status == "pending"

    admin_login(client, ben)
    decide_in_admin(client, change)
    change.refresh_from_db()
    assert change.status == "executed" and change.decided_by == ben
    assert roles(sam) == {"support", "finance"}
    assert set(StaffOperatorScope.objects.filter(user=sam).values_list("operator", flat=True)) == {
        operator.pk
    }
    steps = {
        e.action: e.actor_id for e in AuditEvent.objects.filter(object_type__startswith="platform.")
    }
    assert steps == {"staff_change.proposed": str(ana.pk), "staff_change.executed": str(ben.pk)}
    changed = AuditEvent.objects.get(action="staff.access_changed")
    assert (changed.object_type, changed.object_id) == ("auth.user", str(sam.pk))
    assert changed.data["changes"]["groups"] == [["support"], ["finance", "support"]]
    # Approving an executed request again changes nothing.
    staff_change_approve(change=change, user=ben)
    assert AuditEvent.objects.filter(action="staff.access_changed").count() == 1


def test_ones_own_access_changes_only_through_someone_else(client):
    ana, ben = staff_user("ana", "admin"), staff_user("ben", "admin")
    admin_login(client, ana)
    propose_in_admin(client, ana, is_active="on", is_staff="on", is_superuser="on",
                     groups=["admin"])  # fmt: skip
    change = StaffChangeRequest.objects.get(user=ana)
    with pytest.raises(FourEyesRequiredProblem):
        staff_change_approve(change=change, user=ana)
    # Neither may the user whose access changes decide it, whoever proposed it.
    about_ben = staff_change_propose(
        user=ana, subject=ben, access={"is_superuser": True}, reason="on call"
    )
    for decide in (staff_change_approve, staff_change_reject):
        with pytest.raises(FourEyesRequiredProblem, match="your own access"):
            decide(change=about_ben, user=ben)
    staff_change_approve(change=change, user=ben)
    ana.refresh_from_db()
    assert ana.is_superuser
    assert StaffChangeRequest.objects.get(pk=about_ben.pk).status == "pending"


def test_scoped_staff_and_other_roles_neither_propose_nor_decide(two):
    scoped, ana = two["scoped"], staff_user("ana", "admin")
    sam = staff_user("sam", "support")
    with pytest.raises(PermissionDeniedProblem):
        staff_change_propose(
            user=scoped, subject=scoped, access={"operator_scope": []}, reason="lift it"
        )
    with pytest.raises(PermissionDeniedProblem):
        staff_change_propose(
            user=staff_user("fin", "finance"), subject=sam, access={"groups": []}, reason="x"
        )
    lift = staff_change_propose(
        user=ana, subject=scoped, access={"operator_scope": []}, reason="lift it"
    )
    for decider in (scoped, sam):
        with pytest.raises(PermissionDeniedProblem):
            staff_change_approve(change=lift, user=decider)
    assert StaffChangeRequest.objects.get().status == "pending"
    assert StaffOperatorScope.objects.filter(user=scoped).count() == 1


def test_a_request_overtaken_by_another_fails_and_changes_nothing():
    ana, ben = staff_user("ana", "admin"), staff_user("ben", "admin")
    sam = staff_user("sam", "support")
    add_finance = staff_change_propose(
        user=ana, subject=sam, access={"groups": ["finance", "support"]}, reason="desk"
    )
    remove_all = staff_change_propose(user=ana, subject=sam, access={"groups": []}, reason="leaves")
    staff_change_approve(change=remove_all, user=ben)
    with pytest.raises(ApprovalInvalidProblem, match="changed since the proposal"):
        staff_change_approve(change=add_finance, user=ben)
    add_finance.refresh_from_db()
    assert add_finance.status == "failed"
    assert roles(sam) == set()


@pytest.mark.parametrize("loss", ["role", "deactivated", "scope"])
def test_a_request_whose_proposer_lost_the_right_fails_at_approval(operator, client, loss):
    ana, ben = staff_user("ana", "admin"), staff_user("ben", "admin")
    sam = staff_user("sam", "support")
    change = staff_change_propose(
        user=ana, subject=sam, access={"is_superuser": True}, reason="on call"
    )
    second = staff_change_propose(user=ana, subject=sam, access={"groups": []}, reason="leaves")
    if loss == "role":
        ana.groups.set([Group.objects.get(name="support")])
    elif loss == "deactivated":
        ana.is_active = False
        ana.save()
    else:
        StaffOperatorScope.objects.create(user=ana, operator=operator)
    admin_login(client, ben)
    response = decide_in_admin(client, change)
    assert "The proposer may no longer propose" in response.content.decode()
    change.refresh_from_db()
    assert change.status == "failed" and "may no longer propose" in change.decision_note
    sam.refresh_from_db()
    assert not sam.is_superuser
    failed = AuditEvent.objects.get(action="staff_change.failed")
    assert failed.actor_id == str(ben.pk) and failed.data["problem"] == "proposer-not-entitled"
    with pytest.raises(ApprovalNotPendingProblem):  # decided: it never runs later
        staff_change_approve(change=change, user=ben)
    with pytest.raises(ProposerNotEntitledProblem):  # the service says the same
        staff_change_approve(change=second, user=ben)
    assert roles(sam) == {"support"}


# --- The docs' role table is ROLES -------------------------------------------------------------
def test_the_role_table_in_the_docs_is_exactly_the_code():
    text = (Path(__file__).resolve().parents[2] / "docs" / "backoffice.md").read_text()
    rows = {
        match.group(1): set(re.findall(r"`([a-z_]+\.[a-z_]+)`", match.group(2)))
        for match in re.finditer(r"^\| `([a-z]+)` \| [^|]+ \| (.+) \|$", text, re.MULTILINE)
    }
    for role, permissions in ROLES.items():
        if role == "admin":
            assert rows[role] == {
                "platform.change_player_profile",
                "platform.propose_staff_change",
                "platform.approve_staff_change",
            }
            held = Group.objects.get(name="admin").permissions
            for name in rows[role]:
                assert held.filter(codename=name.split(".")[1]).exists(), name
        else:
            assert rows[role] == set(permissions), role
