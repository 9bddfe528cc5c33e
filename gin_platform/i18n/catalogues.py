"""The message catalogues (docs/play.md "Languages"): msgids extracted from the code, the
``.po`` files of each language kept up to date with them, and the ``.mo`` files compiled from
the ``.po`` files. Pure Python (babel), so no GNU gettext is needed on a new machine.

Two domains, as Django has them: ``django`` (the apps' Python and their templates) and
``djangojs`` (the hosted page's modules, served by Django's JavaScript catalogue). A ``.po``
keeps the translations it has; a new msgid arrives with an empty msgstr, a msgid the code no
longer has is dropped. The pseudo-locale's catalogues are generated whole from the msgids.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po
from django.conf import settings
from django.utils.translation import templatize, to_locale

from gin_platform.i18n.languages import PSEUDO_LANGUAGE, SOURCE_LANGUAGE
from gin_platform.i18n.pseudo import pseudo_translate

DJANGO_DOMAIN = "django"
JAVASCRIPT_DOMAIN = "djangojs"
DOMAINS = (DJANGO_DOMAIN, JAVASCRIPT_DOMAIN)

# The apps whose Python and templates hold the django domain's msgids.
APPS = (
    "gin_platform",
    "games",
    "wallet",
    "settlement",
    "integrity",
    "protection",
    "tournaments",
    "ratings",
    "matchmaking",
    "leaderboards",
)
# The hosted page's modules (the table page's, and the tournament and leaderboard pages'
# beside them): the djangojs domain.
PAGE_SCRIPTS = (
    Path("games/static/games/play"),
    Path("tournaments/static/tournaments/play"),
    Path("leaderboards/static/leaderboards/play"),
)

PYTHON_KEYWORDS = {
    "_": None,
    "gettext": None,
    "gettext_lazy": None,
    "gettext_noop": None,
    "ngettext": (1, 2),
    "ngettext_lazy": (1, 2),
    "pgettext": ((1, "c"), 2),
    "pgettext_lazy": ((1, "c"), 2),
    "npgettext": ((1, "c"), 2, 3),
    "npgettext_lazy": ((1, "c"), 2, 3),
}
# i18n.js's interface (games/static/games/play/i18n.js).
JAVASCRIPT_KEYWORDS = {
    "gettext": None,
    "ngettext": (1, 2),
    "pgettext": ((1, "c"), 2),
}
# A comment starting so, just above a msgid, goes to the translators with it.
COMMENT_TAGS = ("Translators:",)
PROJECT = "Gin Rummy"
PSEUDO_DATE = datetime(2026, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class CatalogueChange:
    """One file the run wrote (or, with ``check``, would write)."""

    path: Path
    reason: str


def repository_root() -> Path:
    return Path(settings.BASE_DIR)


def locale_root() -> Path:
    return Path(settings.LOCALE_PATHS[0])


def translated_languages() -> list[str]:
    """The shipped languages that have catalogues: every one but the source language."""
    return [code for code, _name in settings.LANGUAGES if code != SOURCE_LANGUAGE]


def catalogue_path(*, language: str, domain: str, suffix: str = ".po") -> Path:
    return locale_root() / to_locale(language) / "LC_MESSAGES" / f"{domain}{suffix}"


def python_sources(root: Path) -> Iterator[Path]:
    for app in APPS:
        for path in sorted((root / app).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path


def template_sources(root: Path) -> Iterator[Path]:
    for app in APPS:
        yield from sorted((root / app).rglob("templates/**/*.html"))


def script_sources(root: Path) -> Iterator[Path]:
    for folder in PAGE_SCRIPTS:
        yield from sorted((root / folder).glob("*.js"))


def _add(template: Catalog, found: Iterable[tuple], *, location: str) -> None:
    for lineno, message, comments, context in found:
        template.add(
            message,
            locations=[(location, lineno)],
            auto_comments=comments,
            context=context,
        )


def extracted_catalogue(domain: str, *, root: Path | None = None) -> Catalog:
    """Every msgid the code of ``domain`` has, with where it is and its translators' notes."""
    root = root or repository_root()
    template = Catalog(domain=domain, project=PROJECT, fuzzy=False)
    if domain == JAVASCRIPT_DOMAIN:
        for path in script_sources(root):
            with path.open("rb") as source:
                found = list(
                    extract(
                        "javascript",
                        source,
                        JAVASCRIPT_KEYWORDS,
                        COMMENT_TAGS,
                        # gettext() inside a template literal's ${...} too.
                        options={"parse_template_string": True},
                        strip_comment_tags=True,
                    )
                )
            _add(template, found, location=path.relative_to(root).as_posix())
        return template
    for path in python_sources(root):
        with path.open("rb") as source:
            found = list(
                extract("python", source, PYTHON_KEYWORDS, COMMENT_TAGS, strip_comment_tags=True)
            )
        _add(template, found, location=path.relative_to(root).as_posix())
    for path in template_sources(root):
        # Django's own step for makemessages: a template as Python that calls gettext.
        code = templatize(path.read_text(encoding="utf-8"), origin=str(path))
        as_python = io.BytesIO(code.encode("utf-8"))
        found = list(
            extract("python", as_python, PYTHON_KEYWORDS, COMMENT_TAGS, strip_comment_tags=True)
        )
        _add(template, found, location=path.relative_to(root).as_posix())
    return template


def po_text(catalogue: Catalog) -> bytes:
    """A ``.po`` as the project writes them: sorted by msgid, file names without line numbers
    (a moved line changes nothing), so two branches adding strings rarely conflict."""
    buffer = io.BytesIO()
    write_po(
        buffer, catalogue, width=100, sort_output=True, include_lineno=False, ignore_obsolete=True
    )
    return buffer.getvalue()


def mo_bytes(po: bytes, *, language: str) -> bytes:
    """The ``.mo`` of a ``.po``'s text: what ``compile`` writes, and what a test compares the
    committed ``.mo`` with. Fuzzy and empty entries are left out (the source string shows)."""
    catalogue = read_po(io.BytesIO(po), locale=_babel_locale(language))
    buffer = io.BytesIO()
    write_mo(buffer, catalogue, use_fuzzy=False)
    return buffer.getvalue()


def _babel_locale(language: str) -> str:
    # The pseudo-locale is English to CLDR (plural rules and all).
    return "en" if language == PSEUDO_LANGUAGE else to_locale(language)


def new_catalogue(*, language: str, domain: str) -> Catalog:
    catalogue = Catalog(
        locale=_babel_locale(language),
        domain=domain,
        project=PROJECT,
        version="1",
        header_comment=(
            f'# The {language} catalogue of the {domain} domain (docs/play.md "Languages").\n'
            "# `make messages` adds and drops msgids: translators write the msgstr lines."
        ),
        msgid_bugs_address="",
        last_translator="Gin Rummy translators",
        language_team=language,
        fuzzy=False,
    )
    catalogue.revision_date = catalogue.creation_date
    return catalogue


def updated_catalogue(*, language: str, domain: str, template: Catalog) -> Catalog:
    """The language's ``.po`` with the code's msgids: translations kept, new ones empty."""
    path = catalogue_path(language=language, domain=domain)
    if path.exists():
        with path.open("rb") as existing:
            catalogue = read_po(existing, locale=_babel_locale(language), domain=domain)
    else:
        catalogue = new_catalogue(language=language, domain=domain)
    creation, revision = catalogue.creation_date, catalogue.revision_date
    catalogue.update(template, no_fuzzy_matching=True, update_header_comment=False)
    # The header's dates stay as they were: a run that changes no message changes no file.
    catalogue.creation_date, catalogue.revision_date = creation, revision
    catalogue.fuzzy = False
    return catalogue


def pseudo_catalogue(*, domain: str, template: Catalog) -> Catalog:
    """The pseudo-locale: every msgid bracketed, accented and longer (docs/play.md)."""
    catalogue = new_catalogue(language=PSEUDO_LANGUAGE, domain=domain)
    # Generated whole on every run: fixed dates keep it byte for byte the same.
    catalogue.creation_date = catalogue.revision_date = PSEUDO_DATE
    for message in template:
        if not message.id:
            continue
        if isinstance(message.id, tuple | list):
            string: str | tuple[str, ...] = tuple(pseudo_translate(part) for part in message.id)
        else:
            string = pseudo_translate(message.id)
        catalogue.add(message.id, string, locations=message.locations, context=message.context)
    return catalogue


def _write_if_changed(
    path: Path, content: bytes, *, check: bool, reason: str
) -> list[CatalogueChange]:
    if path.exists() and path.read_bytes() == content:
        return []
    if not check:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    return [CatalogueChange(path=path, reason=reason)]


def update_catalogues(*, check: bool = False, pseudo: bool = True) -> list[CatalogueChange]:
    """Extract, update every language's ``.po`` and compile its ``.mo``: ``make messages``.
    With ``check``, nothing is written: the answer lists what is out of date."""
    changes: list[CatalogueChange] = []
    for domain in DOMAINS:
        template = extracted_catalogue(domain)
        catalogues = {
            language: updated_catalogue(language=language, domain=domain, template=template)
            for language in translated_languages()
        }
        if pseudo:
            catalogues[PSEUDO_LANGUAGE] = pseudo_catalogue(domain=domain, template=template)
        for language, catalogue in catalogues.items():
            po = po_text(catalogue)
            po_path = catalogue_path(language=language, domain=domain)
            changes += _write_if_changed(po_path, po, check=check, reason="messages changed")
            mo_path = catalogue_path(language=language, domain=domain, suffix=".mo")
            changes += _write_if_changed(
                mo_path,
                mo_bytes(po, language=language),
                check=check,
                reason="compiled from its .po",
            )
    return changes
