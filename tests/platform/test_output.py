"""Dicts represented without DRF's per-field lookup (gin_platform/api/output.py): the same
keys, in the same order, with the same values as ``Serializer.to_representation``, and the
same exception where DRF raises one; what the plan cannot mirror is left to DRF."""

from __future__ import annotations

import datetime
from collections.abc import Iterator, Mapping
from types import MappingProxyType, SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework import fields as drf_fields
from rest_framework import serializers

from games.api.choices import MATCH_EVENT_KINDS
from games.api.serializers import EventOutput, ForfeitOutput
from games.models import Match
from gin_platform.api.output import represent

UTC = datetime.UTC


class _Record(Mapping):
    """A Mapping that is not a dict (DRF reads it with ``[]`` as well)."""

    def __init__(self, data: dict) -> None:
        self._data = data

    def __getitem__(self, key):
        return self._data[key]

    def __iter__(self) -> Iterator:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)


class _Lenient(dict):
    """A dict whose missing keys read as None (``__missing__``: ``[]`` is not ``get``)."""

    def __missing__(self, key):
        return None


CONTAINERS = [dict, MappingProxyType, _Record, _Lenient]


def _outcome(call):
    """What a call answered: its items in order, or the exception it raised."""
    try:
        answer = call()
    except Exception as exc:  # the exception is the answer compared
        return "raised", type(exc), exc.args
    return "answered", list(answer.items())


def _same_as_drf(serializer_class, data: dict, container=dict) -> tuple:
    """The fast path's answer, asserted equal to a new serializer's; each reads its own copy
    (a ``__missing__`` may write)."""
    ours = _outcome(lambda: represent(serializer_class, container(dict(data))))
    drfs = _outcome(lambda: serializer_class().to_representation(container(dict(data))))
    assert ours == drfs
    return ours


# --- EventOutput over generated events ----------------------------------------------------
INTS = ("seq", "hand", "state_seq", "seat", "stock_count", "number", "dealer", "to_act")
INTS += ("winner_seat", "reached_target", "hands_played", "target")
STRINGS = ("card", "seed", "seed_commitment", "upcard", "reason")
INT_LISTS = ("hand_points", "hands_won", "penalty_totals")

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=8,
)
forfeit = st.fixed_dictionaries(
    {},
    optional={
        "seat": st.integers(0, 3) | st.none(),
        "reason": st.sampled_from([*Match.ForfeitReason.values, "other"]),
    },
)
junk = st.one_of(
    st.none(),
    st.integers(),
    st.text(max_size=4),
    st.booleans(),
    st.floats(allow_nan=False),
    st.lists(st.integers(), max_size=2),
    st.just(lambda: 3),  # DRF calls a value that is a function of no arguments
    st.just(len),  # and refuses a builtin one
)
plausible = {
    **dict.fromkeys(INTS, st.integers(-1, 2**40) | st.none()),
    **dict.fromkeys(STRINGS, st.text(max_size=5) | st.none()),
    **dict.fromkeys(INT_LISTS, st.lists(st.integers(0, 500), max_size=4)),
    "kind": st.sampled_from(MATCH_EVENT_KINDS),
    "created_at": st.datetimes(timezones=st.just(UTC)) | st.datetimes(),
    "auto": st.booleans(),
    "outcome": json_values,
    "money_play": json_values,
    "hands": st.lists(st.lists(st.text(max_size=3), max_size=10), max_size=2),
    "ranking": st.lists(st.lists(st.integers(0, 3), max_size=4), max_size=4),
    "forfeit": forfeit | st.none(),
    "forfeits": st.lists(forfeit, max_size=3),
}
assert set(plausible) == set(EventOutput().fields), "every field of EventOutput is generated"


@st.composite
def events(draw) -> dict:
    """Some of EventOutput's keys in any order, most with values the presenters write, some
    with values DRF refuses, and now and then a key EventOutput does not declare."""
    keys = draw(st.lists(st.sampled_from(sorted(plausible)), unique=True))
    event = {key: draw(plausible[key] if draw(st.integers(0, 9)) else junk) for key in keys}
    if draw(st.booleans()):
        event.update(draw(st.dictionaries(st.sampled_from(["extra", "payload"]), junk)))
    return event


REQUIRED = {"seq": 7, "hand": 1, "state_seq": 3, "kind": "discard", "seat": 0}


@settings(max_examples=400, deadline=None)
@given(event=events(), container=st.sampled_from(CONTAINERS))
def test_any_event_is_represented_as_drf_does(event, container):
    _same_as_drf(EventOutput, event, container)


@settings(max_examples=300, deadline=None)
@given(event=events(), created_at=st.datetimes(timezones=st.just(UTC)))
def test_any_event_with_its_required_keys_is_represented_as_drf_does(event, created_at):
    _same_as_drf(EventOutput, {**REQUIRED, "created_at": created_at, **event})


CREATED = datetime.datetime(2025, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
EVENTS = [
    {**REQUIRED, "kind": "hand_dealt", "created_at": CREATED, "number": 1, "dealer": 1,
     "seed_commitment": "ab" * 32, "upcard": "7h", "to_act": 0},
    {**REQUIRED, "kind": "draw_stock", "created_at": CREATED, "card": None, "stock_count": 30},
    {**REQUIRED, "kind": "discard", "created_at": CREATED, "card": "Kd", "auto": True},
    {**REQUIRED, "kind": "hand_ended", "created_at": CREATED, "seat": None, "seed": "cd" * 32,
     "outcome": {"winner": 0, "points": 25, "melds": [["7h", "8h", "9h"]]},
     "hands": [["7h", "8h", "9h"], ["2c", "3c"]]},
    {**REQUIRED, "kind": "forfeit", "created_at": CREATED, "forfeit": {"seat": 1,
     "reason": "resigned"}},
    {**REQUIRED, "kind": "match_finished", "created_at": CREATED, "seat": None,
     "reason": "target", "winner_seat": 0, "reached_target": 0, "hand_points": [110, 40],
     "hands_won": [3, 1], "hands_played": 4, "target": 100, "money_play": None,
     "ranking": [[0], [1]], "penalty_totals": [0, 0], "forfeits": [{"seat": 1,
     "reason": "left"}]},
]  # fmt: skip


@pytest.mark.parametrize("event", EVENTS, ids=[e["kind"] for e in EVENTS])
def test_each_kind_of_event_is_represented_as_drf_does(event):
    assert _same_as_drf(EventOutput, event)[0] == "answered"


@pytest.fixture
def drf_lookups(monkeypatch) -> list:
    """The keys DRF's ``fields.get_attribute`` looked up, in order."""
    looked_up = []
    real = drf_fields.get_attribute

    def counting(instance, attrs):
        looked_up.append(".".join(attrs))
        return real(instance, attrs)

    monkeypatch.setattr(drf_fields, "get_attribute", counting)
    return looked_up


def test_a_dict_is_represented_without_drf_looking_up_its_fields(drf_lookups):
    represent(EventOutput, EVENTS[1])
    represent(ForfeitOutput, {"seat": 1, "reason": "left"})
    assert drf_lookups == []


def test_an_object_is_represented_by_drf(drf_lookups):
    forfeit = SimpleNamespace(seat=1, reason="timeout")
    assert represent(ForfeitOutput, forfeit) == {"seat": 1, "reason": "timeout"}
    assert drf_lookups == ["seat", "reason"]


# --- What a field says when its key is missing ----------------------------------------------
class Inner(serializers.Serializer):
    a = serializers.IntegerField(required=False)


class Shapes(serializers.Serializer):
    """One field of each kind the plan mirrors."""

    required_one = serializers.IntegerField()
    with_default = serializers.IntegerField(default=7)
    made_default = serializers.CharField(default=lambda: "made")
    nullable = serializers.CharField(allow_null=True)
    optional = serializers.CharField(required=False)
    optional_nullable = serializers.CharField(required=False, allow_null=True)
    renamed = serializers.CharField(source="other", required=False)
    whole = Inner(source="*")
    method = serializers.SerializerMethodField()
    secret = serializers.CharField(write_only=True)
    many = Inner(many=True, required=False)

    def get_method(self, instance) -> int:
        return len(instance)


class Dotted(serializers.Serializer):
    name = serializers.CharField()
    city = serializers.CharField(source="address.city", required=False)


class Shouting(serializers.Serializer):
    name = serializers.CharField()

    def to_representation(self, instance):
        return {"NAME": super().to_representation(instance)["name"].upper()}


SHAPES = [
    {"required_one": 1},
    {"required_one": 1, "with_default": 2, "made_default": "given", "nullable": "n"},
    {"required_one": None, "with_default": None, "nullable": None, "optional": None},
    {"required_one": "3", "other": 5, "a": "4", "secret": "s", "many": [{"a": 1}, {}]},
    {"required_one": 1, "renamed": "not its source", "many": None, "a": None},
    {"with_default": 2},  # the required field is missing: DRF's KeyError
    {"required_one": "x"},  # DRF's ValueError
    {"required_one": lambda: 9, "optional": lambda: "called"},
    {"required_one": 1, "optional": len},
]


@pytest.mark.parametrize("container", CONTAINERS)
@pytest.mark.parametrize("data", SHAPES)
def test_missing_keys_defaults_and_whole_instance_sources_as_drf(data, container):
    _same_as_drf(Shapes, data, container)


def test_what_the_shapes_answer():
    assert represent(Shapes, {"required_one": 1}) == {
        "required_one": 1,
        "with_default": 7,
        "made_default": "made",
        "nullable": None,
        "optional_nullable": None,
        "whole": {},
        "method": 1,
    }
    with pytest.raises(KeyError, match="`required_one` on serializer `Shapes`"):
        represent(Shapes, {})


@pytest.mark.parametrize(
    "data",
    [
        {"name": "Ann", "address": {"city": "Oslo"}},
        {"name": "Ann", "address": {}},
        {"name": "Ann"},
        {"address": {"city": "Oslo"}},
    ],
)
def test_a_dotted_source_is_left_to_drf(data, drf_lookups):
    _outcome(lambda: represent(Dotted, data))
    assert drf_lookups[0] == "name"  # DRF looked the fields up: the fast path was not taken
    _same_as_drf(Dotted, data)


def test_what_a_dotted_source_answers():
    assert represent(Dotted, {"name": "Ann", "address": {"city": "Oslo"}}) == {
        "name": "Ann",
        "city": "Oslo",
    }
    assert represent(Dotted, {"name": "Ann", "address": {}}) == {"name": "Ann"}


def test_a_serializer_with_its_own_to_representation_is_left_to_it():
    assert represent(Shouting, {"name": "ann"}) == {"NAME": "ANN"}
