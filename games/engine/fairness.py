"""R3 fairness (docs/fairness.md): server seeds, commitments and the provable shuffle.

The algorithm, exactly (docs/engine.md repeats it with a stand-alone verifier):

* seed: any non-empty text; the server uses 64 lowercase hex characters from ``secrets``.
  Its bytes are the UTF-8 encoding of that text (for a hex seed: its 64 ASCII characters,
  not the 32 bytes they spell).
* commitment: ``SHA-256(seed bytes)`` as 64 lowercase hex characters, published before the
  deal.
* byte stream for a label (``"deck"`` for the deal, ``"reshuffle-1"``, ``"reshuffle-2"``, ...
  for R7 reshuffles, ``"draw"`` for an R14 tournament's draw): block ``k`` (k = 0, 1, 2, ...) is
  ``HMAC-SHA256(key=seed bytes, msg=ASCII(label + ":" + decimal k))``; the stream is the
  blocks' bytes in order.
* uniform integer in ``[0, n)`` for ``n <= 256``: read one byte ``b``; if
  ``b < 256 - 256 % n`` return ``b % n``, otherwise discard it and read the next byte
  (rejection sampling: every value has exactly the same number of accepted bytes).
* the same for ``256 < n <= 2**32`` (an R14 tournament draw of more than 256 entries): read
  four bytes as a big-endian ``u``; if ``u < 2**32 - 2**32 % n`` return ``u % n``, otherwise
  discard them and read the next four. Each draw's width follows its own ``n``, so a shuffle
  of 256 items or fewer (every deck) reads exactly the bytes it always did.
* shuffle: start from the items in their given order (for the deal, :data:`FULL_DECK`:
  AS..KS, AH..KH, AD..KD, AC..KC); for ``i`` from ``len - 1`` down to 1, draw ``j`` uniform
  in ``[0, i]`` and swap positions ``i`` and ``j`` (Fisher-Yates). Position 0 of a shuffled
  deck is the first card dealt.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterator, Sequence
from typing import TypeVar

from games.engine.cards import FULL_DECK, Card

T = TypeVar("T")
SEED_BYTES = 32
DECK_LABEL = "deck"
# Draws above 256 values read four bytes at a time: 2**32 values per try.
WIDE = 2**32
MAX_ITEMS = WIDE


def new_server_seed() -> str:
    """A fresh per-hand server seed: 64 lowercase hex characters from :mod:`secrets`."""
    return secrets.token_hex(SEED_BYTES)


def _seed_bytes(seed: str) -> bytes:
    if not isinstance(seed, str) or not seed:
        raise ValueError("a server seed is a non-empty string")
    return seed.encode("utf-8")


def seed_commitment(seed: str) -> str:
    """Hex SHA-256 of the seed's UTF-8 bytes (for a hex seed, its ASCII characters)."""
    return hashlib.sha256(_seed_bytes(seed)).hexdigest()


def byte_stream(seed: str, label: str) -> Iterator[int]:
    """HMAC-SHA256 counter-mode bytes: block k = HMAC(seed, f"{label}:{k}")."""
    key = _seed_bytes(seed)
    counter = 0
    while True:
        message = f"{label}:{counter}".encode("ascii")
        yield from hmac.new(key, message, hashlib.sha256).digest()
        counter += 1


def uniform_below(stream: Iterator[int], n: int) -> int:
    """A uniform integer in ``[0, n)`` for ``1 <= n <= 2**32``, by rejection (no modulo bias):
    one byte per try up to 256, four big-endian bytes per try above."""
    if not 1 <= n <= MAX_ITEMS:
        raise ValueError("n must be within 1..2**32")
    if n <= 256:
        accept_below = 256 - 256 % n
        for byte in stream:
            if byte < accept_below:
                return byte % n
        raise ValueError("the byte stream ended")  # pragma: no cover - the stream is endless
    accept_below = WIDE - WIDE % n
    while True:
        word = int.from_bytes(bytes(next(stream) for _ in range(4)), "big")
        if word < accept_below:
            return word % n


def shuffle(items: Sequence[T], seed: str, label: str) -> tuple[T, ...]:
    """Unbiased Fisher-Yates shuffle of ``items`` driven by the seed's stream for ``label``."""
    if len(items) > MAX_ITEMS:
        raise ValueError("at most 2**32 items can be shuffled")
    result = list(items)
    stream = byte_stream(seed, label)
    for i in range(len(result) - 1, 0, -1):
        j = uniform_below(stream, i + 1)
        result[i], result[j] = result[j], result[i]
    return tuple(result)


def shuffled_deck(seed: str) -> tuple[Card, ...]:
    """R3: the hand's deck order derived from its server seed; index 0 is dealt first."""
    return shuffle(FULL_DECK, seed, DECK_LABEL)


def verify_deck(seed: str, commitment: str, deck: Sequence[Card] | None = None) -> bool:
    """True when ``seed`` matches ``commitment`` and (if given) re-derives exactly ``deck``."""
    try:
        if not hmac.compare_digest(seed_commitment(seed), str(commitment).lower()):
            return False
    except (TypeError, ValueError):  # a non-string seed, or a non-ASCII commitment
        return False
    return deck is None or tuple(deck) == shuffled_deck(seed)


def first_dealer(seed: str) -> int:
    """R3: the first dealer of a match, chosen by the shuffle of its first hand's seed.

    The first byte of the stream labelled ``"first-dealer"``: even -> seat 0, odd -> seat 1
    (256 is even, so both seats are equally likely).
    """
    return next(byte_stream(seed, "first-dealer")) & 1
