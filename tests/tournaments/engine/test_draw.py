"""R14 the draw: R3's shuffle of the entries in order of registration, stream "draw"."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine import shuffle
from tests.tournaments.engine.strategies import fields
from tournaments.engine import DRAW_LABEL, draw_order, new_server_seed, seed_commitment

SEED = "0" * 64
# Known answers: changing the draw would make every published bracket unverifiable.
SEED_ZERO_ELEVEN = (4, 2, 6, 8, 5, 10, 3, 11, 1, 7, 9)
SEED_ZERO_1024_HEAD = (328, 616, 1013, 457, 900, 350, 570, 634)


def test_the_draw_is_the_shuffle_of_the_registrations_with_the_draw_label():
    assert DRAW_LABEL == "draw"
    assert draw_order(seed=SEED, entries=range(1, 12)) == SEED_ZERO_ELEVEN
    assert draw_order(seed=SEED, entries=range(1, 1025))[:8] == SEED_ZERO_1024_HEAD
    names = ["ana", "bo", "cy"]
    assert draw_order(seed="s", entries=names) == shuffle(names, "s", "draw")


def test_the_draw_permutes_positions_whatever_the_entries_are_called():
    """Only the order of registration matters: renaming every entry renames the draw."""
    ids = draw_order(seed=SEED, entries=range(1, 12))
    names = draw_order(seed=SEED, entries=[f"p{n}" for n in range(1, 12)])
    assert names == tuple(f"p{n}" for n in ids)


@given(seed=st.text(min_size=1, max_size=20), entries=fields())
def test_the_draw_is_a_permutation_and_the_same_seed_gives_the_same_draw(seed, entries):
    drawn = draw_order(seed=seed, entries=entries)
    assert sorted(drawn) == sorted(entries)
    assert draw_order(seed=seed, entries=entries) == drawn


def test_another_seed_gives_another_draw_and_the_commitment_is_the_seeds_sha256():
    seed = new_server_seed()
    assert draw_order(seed=seed, entries=range(64)) != draw_order(seed=SEED, entries=range(64))
    assert seed_commitment("abc") == (
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    )


def test_an_entry_is_in_the_draw_once_and_a_seed_is_not_empty():
    with pytest.raises(ValueError, match="once"):
        draw_order(seed=SEED, entries=[1, 2, 1])
    with pytest.raises(ValueError, match="non-empty"):
        draw_order(seed="", entries=[1, 2])
