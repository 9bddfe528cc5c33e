"""Staff sessions' clocks: an admin session ends after STAFF_SESSION_IDLE_SECONDS without
a request or STAFF_SESSION_MAX_SECONDS after its login (docs/backoffice.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.auth import SESSION_KEY, logout
from django.utils import timezone

if TYPE_CHECKING:
    pass


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
