"""The platform's app configs: its own, and the admin's with the back office's site."""

from corsheaders.signals import check_request_enabled
from django.apps import AppConfig
from django.contrib.admin.apps import AdminConfig
from django.contrib.auth.signals import user_logged_in

from gin_platform.staff.sessions import session_clocks_start


class PlatformConfig(AppConfig):
    name = "gin_platform"
    label = "platform"
    verbose_name = "Platform"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # These import the models, which load only after this module (INSTALLED_APPS).
        from gin_platform.http import openapi_auth  # noqa: F401, PLC0415 (registers OpenAPI auth extensions; imports the models)
        from gin_platform.http.cors import allow_registered_origin  # noqa: PLC0415 (models)
        from gin_platform.request_path.remembered_credentials import (  # noqa: PLC0415 (models)
            connect_signals,
        )

        # CORS for the origins the operators registered (gin_platform/http/cors.py).
        check_request_enabled.connect(
            allow_registered_origin, dispatch_uid="gin_platform.http.cors"
        )
        # A new epoch for the credentials the web processes remember, at every change of
        # an operator, a key, a player or a session
        # (gin_platform/request_path/remembered_credentials.py).
        connect_signals()
        # Staff sessions' idle and lifetime clocks start at the login
        # (gin_platform/staff/sessions.py).
        user_logged_in.connect(
            session_clocks_start, dispatch_uid="gin_platform.staff.sessions.login"
        )


class StaffAdminConfig(AdminConfig):
    """The admin app with the back office's site as its default
    (gin_platform/staff/admin_site.py): every ``admin.register`` lands on the site that asks
    money-moving roles for a TOTP code."""

    default_site = "gin_platform.staff.admin_site.StaffAdminSite"
