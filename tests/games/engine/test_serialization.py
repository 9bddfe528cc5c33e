"""Stored hand states stay readable (games/engine/serialization.py): the fixed samples in
stored_hand_states.json were written by the engine when two seats and three or four seats
still had their own state machines. Each loads into today's HandState, plays on where it was
in progress, and is stored again as exactly the same JSON, key order included."""

import json
from pathlib import Path

import pytest

from games.engine import (
    HandOutcome,
    HandState,
    apply,
    choose_action,
    player_view,
    state_from_json,
    state_to_json,
    watcher_view,
)

SAMPLES = json.loads((Path(__file__).parent / "stored_hand_states.json").read_text())


def test_the_samples_cover_both_shapes_in_progress_and_ended():
    seat_counts = {len(sample["hands"]) for sample in SAMPLES.values()}
    phases = {sample["phase"] for sample in SAMPLES.values()}
    assert seat_counts == {2, 3, 4}
    assert {"draw", "discard", "ended"} <= phases
    assert all(("out" in sample) == (len(sample["hands"]) > 2) for sample in SAMPLES.values())


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_a_stored_state_loads_and_is_stored_again_byte_for_byte(name):
    stored = SAMPLES[name]
    state = state_from_json(stored)
    assert isinstance(state, HandState) and len(state.hands) == state.rules.seats
    assert json.dumps(state_to_json(state)) == json.dumps(stored)
    if stored["outcome"] is not None:
        outcome = HandOutcome.from_dict(stored["outcome"])
        assert state.outcome == outcome
        assert json.dumps(outcome.to_dict()) == json.dumps(stored["outcome"])
    for seat in state.active:
        assert player_view(state, seat)["hand"] == stored["hands"][seat]
    assert watcher_view(state)["card_counts"] == [len(hand) for hand in stored["hands"]]


@pytest.mark.parametrize("name", sorted(name for name in SAMPLES if not SAMPLES[name]["outcome"]))
def test_a_stored_hand_in_progress_plays_on_to_its_end(name):
    state = state_from_json(SAMPLES[name])
    while not state.is_over:
        state, _ = apply(state, choose_action(state, state.to_act))
    assert state_from_json(json.loads(json.dumps(state_to_json(state)))) == state
