"""The Redoc page (``/api/v1/redoc/``), which loads nothing from another host.

drf-spectacular-sidecar ships Redoc's standalone bundle, and the app serves it, but the bundle
itself hard-codes one asset of Redocly's CDN: the logo of the "API docs by Redocly" line
under the side menu (``https://cdn.redoc.ly/redoc/logo-mini.svg``), an ``<img>`` no HTML
reference shows and no Redoc option turns off. Hiding it with CSS would not stop the request,
and a Content-Security-Policy alone would block it with a violation in the console. So the
page's script is the sidecar's bundle with that address emptied (``redoc_bundle``), served
from ``/api/v1/redoc/redoc.standalone.js``: an ``<img>`` with an empty ``src`` asks for
nothing, fails at once, and Redoc then leaves the logo out (its own ``onError``); the line's
text and link stay. The page also carries a Content-Security-Policy that lets it load from
this host only, should a later bundle name another asset.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from django.contrib.staticfiles import finders
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.http import condition
from drf_spectacular.views import SpectacularRedocView

REDOC_BUNDLE = "drf_spectacular_sidecar/redoc/bundles/redoc.standalone.js"
# Assets of other hosts the bundle itself would load, and what each becomes.
OTHER_HOST_ASSETS = {b"https://cdn.redoc.ly/redoc/logo-mini.svg": b""}
# Redoc styles itself with <style> elements (styled-components) and runs its search in a
# worker made from a blob: URL; everything else comes from this host.
REDOC_CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",
        "worker-src 'self' blob:",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    ]
)


@functools.cache
def redoc_bundle() -> tuple[bytes, str]:
    """The sidecar's Redoc bundle with ``OTHER_HOST_ASSETS`` replaced, and its ETag. Read
    once per process (about 1 MB)."""
    path = finders.find(REDOC_BUNDLE)
    if not isinstance(path, str):
        raise FileNotFoundError(f"{REDOC_BUNDLE} (is drf-spectacular-sidecar installed?)")
    content = Path(path).read_bytes()
    for address, replacement in OTHER_HOST_ASSETS.items():
        content = content.replace(address, replacement)
    return content, '"' + hashlib.sha256(content).hexdigest()[:32] + '"'


def _bundle_etag(request: HttpRequest) -> str:
    return redoc_bundle()[1]


@method_decorator(condition(etag_func=_bundle_etag), name="get")
class RedocBundleView(View):
    """``GET /api/v1/redoc/redoc.standalone.js``: ``redoc_bundle``, cached by browsers."""

    http_method_names = ["get", "head"]

    def get(self, request: HttpRequest) -> HttpResponse:
        response = HttpResponse(redoc_bundle()[0], content_type="text/javascript; charset=utf-8")
        response["Cache-Control"] = "public, max-age=3600"
        return response


class RedocView(SpectacularRedocView):
    """drf-spectacular's Redoc page on ``redoc_bundle``, with its Content-Security-Policy."""

    @staticmethod
    def _redoc_standalone() -> str:
        return reverse("redoc-bundle")

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        response["Content-Security-Policy"] = REDOC_CONTENT_SECURITY_POLICY
        return response
