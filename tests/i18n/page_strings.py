"""The hosted page's strings outside the catalogue: a small tokenizer over its modules and a
parser over its templates (tests/i18n/test_page_strings.py).

A module's string or template literal that reads as words (a letter then a space, or a
capitalised word) is a string the player reads, unless it is an argument of i18n.js
(``gettext``, ``ngettext``, ``pgettext``) or non-visible by construction: a CSS selector or
class list, an id, an attribute name, an event name, an API path, a key of the keyboard."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser

CATALOGUE_CALLS = {"gettext", "ngettext", "pgettext"}
# Calls whose string arguments never reach the page as text.
NON_VISIBLE_CALLS = {
    "$",
    "$$",
    "querySelector",
    "querySelectorAll",
    "closest",
    "matches",
    "getElementById",
    "addEventListener",
    "removeEventListener",
    "dispatchEvent",
    "CustomEvent",
    "add",  # classList.add
    "remove",
    "toggle",
    "contains",
    "getAttribute",
    "removeAttribute",
    "hasAttribute",
    "api",  # an API path
    "debug",  # console.debug/warn/error: the developer's console, not the page
    "warn",
    "error",
    "setItem",
    "getItem",
    "removeItem",
    "Error",  # a programming error, for the console: the page shows problems, never these
}
# Object keys and properties whose values are not text: classes, ids, types, roles, names.
NON_VISIBLE_KEYS = {
    "class",
    "className",
    "id",
    "type",
    "role",
    "name",
    "rel",
    "method",
    "autocomplete",
    "inputmode",
    "href",
    "for",
    "htmlFor",
    "lang",
    "hreflang",
    "screen",
    "key",
    "mode",
    "aria-live",
    "aria-hidden",
    "aria-haspopup",
    "aria-controls",
    "aria-labelledby",
    "aria-describedby",
    "tabindex",
    "currency",
    "style",
    "unit",
    "dateStyle",
    "timeStyle",
    "currencyDisplay",
    "Authorization",
    "Accept",
}
# The keyboard's key names (KeyboardEvent.key), compared with, never shown.
KEY_NAMES = {
    "Enter",
    "Escape",
    "ArrowLeft",
    "ArrowRight",
    "ArrowUp",
    "ArrowDown",
    "Home",
    "End",
    "Tab",
}
WORDS = re.compile(r"[^\W\d_][^\n]*\s|^[A-Z][a-z]+")


@dataclass(frozen=True)
class Literal:
    line: int
    text: str
    exempt: bool


ESCAPE = re.compile(r"\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|.)", re.S)
SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0"}


def unescape(text: str) -> str:
    """A JavaScript string's escapes: ``\\u2014`` is an em dash, ``\\'`` a quote."""

    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        if code.startswith("u{"):
            return chr(int(code[2:-1], 16))
        if code[0] in "ux" and len(code) > 1:
            return chr(int(code[1:], 16))
        return SIMPLE_ESCAPES.get(code, code)

    return ESCAPE.sub(one, text)


def reads_as_words(text: str) -> bool:
    stripped = text.strip()
    if not stripped or stripped in KEY_NAMES:
        return False
    return bool(re.search(r"[^\W\d_]\s+\S", stripped) or re.match(r"[A-Z][a-z]+", stripped))


PLACEHOLDER = "x"
OPERATOR = re.compile(r"=>|===|!==|==|!=|&&|\|\||\?\?|\?\.|\.\.\.|[^\w\s]")
REGEX_BEFORE = set("(,=:[!&|?{};+-*%<>~^") | {"return", "typeof", "case", "in", "of", "=>", ""}


class Scanner:
    """A JavaScript tokenizer good enough for the page's own modules: comments, strings,
    template literals (with nested expressions), regular expressions, brackets and names."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.position = 0
        self.line = 1
        self.literals: list[Literal] = []
        # Each open bracket: its character and the call's name when it opens a call.
        self.brackets: list[tuple[str, str | None]] = []
        self.tokens: list[str] = []
        self.brackets_before: str | None = None
        # The string arguments of gettext, ngettext and pgettext: each must be a msgid (or a
        # context) of the extracted catalogue, or the extractor missed it.
        self.catalogue_arguments: list[Literal] = []

    def run(self) -> list[Literal]:
        self._code(until=None)
        return self.literals

    def _exempt(self) -> bool:
        """Whether a literal starting now is a catalogue argument or non-visible."""
        previous = self.tokens[-1] if self.tokens else ""
        if self.brackets:
            char, call = self.brackets[-1]
            if char == "(" and call in CATALOGUE_CALLS | NON_VISIBLE_CALLS:
                return True
            if char == "(" and call == "h" and previous == "(":
                return True  # h("button", ...): a tag name
            if char == "(" and call in {"setAttribute", "toggleAttribute"} and previous == "(":
                return True
            if char == "[" and re.fullmatch(r"[\w$]+", self.brackets_before or ""):
                return True  # headers["Content-Type"]: a property's name
        if previous == ":" and len(self.tokens) >= 2:
            key = self.tokens[-2].strip("\"'")
            if key in NON_VISIBLE_KEYS or key.startswith("data-"):
                return True
        if previous in {"=", "===", "!==", "==", "!="} and len(self.tokens) >= 2:
            target = self.tokens[-2]
            if target in NON_VISIBLE_KEYS or target in {"key", "code"}:
                return True
        return previous in {"import", "from", "case"}

    def _add(self, text: str, line: int, exempt: bool) -> None:
        self.literals.append(Literal(line=line, text=text, exempt=exempt))
        if (
            self.brackets
            and self.brackets[-1][0] == "("
            and self.brackets[-1][1] in CATALOGUE_CALLS
        ):
            self.catalogue_arguments.append(Literal(line=line, text=text, exempt=True))

    def _peek(self, offset: int = 0) -> str:
        index = self.position + offset
        return self.source[index] if index < len(self.source) else ""

    def _advance(self, count: int = 1) -> str:
        text = self.source[self.position : self.position + count]
        self.line += text.count("\n")
        self.position += count
        return text

    def _code(self, until: str | None) -> None:
        depth = 0
        while self.position < len(self.source):
            char = self._peek()
            if until and char == "}" and depth == 0:
                return
            if char.isspace():
                self._advance()
            elif char == "/" and self._peek(1) == "/":
                while self._peek() not in {"\n", ""}:
                    self._advance()
            elif char == "/" and self._peek(1) == "*":
                end = self.source.find("*/", self.position + 2)
                self._advance((end + 2 if end != -1 else len(self.source)) - self.position)
            elif char in "\"'":
                self._string(char)
            elif char == "`":
                self._template()
            elif char == "/" and (self.tokens[-1] if self.tokens else "") in REGEX_BEFORE:
                self._regex()
            elif char in "([{":
                previous = self.tokens[-1] if self.tokens else ""
                self.brackets_before = previous
                call = previous if char == "(" and re.fullmatch(r"[\w$]+", previous) else None
                self.brackets.append((char, call))
                self.tokens.append(self._advance())
                if until and char == "{":
                    depth += 1
            elif char in ")]}":
                if self.brackets:
                    self.brackets.pop()
                self.tokens.append(self._advance())
                if until and char == "}":
                    depth -= 1
            elif re.match(r"[\w$]", char):
                match = re.match(r"[\w$]+", self.source[self.position :])
                assert match
                self.tokens.append(self._advance(len(match.group())))
            else:
                match = re.match(
                    r"=>|===|!==|==|!=|&&|\|\||\?\?|\?\.|\.\.\.|[^\w\s]",
                    self.source[self.position :],
                )
                assert match
                self.tokens.append(self._advance(len(match.group())))

    def _string(self, quote: str) -> None:
        line, exempt = self.line, self._exempt()
        self._advance()
        text = []
        while self._peek() not in {quote, ""}:
            text.append(self._advance(2) if self._peek() == "\\" else self._advance())
        self._advance()
        self._add(unescape("".join(text)), line, exempt)
        self.tokens.append('"' + "".join(text) + '"')

    def _template(self) -> None:
        line, exempt = self.line, self._exempt()
        self._advance()
        text = []
        while self._peek() not in {"`", ""}:
            if self._peek() == "\\":
                text.append(unescape(self._advance(2)))
            elif self._peek() == "$" and self._peek(1) == "{":
                self._advance(2)
                # A placeholder reads as a word: `${name} holds` is a sentence.
                text.append(PLACEHOLDER)
                saved_tokens = self.tokens
                self.tokens = ["("]
                self._code(until="}")
                self.tokens = saved_tokens
                self._advance()
            else:
                text.append(self._advance())
        self._advance()
        own = "".join(part for part in text if part != PLACEHOLDER)
        # Placeholders and punctuation only (`${amount} ${currency}`): no words of its own.
        self._add("".join(text) if re.search(r"[^\W\d_]", own) else own, line, exempt)
        self.tokens.append('"template"')

    def _regex(self) -> None:
        self._advance()
        in_class = False
        while self._peek() not in {"", "\n"}:
            char = self._advance()
            if char == "\\":
                self._advance()
            elif char == "[":
                in_class = True
            elif char == "]":
                in_class = False
            elif char == "/" and not in_class:
                break
        while re.match(r"[a-z]", self._peek()):
            self._advance()
        self.tokens.append("regex")


def catalogue_arguments(source: str) -> list[Literal]:
    scanner = Scanner(source)
    scanner.run()
    return scanner.catalogue_arguments


def untranslated_literals(source: str) -> Iterator[Literal]:
    for literal in Scanner(source).run():
        if not literal.exempt and reads_as_words(literal.text):
            yield literal


# Attributes a person reads (or hears): their values must be translated.
VISIBLE_ATTRIBUTES = {"title", "aria-label", "alt", "placeholder", "aria-description"}
TRANSLATION_TAGS = re.compile(
    r"{%\s*(?:translate|trans)\s.*?%}|{%\s*blocktranslate.*?%}.*?{%\s*endblocktranslate\s*%}", re.S
)
OTHER_TAGS = re.compile(r"{%.*?%}|{{.*?}}|{#.*?#}", re.S)
COMMENT_BLOCKS = re.compile(r"{%\s*comment\s*%}.*?{%\s*endcomment\s*%}", re.S)


class TemplateText(HTMLParser):
    """A template's text nodes and visible attributes once the translation tags and every
    other tag and variable are taken out: what is left is text no catalogue translates."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self._meta_description = False

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        for name, value in attrs:
            if name in VISIBLE_ATTRIBUTES and value and reads_as_words(value):
                self.found.append(f"<{tag} {name}={value!r}>")
        if (
            tag == "meta"
            and values.get("name") == "description"
            and reads_as_words(values.get("content") or "")
        ):
            self.found.append(f"<meta content={values['content']!r}>")

    def handle_data(self, data):
        if reads_as_words(data) or re.search(r"[^\W\d_]{2,}", data):
            self.found.append(data.strip())


def untranslated_template_text(source: str) -> list[str]:
    without = COMMENT_BLOCKS.sub("", source)
    without = TRANSLATION_TAGS.sub("", without)
    without = OTHER_TAGS.sub("", without)
    parser = TemplateText()
    parser.feed(without)
    return parser.found
