"""The catalogues under locale/ (docs/play.md "Languages"): up to date with the code's msgids,
each .mo compiled from its .po byte for byte, the pseudo-locale made of the English msgids,
and ``manage.py messages`` keeping translations while it adds and drops msgids."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from django.core.management import CommandError, call_command

from gin_platform.i18n import catalogues
from gin_platform.i18n.catalogues import (
    DOMAINS,
    catalogue_path,
    extracted_catalogue,
    mo_bytes,
    po_text,
    update_catalogues,
    updated_catalogue,
)
from gin_platform.i18n.languages import PSEUDO_LANGUAGE
from gin_platform.i18n.pseudo import pseudo_translate

LOCALE = Path(__file__).resolve().parents[2] / "locale"


def committed_catalogues() -> list[Path]:
    return sorted(LOCALE.glob("*/LC_MESSAGES/*.po"))


def test_every_shipped_language_and_the_pseudo_locale_have_both_domains(settings):
    expected = {
        f"{language}/LC_MESSAGES/{domain}.po"
        for language in ("es", "it", "de", "fr", "pt", "en_XA")
        for domain in DOMAINS
    }
    assert {path.relative_to(LOCALE).as_posix() for path in committed_catalogues()} == expected
    assert [code for code, _ in settings.LANGUAGES] == ["en", "es", "it", "de", "fr", "pt"]


def test_the_catalogues_are_up_to_date_with_the_code():
    """A msgid added to (or dropped from) the code without `make messages` fails here."""
    stale = [
        f"{change.path.relative_to(LOCALE)}: {change.reason}"
        for change in update_catalogues(check=True)
    ]
    assert stale == [], 'run `make messages` (docs/play.md "Languages")'


@pytest.mark.parametrize(
    "po", committed_catalogues(), ids=lambda path: str(path.relative_to(LOCALE))
)
def test_each_mo_is_its_po_compiled(po):
    language = po.parent.parent.name.replace("_", "-")
    assert po.with_suffix(".mo").read_bytes() == mo_bytes(po.read_bytes(), language=language)


def test_the_command_fails_its_check_when_a_catalogue_is_stale(tmp_path, settings, capsys):
    settings.LOCALE_PATHS = [tmp_path]
    with pytest.raises(CommandError, match="make messages"):
        call_command("messages", "--check")
    assert not list(tmp_path.iterdir())
    call_command("messages")
    call_command("messages", "--check")
    assert "up to date" in capsys.readouterr().out


def test_an_update_keeps_translations_and_adds_new_msgids_empty(tmp_path, settings):
    settings.LOCALE_PATHS = [tmp_path]
    template = extracted_catalogue("django")
    first = updated_catalogue(language="es", domain="django", template=template)
    ids = [message.id for message in first if message.id]
    kept = ids[0]
    first[kept].string = "traducción guardada"
    path = catalogue_path(language="es", domain="django")
    path.parent.mkdir(parents=True)
    path.write_bytes(po_text(first))
    template.add("A msgid the code just gained")
    second = updated_catalogue(language="es", domain="django", template=template)
    assert second[kept].string == "traducción guardada"
    assert not second["A msgid the code just gained"].string
    assert not second["A msgid the code just gained"].fuzzy
    template.delete("A msgid the code just gained")
    third = read_po(
        io.BytesIO(po_text(updated_catalogue(language="es", domain="django", template=template)))
    )
    assert "A msgid the code just gained" not in third


def test_the_pseudo_locale_brackets_accents_and_lengthens_keeping_placeholders():
    text = pseudo_translate("%(who)s discarded %(card)s")
    assert text.startswith("[") and text.endswith("]")
    assert "%(who)s" in text and "%(card)s" in text
    assert "discarded" not in text
    assert len(text.replace("%(who)s", "").replace("%(card)s", "")) >= 1.3 * len(" discarded ")
    assert pseudo_translate("Your turn").startswith("[Ýóúŕ ţúŕñ")
    assert len(pseudo_translate("Draw the top card of the discard pile")) >= 1.3 * 37
    assert pseudo_translate("100%%").count("%%") == 1


def test_the_pseudo_catalogue_translates_every_msgid():
    for domain in DOMAINS:
        with catalogue_path(language=PSEUDO_LANGUAGE, domain=domain).open("rb") as file:
            pseudo = read_po(file)
        template = extracted_catalogue(domain)
        assert {m.id if isinstance(m.id, str) else tuple(m.id) for m in pseudo if m.id} == {
            m.id if isinstance(m.id, str) else tuple(m.id) for m in template if m.id
        }
        assert all(m.string for m in pseudo if m.id)


def test_the_catalogues_are_found_where_settings_say(settings):
    assert catalogues.locale_root() == LOCALE == Path(settings.LOCALE_PATHS[0])


PLACEHOLDER = re.compile(r"%\(\w+\)s")


def shipped_catalogues() -> list[Path]:
    return [path for path in committed_catalogues() if not path.parent.parent.name.startswith("en")]


@pytest.mark.parametrize("po", shipped_catalogues(), ids=lambda path: str(path.relative_to(LOCALE)))
def test_every_msgid_is_translated_with_its_placeholders(po):
    """In every shipped language: each msgid has a msgstr (every plural form), none fuzzy,
    with exactly the msgid's placeholders (a lost %(who)s shows nobody; an invented one
    shows the placeholder itself)."""
    with po.open("rb") as file:
        catalogue = read_po(file)
    problems = []
    for message in catalogue:
        if not message.id:
            continue
        ids = [message.id] if isinstance(message.id, str) else list(message.id)
        strings = [message.string] if isinstance(message.string, str) else list(message.string)
        # A plural form has the singular's placeholders or the plural's.
        wanted = {frozenset(PLACEHOLDER.findall(text)) for text in ids}
        if message.fuzzy:
            problems.append(f"fuzzy: {ids[0]!r}")
        if len(strings) != (1 if isinstance(message.id, str) else catalogue.num_plurals):
            problems.append(f"plural forms: {ids[0]!r}")
        for string in strings:
            if not string:
                problems.append(f"untranslated: {ids[0]!r}")
            elif frozenset(PLACEHOLDER.findall(string)) not in wanted | {
                frozenset(PLACEHOLDER.findall(ids[-1]))
            }:
                problems.append(f"placeholders: {ids[0]!r} -> {string!r}")
    assert problems == []
