"""The back office's staff pages (docs/backoffice.md "Staff access"): staff users, roles,
TOTP devices and the access change requests. All of it is for unscoped staff only; a user's
access (flags, roles, permissions, operator scope) changes only through a request that
another staff member approves (gin_platform/staff/access.py), never in one person's hands."""

from typing import TYPE_CHECKING, Any

import axes.admin  # noqa: F401  (registers its pages; re-registered audited below)
from django import forms
from django.contrib import admin, messages
from django.contrib.admin.widgets import FilteredSelectMultiple
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group, Permission, User
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django_otp.plugins.otp_totp.admin import TOTPDeviceAdmin
from django_otp.plugins.otp_totp.models import TOTPDevice

from gin_platform.admin.audited import AuditedModelAdmin
from gin_platform.http.problems import Problem
from gin_platform.models import Operator, StaffChangeRequest, StaffOperatorScope
from gin_platform.staff.access import (
    ACCESS_FIELDS,
    APPROVE,
    FLAGS,
    PROPOSE,
    may_decide,
    may_propose,
    staff_access_changes,
    staff_change_approve,
    staff_change_propose,
    staff_change_reject,
)
from gin_platform.staff.scope import unscoped

if TYPE_CHECKING:
    from django.contrib.admin.options import BaseModelAdmin

    # What the mixin is put before: a model admin or an inline, whose permissions it narrows.
    AdminPermissions = BaseModelAdmin[Any]
else:
    AdminPermissions = object


# --- Staff users, roles, second factors (docs/backoffice.md "Staff access") ---------------
class StaffAdministration(AdminPermissions):
    """Staff administration (users, roles, operator scope, second factors, access change
    requests) is for unscoped staff only: a staff user limited to some operators neither
    sees nor changes any of it, whatever their role (a mixin, first in the bases)."""

    def has_module_permission(self, request) -> bool:
        return unscoped(request.user) and super().has_module_permission(request)

    def has_view_permission(self, request, obj=None) -> bool:
        return unscoped(request.user) and super().has_view_permission(request, obj)

    def has_add_permission(self, request, *args) -> bool:
        return unscoped(request.user) and super().has_add_permission(request, *args)

    def has_change_permission(self, request, obj=None) -> bool:
        return unscoped(request.user) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None) -> bool:
        return unscoped(request.user) and super().has_delete_permission(request, obj)


class StaffOperatorScopeInline(StaffAdministration, admin.TabularInline):
    """The operators a staff user is limited to (none: every operator), read only: the
    scope changes through an access change request (four eyes)."""

    model = StaffOperatorScope
    extra = 0
    can_delete = False
    fields = readonly_fields = ("operator",)
    verbose_name = "operator scope"
    verbose_name_plural = "operator scope (no row: every operator; changes through a request)"

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


admin.site.unregister(User)
admin.site.unregister(Group)
admin.site.unregister(TOTPDevice)

# A user's access: changed only by an executed StaffChangeRequest (gin_platform/staff/access.py).
USER_ACCESS_FIELDS = ("is_active", "is_staff", "is_superuser", "groups", "user_permissions")


@admin.register(User)
class StaffUserAdmin(StaffAdministration, AuditedModelAdmin, UserAdmin):
    """Staff users. Their access (flags, roles, permissions, operator scope) is read only
    here and changes through a request another staff member approves; nobody changes their
    own user here (it opens read only); users are deactivated, never deleted. Every change
    (and a password set) is audited."""

    inlines = (StaffOperatorScopeInline,)
    fieldsets = (
        (None, {"fields": ("username", "password")}),
        ("Personal info", {"fields": ("first_name", "last_name", "email")}),
        (
            "Access (changes through a request: four eyes)",
            {"fields": ("access_change", *USER_ACCESS_FIELDS)},
        ),
        ("Important dates", {"fields": ("last_login", "date_joined")}),
    )

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return ()  # the add form: a username and a password, no access yet
        return ("access_change", *USER_ACCESS_FIELDS, "last_login", "date_joined")

    def has_change_permission(self, request, obj=None) -> bool:
        if obj is not None and obj.pk == request.user.pk:
            return False  # one's own user: through a request, never by oneself
        return super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # audit rows and requests name staff users: deactivate instead

    @admin.display(description="change access")
    def access_change(self, obj: User) -> str:
        pending = StaffChangeRequest.objects.filter(
            user=obj, status=StaffChangeRequest.Status.PENDING
        ).values_list("pk", flat=True)
        link = format_html(
            '<a href="{}?user={}">Propose an access change</a>',
            reverse("admin:platform_staffchangerequest_add"),
            obj.pk,
        )
        if not pending:
            return link
        return format_html("{} (pending: {})", link, ", ".join(f"#{pk}" for pk in pending))

    def user_change_password(self, request, id, form_url=""):
        response = super().user_change_password(request, id, form_url)
        if request.method == "POST" and response.status_code == 302:
            user = self.get_object(request, id)
            self._audit(request, "password", user, None, {"password": "[changed]"})
        return response


@admin.register(Group)
class RoleAdmin(StaffAdministration, AuditedModelAdmin, GroupAdmin):
    """Roles: support, finance, risk, admin (gin_platform/staff/roles.py ``ROLES``, made by the
    migrations), read only: what a role holds changes with the code and its migration,
    never in the admin. Users get roles through an access change request."""

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(TOTPDevice)
class StaffTOTPDeviceAdmin(StaffAdministration, AuditedModelAdmin, TOTPDeviceAdmin):
    """Staff TOTP devices (``manage.py staff_otp_enrol`` creates them); the key is never
    written to the audit log."""


class StaffChangeForm(forms.ModelForm):
    """A proposed access of one user (``?user=<id>``, fixed): the form starts from what the
    user has now; what differs becomes the request."""

    is_active = forms.BooleanField(required=False)
    is_staff = forms.BooleanField(required=False, label="Staff (may log in to the back office)")
    is_superuser = forms.BooleanField(required=False, label="Superuser (every permission)")
    groups = forms.ModelMultipleChoiceField(
        Group.objects.order_by("name"),
        required=False,
        to_field_name="name",
        label="Roles",
        widget=FilteredSelectMultiple("roles", is_stacked=False),
    )
    user_permissions = forms.ModelMultipleChoiceField(
        Permission.objects.select_related("content_type").order_by(
            "content_type__app_label", "codename"
        ),
        required=False,
        widget=FilteredSelectMultiple("permissions", is_stacked=False),
    )
    operator_scope = forms.ModelMultipleChoiceField(
        Operator.objects.order_by("name"),
        required=False,
        help_text="None chosen: every operator.",
        widget=FilteredSelectMultiple("operators", is_stacked=False),
    )

    class Meta:
        model = StaffChangeRequest
        fields = ("user", "reason")

    subject_id: str | None = None  # ?user=, set by the admin per request

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["user"].disabled = True  # the request's user comes from ?user= only
        self.initial.setdefault("user", self.subject_id)

    def access(self) -> dict:
        data = self.cleaned_data
        return {
            **{name: bool(data.get(name)) for name in FLAGS},
            "groups": [g.name for g in data.get("groups") or ()],
            "user_permissions": [
                f"{p.content_type.app_label}.{p.codename}"
                for p in data.get("user_permissions") or ()
            ],
            "operator_scope": [str(o.pk) for o in data.get("operator_scope") or ()],
        }

    def clean(self):
        data = super().clean()
        user = data.get("user")
        if user is not None and not self.errors:
            try:
                changes = staff_access_changes(user=user, access=self.access())
            except Problem as problem:
                raise ValidationError(problem.detail) from problem
            if not changes:
                raise ValidationError("This changes nothing of the user's access.")
        return data


@admin.register(StaffChangeRequest)
class StaffChangeRequestAdmin(StaffAdministration, AuditedModelAdmin):
    """Access change requests (four eyes, gin_platform/staff/access.py): proposed from a
    user's page ("Propose an access change"), approved or rejected here by another
    unscoped staff member, through the services (which audit every step)."""

    list_display = (
        "id",
        "user",
        "status",
        "fields_changed",
        "reason",
        "proposed_by",
        "proposed_at",
        "decided_by",
        "decided_at",
    )
    list_filter = ("status",)
    list_select_related = ("user", "proposed_by", "decided_by")
    search_fields = ("user__username", "proposed_by__username")
    actions = ("approve_selected", "reject_selected")
    readonly_fields = (
        "user",
        "status",
        "changes_proposed",
        "reason",
        "proposed_by",
        "proposed_at",
        "decided_by",
        "decided_at",
        "decision_note",
    )
    fields = readonly_fields

    def has_view_permission(self, request, obj=None) -> bool:
        user = request.user
        return super().has_view_permission(request, obj) or (
            unscoped(user) and (user.has_perm(PROPOSE) or user.has_perm(APPROVE))
        )

    def has_module_permission(self, request) -> bool:
        return self.has_view_permission(request)

    def has_add_permission(self, request) -> bool:
        return unscoped(request.user) and may_propose(user=request.user)

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def has_decide_permission(self, request) -> bool:
        return may_decide(user=request.user)

    @admin.display(description="changes")
    def fields_changed(self, obj: StaffChangeRequest) -> str:
        return ", ".join(obj.changes)

    @admin.display(description="changes (before -> after)")
    def changes_proposed(self, obj: StaffChangeRequest) -> str:
        return describe_changes(obj.changes)

    # --- proposing -------------------------------------------------------------------------
    def add_view(self, request, form_url="", extra_context=None):
        if not User.objects.filter(pk=request.GET.get("user") or None).exists():
            self.message_user(
                request,
                "Open the staff user's page and follow 'Propose an access change'.",
                messages.INFO,
            )
            return HttpResponseRedirect(reverse("admin:auth_user_changelist"))
        return super().add_view(request, form_url, extra_context)

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is None:
            kwargs["form"] = StaffChangeForm
        form = super().get_form(request, obj, change, **kwargs)
        if obj is None:
            form = type(form.__name__, (form,), {"subject_id": request.GET.get("user")})
        return form

    def get_fields(self, request, obj=None):
        if obj is None:
            return ("user", *ACCESS_FIELDS, "reason")
        return self.fields

    def get_readonly_fields(self, request, obj=None):
        return () if obj is None else self.readonly_fields

    def get_changeform_initial_data(self, request):
        subject = User.objects.get(pk=request.GET["user"])
        scope = StaffOperatorScope.objects.filter(user=subject)
        return {
            "user": subject.pk,
            **{name: getattr(subject, name) for name in FLAGS},
            "groups": list(subject.groups.values_list("name", flat=True)),
            "user_permissions": list(subject.user_permissions.values_list("pk", flat=True)),
            "operator_scope": list(scope.values_list("operator_id", flat=True)),
        }

    def save_model(self, request, obj, form, change) -> None:
        if change:  # never from the admin's pages (requests are not edited)
            super().save_model(request, obj, form, change)
            return
        try:
            proposed = staff_change_propose(
                user=request.user,
                subject=form.cleaned_data["user"],
                access=form.access(),
                reason=form.cleaned_data["reason"],
            )
        except Problem as problem:
            raise PermissionDenied(problem.detail) from problem
        for field in StaffChangeRequest._meta.concrete_fields:
            setattr(obj, field.attname, getattr(proposed, field.attname))

    def save_related(self, request, form, formsets, change) -> None:
        pass  # the service recorded (and audited) everything

    def response_add(self, request, obj, post_url_continue=None):
        self.message_user(
            request,
            f"Access change #{obj.pk} proposed: another staff member must approve it.",
            messages.SUCCESS,
        )
        return HttpResponseRedirect(reverse("admin:platform_staffchangerequest_changelist"))

    # --- deciding --------------------------------------------------------------------------
    def _decide(self, request, queryset, decide, verb: str) -> None:
        done = 0
        for change in queryset.order_by("pk"):
            try:
                decide(change=change, user=request.user)
                done += 1
            except Problem as problem:
                self.message_user(request, f"#{change.pk}: {problem.detail}", messages.ERROR)
        if done:
            self.message_user(request, f"{done} request(s) {verb}", messages.SUCCESS)

    @admin.action(description="Approve and execute the selected requests", permissions=["decide"])
    def approve_selected(self, request, queryset) -> None:
        self._decide(request, queryset, staff_change_approve, "approved and executed")

    @admin.action(description="Reject the selected requests", permissions=["decide"])
    def reject_selected(self, request, queryset) -> None:
        self._decide(request, queryset, staff_change_reject, "rejected")


def describe_changes(changes: dict) -> str:
    """A request's changes as lines "field: before -> after" (operators by name)."""
    names = {
        str(pk): name
        for pk, name in Operator.objects.filter(
            pk__in=[pk for pair in changes.get("operator_scope", ()) for pk in pair]
        ).values_list("pk", "name")
    }

    def shown(name: str, value) -> str:
        if isinstance(value, list):
            if name == "operator_scope":
                operator_ids: list[str] = value  # as the request stored them (JSON)
                return ", ".join(names.get(v, v) for v in operator_ids) or "(every operator)"
            return ", ".join(value) or "(none)"
        return str(value)

    return format_html(
        "<ul>{}</ul>",
        format_html_join(
            "",
            "<li>{}: {} &rarr; {}</li>",
            (
                (name, shown(name, before), shown(name, after))
                for name, (before, after) in changes.items()
            ),
        ),
    )


# django-axes' pages (lockouts; deleting an attempt lifts a lockout): audited too. Imported
# here so that its registration happens first, whatever the order of INSTALLED_APPS.
def _audited_again(module) -> None:
    for model, model_admin in list(admin.site._registry.items()):
        if model.__module__.startswith(module) and not isinstance(model_admin, AuditedModelAdmin):
            audited = type(
                f"Audited{type(model_admin).__name__}", (AuditedModelAdmin, type(model_admin)), {}
            )
            admin.site.unregister(model)
            admin.site.register(model, audited)


_audited_again("axes.")
