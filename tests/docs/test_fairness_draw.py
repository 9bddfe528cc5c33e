"""docs/fairness.md "The tournament draw": its stand-alone verifiers, run exactly as written
there with nothing imported for them, draw what the engine draws (R14) and seed what it
seeds (R14 seeded by rating)."""

from __future__ import annotations

import re
from pathlib import Path

from tournaments.engine import (
    bracket_opening,
    bracket_shape,
    draw_order,
    new_server_seed,
    seed_commitment,
)

FAIRNESS_DOC = Path(__file__).resolve().parents[2] / "docs" / "fairness.md"


def draw_verifier() -> dict:
    """The page's ```python block that defines ``tournament_draw``, run in a namespace of its
    own: it must stand alone on the standard library."""
    blocks = re.findall(r"^```python\n(.*?)^```$", FAIRNESS_DOC.read_text(), re.S | re.M)
    (block,) = [block for block in blocks if "def tournament_draw(" in block]
    namespace: dict = {"__name__": "fairness_doc"}
    exec(compile(block, str(FAIRNESS_DOC), "exec"), namespace)
    return namespace


def test_the_pages_verifier_draws_what_the_engine_draws():
    tournament_draw = draw_verifier()["tournament_draw"]
    seeds = ["0" * 64, "abc", new_server_seed(), new_server_seed()]
    for seed in seeds:
        for size in (0, 1, 2, 3, 16, 255, 256, 257, 300, 1_024):
            entries = [f"player-{number}" for number in range(size)]
            assert tournament_draw(seed, entries) == list(draw_order(seed=seed, entries=entries))


def test_the_pages_known_answers():
    tournament_draw = draw_verifier()["tournament_draw"]
    text = " ".join(FAIRNESS_DOC.read_text().split())
    eleven = tournament_draw("0" * 64, range(1, 12))
    head = tournament_draw("0" * 64, range(1, 1_025))[:8]
    assert " ".join(map(str, eleven)) == "4 2 6 8 5 10 3 11 1 7 9"
    assert f"`{' '.join(map(str, eleven))}`" in text
    assert f"`{' '.join(map(str, head))}`" in text


def test_the_pages_commitment_check():
    seed_matches = draw_verifier()["seed_matches"]
    seed = new_server_seed()
    assert seed_matches(seed, seed_commitment(seed))
    assert seed_matches(seed, seed_commitment(seed).upper())
    assert not seed_matches(new_server_seed(), seed_commitment(seed))


def seeded_verifier() -> dict:
    """The page's seeded block, run after the draw's block in one namespace of their own (it
    calls ``tournament_draw``): the standard library only, as written there."""
    namespace = draw_verifier()
    blocks = re.findall(r"^```python\n(.*?)^```$", FAIRNESS_DOC.read_text(), re.S | re.M)
    (block,) = [block for block in blocks if "def seeded_first_round(" in block]
    exec(compile(block, str(FAIRNESS_DOC), "exec"), namespace)
    return namespace


def test_the_pages_seeded_verifier_seeds_what_the_engine_seeds():
    page = seeded_verifier()
    for seats, advance in ((2, 1), (3, 1), (4, 1), (4, 2)):
        for size in (2, 3, 4, 5, 6, 7, 11, 16, 17, 33, 64, 100, 300):
            entries = [f"player-{number}" for number in range(size)]
            ratings = {entry: 1400.0 + (index * 37) % 300 for index, entry in enumerate(entries)}
            seed = new_server_seed()
            seeds, tables = bracket_opening(
                bracket_shape(entries=size, seats=seats, advance=advance),
                seed=seed,
                entries=entries,
                ratings=ratings,
            )
            assert page["seeds"](seed, entries, ratings) == list(seeds)
            found = page["seeded_first_round"](list(seeds), seats, advance)
            assert [tuple(table) for table in found] == list(tables), (seats, advance, size)


def test_the_pages_seeded_known_answer():
    page = seeded_verifier()
    entries = range(1, 12)
    ratings = {entry: 1600.0 if entry == 7 else 1500.0 for entry in entries}
    seeds = page["seeds"]("0" * 64, entries, ratings)
    tables = page["seeded_first_round"](seeds, 2, 1)
    text = " ".join(FAIRNESS_DOC.read_text().split())
    assert f"`{' '.join(map(str, seeds))}`" in text
    assert f"`{' | '.join(' '.join(map(str, table)) for table in tables)}`" in text
