"""The language of every answer (``MIDDLEWARE``, right after the API's errors): a request
speaks its Accept-Language, else English, until the player token's authentication
activates the player's own language (gin_platform/http/authentication.py); every answer
under the API's paths names it (``Content-Language``, ``Vary: Accept-Language``)."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponseBase
from django.utils import translation
from django.utils.cache import patch_vary_headers

from gin_platform.i18n.languages import request_language

LANGUAGE_PATH_PREFIXES = ("/api/", "/problems/")


class LanguageMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        translation.activate(
            request_language(accept_language=request.META.get("HTTP_ACCEPT_LANGUAGE"))
        )
        response = self.get_response(request)
        if request.path_info.startswith(LANGUAGE_PATH_PREFIXES):
            response.headers.setdefault("Content-Language", translation.get_language())
            patch_vary_headers(response, ("Accept-Language",))
        return response
