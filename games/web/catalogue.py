"""The hosted page's JavaScript catalogue (docs/play.md "Languages"): Django's JavaScript
catalogue of the djangojs domain for one language, and only the project's own (locale/), so
the page's first load carries the strings it shows and nothing of the admin's. Rendered once
per language and process: it changes only with a release, so its URL carries a hash of its
content and browsers keep it for a year."""

from __future__ import annotations

import hashlib
from functools import lru_cache

from django.utils import translation
from django.utils.translation.trans_real import DjangoTranslation
from django.views.i18n import JavaScriptCatalog

DOMAIN = "djangojs"


@lru_cache(maxsize=16)
def catalogue_script(language: str) -> bytes:
    """The classic script that sets ``globalThis.django`` (gettext, ngettext, pgettext)."""
    view = JavaScriptCatalog(domain=DOMAIN)
    with translation.override(language):
        # An empty list of directories: the project's LOCALE_PATHS only, no app's catalogue.
        view.translation = DjangoTranslation(language, domain=DOMAIN, localedirs=[])
        response = view.render_to_response(view.get_context_data())
    return response.content


def catalogue_version(language: str) -> str:
    """A short hash of the script: a new release's catalogue gets a new URL."""
    return hashlib.sha256(catalogue_script(language)).hexdigest()[:12]
