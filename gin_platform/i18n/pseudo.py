"""The pseudo-locale (docs/play.md "Languages"): English made to look foreign, to see a page's
layout survive translation before any translator has worked. Every string is bracketed (a
string cut off or glued together from fragments shows), its letters accented (a string that
missed the catalogue shows plain), and padded to about 30% longer (most languages are longer
than English). Placeholders stay as they are, so the page fills them in."""

from __future__ import annotations

import math
import re

ACCENTED = str.maketrans(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "áƀçđéƒĝĥíĵķĺɱñóƥǫŕšţúṽŵẋýžÁƁÇĐÉƑĜĤÍĴĶĹṀÑÓƤǪŔŠŢÚṼŴẊÝŽ",
)
# `%(name)s`, `%s`, `%d` and `%%` pass through untouched.
PLACEHOLDER = re.compile(r"%(?:\(\w+\))?[sd%]")
PADDING_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
EXPANSION = 0.3


def padding(length: int) -> str:
    """Words (so the longer text can wrap, as translations do) of about ``length`` letters."""
    words: list[str] = []
    total = 0
    for index in range(length):
        if total >= length:
            break
        word = PADDING_WORDS[index % len(PADDING_WORDS)]
        words.append(word)
        total += len(word) + 1
    return " ".join(words)


def pseudo_translate(text: str) -> str:
    """``"Your turn"`` -> ``"[Ýóúŕ ţúŕñ one two]"``; placeholders kept."""
    pieces = []
    last = 0
    for match in PLACEHOLDER.finditer(text):
        pieces.append(text[last : match.start()].translate(ACCENTED))
        pieces.append(match.group())
        last = match.end()
    pieces.append(text[last:].translate(ACCENTED))
    visible = len(PLACEHOLDER.sub("", text))
    extra = padding(math.ceil(visible * EXPANSION))
    return "[" + "".join(pieces) + (" " + extra if extra else "") + "]"
