"""Every string the hosted page shows comes from the catalogue (docs/play.md "Languages"):
no user-visible string literal in its modules outside i18n.js's gettext, ngettext and
pgettext, no text or visible attribute in its templates outside {% translate %} and
{% blocktranslate %}, and every msgid the modules pass to i18n.js is in the extracted
catalogue (an extractor that missed one would leave it English in every language)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gin_platform.i18n.catalogues import JAVASCRIPT_DOMAIN, extracted_catalogue
from tests.i18n.page_strings import (
    catalogue_arguments,
    untranslated_literals,
    untranslated_template_text,
)

ROOT = Path(__file__).resolve().parents[2]
# The table page's, the tournament page's and the leaderboard page's (docs/play.md
# "Tournaments", "Leaderboards").
MODULES = sorted(
    [
        *(ROOT / "games/static/games/play").glob("*.js"),
        *(ROOT / "tournaments/static/tournaments/play").glob("*.js"),
        *(ROOT / "leaderboards/static/leaderboards/play").glob("*.js"),
    ]
)
TEMPLATES = sorted(
    [
        *(ROOT / "games/templates/games").glob("*.html"),
        *(ROOT / "tournaments/templates/tournaments").glob("*.html"),
        *(ROOT / "leaderboards/templates/leaderboards").glob("*.html"),
    ]
)


def test_the_checks_cover_every_page():
    """The tournament and leaderboard pages' modules and templates are checked like the
    table page's."""
    names = {path.relative_to(ROOT).as_posix() for path in [*MODULES, *TEMPLATES]}
    assert {
        "tournaments/static/tournaments/play/tournaments.js",
        "tournaments/static/tournaments/play/bracket.js",
        "tournaments/templates/tournaments/play.html",
        "leaderboards/static/leaderboards/play/leaderboards.js",
        "leaderboards/templates/leaderboards/play.html",
        "games/static/games/play/app.js",
        "games/templates/games/play.html",
    } <= names


@pytest.mark.parametrize("module", MODULES, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_no_visible_string_of_a_module_is_outside_the_catalogue(module):
    found = [
        f"{module.name}:{literal.line}: {literal.text!r}"
        for literal in untranslated_literals(module.read_text())
    ]
    assert found == [], "wrap these in gettext/ngettext/pgettext (i18n.js)"


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_no_text_of_a_template_is_outside_the_translation_tags(template):
    assert untranslated_template_text(template.read_text()) == []


def test_every_msgid_the_modules_use_is_extracted():
    extracted = set()
    for message in extracted_catalogue(JAVASCRIPT_DOMAIN):
        if message.id:
            extracted.update([message.id] if isinstance(message.id, str) else message.id)
            if message.context:
                extracted.add(message.context)
    missed = [
        f"{module.name}:{literal.line}: {literal.text!r}"
        for module in MODULES
        for literal in catalogue_arguments(module.read_text())
        if literal.text not in extracted
    ]
    assert missed == []


@pytest.mark.parametrize(
    ("source", "flagged"),
    [
        ('h("p", { text: "Your turn" });', ["Your turn"]),
        ("el.title = `${name} holds the card`;", ["x holds the card"]),
        ('showNotice("Saved");', ["Saved"]),
        ('h("p", { text: gettext("Your turn") });', []),
        ('ngettext("%(count)s card", "%(count)s cards", n);', []),
        ('pgettext("the upcard", "Pass");', []),
        ('h("button", { class: "button primary", id: "go" });', []),
        ('$("#main .notice"); el.addEventListener("click", f);', []),
        ('api("me/play-session"); headers["Content-Type"] = "application/json";', []),
        ('if (event.key === "ArrowLeft") return;', []),
        ('const re = /it\'s a regex/g; const t = "Still found";', ["Still found"]),
        ('// "A comment" is not a string\nconst a = "lower";', []),
    ],
)
def test_the_module_check_tells_visible_strings_from_the_rest(source, flagged):
    assert [literal.text for literal in untranslated_literals(source)] == flagged


@pytest.mark.parametrize(
    ("source", "flagged"),
    [
        ('<p>{% translate "Loading" %}</p>', []),
        ("<p>Loading the game</p>", ["Loading the game"]),
        ('<nav aria-label="Page">{{ x }}</nav>', ["<nav aria-label='Page'>"]),
        ("<nav aria-label=\"{% translate 'Page' %}\"></nav>", []),
        ("<dt><kbd>T</kbd> <kbd>?</kbd></dt>", []),
        ("{% blocktranslate %}<kbd>Enter</kbd> or <kbd>Space</kbd>{% endblocktranslate %}", []),
        ('<meta name="description" content="Play Gin Rummy">', ["<meta content='Play Gin Rummy'>"]),
    ],
)
def test_the_template_check_tells_untranslated_text(source, flagged):
    assert untranslated_template_text(source) == flagged
