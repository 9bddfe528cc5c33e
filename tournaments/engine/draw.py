"""R14 the draw: the bracket's order, provably fair (docs/fairness.md, "The tournament draw").

The tournament commits to a seed when registration opens (:func:`seed_commitment`, the
SHA-256 published then) and reveals it when the tournament ends. The draw is R3's shuffle of
the entries in order of registration, with the stream labelled ``"draw"``: anybody holding the
revealed seed and the list of entries re-derives it.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

from games.engine import new_server_seed, seed_commitment, shuffle

__all__ = ["DRAW_LABEL", "draw_order", "new_server_seed", "seed_commitment"]

T = TypeVar("T", bound=Hashable)
DRAW_LABEL = "draw"


def draw_order(*, seed: str, entries: Sequence[T]) -> tuple[T, ...]:
    """The draw: ``entries`` (in order of registration, each once) shuffled by R3's shuffle
    from ``seed``'s ``"draw"`` stream. Position 0 is the first place of the draw."""
    if len(set(entries)) != len(entries):
        raise ValueError("each entry is in the draw once")
    return shuffle(entries, seed, DRAW_LABEL)
