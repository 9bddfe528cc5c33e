"""The hosted table page (docs/play.md): one HTML shell; everything else is the page's own
ES modules under games/static/games/play/, talking to the player API and the socket.

The page holds a player's session token, so it is served with a strict Content-Security-
Policy: scripts, styles and images from this origin only (no inline script or style, no
``eval``), network requests to this origin and its WebSocket endpoints only, never framed.
The launch token arrives in the URL fragment (``/play/#launch=glt_...``), which browsers
never send to a server; the page exchanges it at once and drops it from the address bar.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.cache import never_cache


def content_security_policy(request: HttpRequest) -> str:
    """The page's policy. ``connect-src`` names this host's ws:// and wss:// origins as well
    as 'self' (older browsers do not count WebSockets as 'self'). The host comes from
    ``request.get_host()``, which Django has checked against ALLOWED_HOSTS."""
    host = request.get_host()
    directives = {
        "default-src": "'none'",
        "script-src": "'self'",
        "style-src": "'self'",
        "img-src": "'self' data:",
        "font-src": "'self'",
        "connect-src": f"'self' ws://{host} wss://{host}",
        "manifest-src": "'self'",
        "base-uri": "'none'",
        "form-action": "'none'",
        "frame-ancestors": "'none'",
    }
    return "; ".join(f"{name} {value}" for name, value in directives.items())


@method_decorator(never_cache, name="dispatch")
class PlayPageView(View):
    """``GET /play/``: the table page. No data in it: the page reads the API itself."""

    http_method_names = ["get", "head"]
    template_name = "games/play.html"

    def get(self, request: HttpRequest) -> HttpResponse:
        response = TemplateResponse(request, self.template_name)
        response["Content-Security-Policy"] = content_security_policy(request)
        # The page's links (the operator's return URL) never carry this address along.
        response["Referrer-Policy"] = "no-referrer"
        return response


class HistoryPageView(PlayPageView):
    """``GET /play/history``: the player's last 12 months (docs/play.md "History"), with the
    table page's session (sessionStorage of the same tab) and the same policy."""

    template_name = "games/history.html"
