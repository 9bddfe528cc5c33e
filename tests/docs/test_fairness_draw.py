"""docs/fairness.md "The tournament draw": its stand-alone verifier, run exactly as written
there with nothing imported for it, draws what the engine draws (R14)."""

from __future__ import annotations

import re
from pathlib import Path

from tournaments.engine import draw_order, new_server_seed, seed_commitment

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
