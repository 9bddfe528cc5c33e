"""The back office's admin site: a TOTP step at login for the roles that move money.

Installed as the default admin site (``StaffAdminConfig`` in gin_platform/apps.py, in
INSTALLED_APPS), so every ``admin.register`` lands here. It lives outside the
``gin_platform.admin`` package on purpose: Django imports the default site lazily, at the
first registration, and importing that package registers pages.

Staff whose roles need a second factor (finance, admin, superusers:
gin_platform/staff/roles.py) type the current code of their authenticator app with their
password; the others log in with the password alone. A wrong code counts as a failed
login for django-axes, like a wrong password, and concurrent logins from one address are
checked only within the failures it has left (docs/backoffice.md "Lockout").
"""

from __future__ import annotations

from django import forms
from django.contrib.admin import AdminSite
from django.contrib.admin.forms import AdminAuthenticationForm
from django_otp import devices_for_user
from django_otp.forms import OTPAuthenticationFormMixin

from gin_platform.http.problems import LoginLockedOutProblem, ThrottledProblem
from gin_platform.staff.login_attempts import staff_secret_check
from gin_platform.staff.otp import otp_failed
from gin_platform.staff.roles import otp_required


class StaffAdminAuthenticationForm(OTPAuthenticationFormMixin, AdminAuthenticationForm):
    """Username, password and, for the roles that need it, the TOTP code (``otp_token``).
    The user's confirmed TOTP device is used unless the form names one."""

    otp_device = forms.CharField(required=False, widget=forms.HiddenInput)
    otp_token = forms.CharField(
        required=False,
        label="TOTP code (finance, admin)",
        widget=forms.TextInput(attrs={"autocomplete": "one-time-code", "inputmode": "numeric"}),
    )
    otp_challenge = forms.CharField(required=False, widget=forms.HiddenInput)

    def clean(self):
        username = self.cleaned_data.get("username")
        if username is None or not self.cleaned_data.get("password"):
            return super().clean()  # nothing to check: the form asks for both
        try:
            # The password and the code are checked within the failures the address has
            # left, however many logins arrive at once (gin_platform/staff/login_attempts.py).
            with staff_secret_check(self.request, username=username):
                self.cleaned_data = super().clean()
                self.clean_otp(self.get_user())
        except LoginLockedOutProblem:
            # As axes' backend does: its middleware answers 429 /problems/login-locked-out.
            self.request.axes_locked_out = True
            self.request.axes_credentials = {"username": username}
            raise self.get_invalid_login_error() from None
        except ThrottledProblem:
            raise forms.ValidationError(
                "Too many logins from this address at once; try again in a moment.",
                code="busy",
            ) from None
        return self.cleaned_data

    def clean_otp(self, user) -> None:
        if user is None or not otp_required(user):
            return
        try:
            super().clean_otp(user)
        except forms.ValidationError:
            if self.cleaned_data.get("otp_token"):
                otp_failed(self.request, user)  # a wrong code: a failed login (axes)
            raise

    def _chosen_device(self, user):
        device = super()._chosen_device(user)
        if device is None:
            device = next(iter(devices_for_user(user, confirmed=True, for_verify=True)), None)
        return device

    def _update_form(self, user) -> None:
        pass  # one device per user: no device list to offer


class StaffAdminSite(AdminSite):
    login_form = StaffAdminAuthenticationForm
    login_template = "otp/admin111/login.html"

    def has_permission(self, request) -> bool:
        if not super().has_permission(request):
            return False
        if not otp_required(request.user):
            return True
        is_verified = getattr(request.user, "is_verified", None)
        return bool(is_verified and is_verified())
