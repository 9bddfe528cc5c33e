"""The hosted table page (docs/play.md): one HTML shell; everything else is the page's own
ES modules under games/static/games/play/, talking to the player API and the socket.

The page holds a player's session token, so it is served with a strict Content-Security-
Policy: scripts, styles and images from this origin only (no inline script or style, no
``eval``), network requests to this origin and its WebSocket endpoints only, never framed.
The launch token arrives in the URL fragment (``/play/#launch=glt_...``), which browsers
never send to a server; the page exchanges it at once and drops it from the address bar.

The page speaks the player's language (docs/play.md "Languages"): ``?lang=`` (the launch URL
carries the one the operator asked for), else the browser's ``Accept-Language``, else English.
Its strings come from Django's catalogues: the template's from the django domain, the
modules' from the djangojs domain, served by ``PageCatalogueView`` before the modules load.
"""

from __future__ import annotations

import re
from functools import cache

from django.contrib.staticfiles import finders
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.template.response import TemplateResponse
from django.templatetags.static import static
from django.urls import reverse
from django.utils import translation
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.cache import never_cache

from games.web.catalogue import (
    catalogue_script,
    catalogue_version,
    compressed_catalogue_script,
)
from gin_platform.i18n.languages import available_languages, chosen_language, language_names

# A catalogue asked for at its current version is kept for a year; an old version's URL
# answers the current script for an hour (a page of the previous release still loading).
CATALOGUE_MAX_AGE = 365 * 24 * 3600
STALE_CATALOGUE_MAX_AGE = 3600
ACCEPTS_GZIP = re.compile(r"\bgzip\b")

# The page's colours (play.css): the header's felt, and the page's background.
THEME_COLOUR = "#174a31"
BACKGROUND_COLOUR = "#eef1ee"
ICON_MAX_AGE = 24 * 3600  # the icon and the manifest change with a release, rarely


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


def catalogue_url(language: str) -> str:
    path = reverse("play-catalogue", kwargs={"language": language})
    return f"{path}?v={catalogue_version(language)}"


@method_decorator(never_cache, name="dispatch")
class PlayPageView(View):
    """``GET /play/``: the table page. No data in it: the page reads the API itself."""

    http_method_names = ["get", "head"]
    template_name = "games/play.html"

    def get(self, request: HttpRequest) -> HttpResponse:
        language = chosen_language(
            requested=request.GET.get("lang"),
            accept_language=request.headers.get("Accept-Language"),
        )
        context = {
            "language": language,
            "catalogue_url": catalogue_url(language),
            "languages": language_names(),
        }
        with translation.override(language):
            response = TemplateResponse(request, self.template_name, context)
            response.render()
        response["Content-Language"] = language
        patch_vary_headers(response, ["Accept-Language"])
        response["Content-Security-Policy"] = content_security_policy(request)
        # The page's links (the operator's return URL) never carry this address along.
        response["Referrer-Policy"] = "no-referrer"
        return response


class HistoryPageView(PlayPageView):
    """``GET /play/history``: the player's last 12 months (docs/play.md "History"), with the
    table page's session (sessionStorage of the same tab) and the same policy."""

    template_name = "games/history.html"


class ManifestView(View):
    """``GET /play/manifest.webmanifest``: the web app manifest, so a phone can put the page
    on its home screen (it opens ``/play/`` standalone, in the page's colours)."""

    http_method_names = ["get", "head"]

    def get(self, request: HttpRequest) -> HttpResponse:
        manifest = {
            "id": "/play/",
            "name": "Gin Rummy",
            "short_name": "Gin Rummy",
            "start_url": "/play/",
            "scope": "/play/",
            "display": "standalone",
            "theme_color": THEME_COLOUR,
            "background_color": BACKGROUND_COLOUR,
            "icons": [
                {"src": static("games/play/icon.svg"), "sizes": "any", "type": "image/svg+xml"},
                {"src": static("games/play/icon-192.png"), "sizes": "192x192", "type": "image/png"},
                {"src": static("games/play/icon-512.png"), "sizes": "512x512", "type": "image/png"},
            ],
        }
        response = JsonResponse(manifest, content_type="application/manifest+json")
        patch_cache_control(response, public=True, max_age=ICON_MAX_AGE)
        return response


@cache
def _favicon() -> bytes:
    found = finders.find("games/play/favicon.ico")
    assert isinstance(found, str), "games/play/favicon.ico is one of the app's static files"
    with open(found, "rb") as icon:
        return icon.read()


class FaviconView(View):
    """``GET /favicon.ico``: browsers ask for it on every page that names no icon (the API
    docs, a problem page, an image opened on its own); without it, a 404 in the console."""

    http_method_names = ["get", "head"]

    def get(self, request: HttpRequest) -> HttpResponse:
        response = HttpResponse(_favicon(), content_type="image/vnd.microsoft.icon")
        patch_cache_control(response, public=True, max_age=ICON_MAX_AGE)
        return response


class PageCatalogueView(View):
    """``GET /play/jsi18n/<language>.js``: the page's JavaScript catalogue in one language
    (a shipped one, or the pseudo-locale where it is allowed), a classic script."""

    http_method_names = ["get", "head"]

    def get(self, request: HttpRequest, language: str) -> HttpResponse:
        if language not in available_languages():
            raise Http404("no catalogue in this language")
        # Compressed as the static files are (settings' STORAGES): the script is the same
        # for everybody, so gzip gives nothing away (no secret beside a reflected input).
        compressed = ACCEPTS_GZIP.search(request.headers.get("Accept-Encoding", ""))
        response = HttpResponse(
            compressed_catalogue_script(language) if compressed else catalogue_script(language),
            content_type="text/javascript; charset=utf-8",
        )
        if compressed:
            response["Content-Encoding"] = "gzip"
        patch_vary_headers(response, ["Accept-Encoding"])
        current = request.GET.get("v") == catalogue_version(language)
        max_age = CATALOGUE_MAX_AGE if current else STALE_CATALOGUE_MAX_AGE
        response["Cache-Control"] = f"public, max-age={max_age}" + (
            ", immutable" if current else ""
        )
        response["X-Content-Type-Options"] = "nosniff"
        return response
