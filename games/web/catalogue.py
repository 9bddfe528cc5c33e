"""The hosted page's JavaScript catalogue (docs/play.md "Languages"): Django's JavaScript
catalogue of the djangojs domain for one language, and only the project's own (locale/), so
the page's first load carries the strings it shows and nothing of the admin's. Rendered once
per language and process: it changes only with a release, so its URL carries a hash of its
content and browsers keep it for a year."""

from __future__ import annotations

import gzip
import hashlib
import json
from functools import lru_cache
from typing import Any

from django.conf import settings
from django.http import HttpResponse
from django.template import Context, Engine
from django.utils import translation
from django.utils.translation.trans_real import DjangoTranslation
from django.views.i18n import JavaScriptCatalog, builtin_template_path

DOMAIN = "djangojs"


class PageCatalogue(JavaScriptCatalog):
    """Django's catalogue script, smaller: compact JSON (Django indents it), and without
    Django's date and number formats (the page formats through Intl, i18n.js)."""

    def render_to_response(self, context: dict[str, Any], **response_kwargs: Any) -> HttpResponse:
        with builtin_template_path("i18n_catalog.js").open(encoding="utf-8") as file:
            template = Engine().from_string(file.read())
        catalog = context["catalog"]
        context["catalog_str"] = (
            json.dumps(catalog, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            if catalog
            else None
        )
        context["formats_str"] = "{}"
        return HttpResponse(template.render(Context(context)), "text/javascript; charset=utf-8")


@lru_cache(maxsize=16)
def catalogue_script(language: str) -> bytes:
    """The classic script that sets ``globalThis.django`` (gettext, ngettext, pgettext)."""
    view = PageCatalogue(domain=DOMAIN)
    with translation.override(language):
        # The project's LOCALE_PATHS only: no installed app's catalogue (the admin's).
        locale_paths = [str(path) for path in settings.LOCALE_PATHS]
        view.translation = DjangoTranslation(language, domain=DOMAIN, localedirs=locale_paths)
        response = view.render_to_response(view.get_context_data())
    return response.content


@lru_cache(maxsize=16)
def compressed_catalogue_script(language: str) -> bytes:
    """The script gzipped once, for the browsers that accept it (every one)."""
    return gzip.compress(catalogue_script(language), mtime=0)


def catalogue_version(language: str) -> str:
    """A short hash of the script: a new release's catalogue gets a new URL."""
    return hashlib.sha256(catalogue_script(language)).hexdigest()[:12]
