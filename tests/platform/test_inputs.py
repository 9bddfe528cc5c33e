"""Inputs validated by one shared serializer instance (gin_platform/api/inputs.py): the same
validated data and the same errors as a new serializer per request, from any thread."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from rest_framework import serializers

from games.api.serializers import ActionInput, ResignInput, SitInput
from gin_platform.api.inputs import validated
from gin_platform.http.problems import UnknownFieldsProblem

BODIES = [
    {"kind": "discard", "card": "7h", "expected_seq": 3},
    {"kind": "knock", "card": "10d", "expected_seq": 0},
    {"kind": "pass", "expected_seq": 12},
    {"kind": "draw_stock", "card": None, "expected_seq": 2**63 - 1, "extra": "refused"},
    {"kind": "discard", "card": "1Z", "expected_seq": 3},
    {"kind": "fly", "expected_seq": 3},
    {"kind": "pass", "expected_seq": -1},
    {"kind": "pass", "expected_seq": 2**63},
    {"kind": "pass", "expected_seq": "three"},
    {"kind": "pass"},
    {},
    None,
    [],
    "discard",
    42,
]


def _new_instance(serializer_class, data):
    serializer = serializer_class(data=data)
    try:
        serializer.is_valid(raise_exception=True)
    except serializers.ValidationError as exc:
        return "invalid", exc.detail
    except UnknownFieldsProblem as problem:
        return "unknown", problem.extensions["fields"]
    return "valid", serializer.validated_data


def _shared_instance(serializer_class, data):
    try:
        return "valid", validated(serializer_class, data)
    except serializers.ValidationError as exc:
        return "invalid", exc.detail
    except UnknownFieldsProblem as problem:
        return "unknown", problem.extensions["fields"]


@pytest.mark.parametrize("body", BODIES)
@pytest.mark.parametrize("serializer_class", [ActionInput, ResignInput])
def test_the_shared_instance_answers_as_a_new_one(serializer_class, body):
    assert _shared_instance(serializer_class, body) == _new_instance(serializer_class, body)


def test_a_key_the_input_does_not_declare_is_refused_not_dropped():
    assert _shared_instance(ActionInput, BODIES[3]) == ("unknown", ["extra"])
    assert _shared_instance(ResignInput, BODIES[0]) == ("unknown", ["kind", "card"])


def test_threads_validating_at_once_each_get_their_own_answer():
    expected = [_new_instance(ActionInput, body) for body in BODIES]

    def validate_all(_):
        return [_shared_instance(ActionInput, body) for body in BODIES * 50]

    with ThreadPoolExecutor(max_workers=8) as pool:
        for answers in pool.map(validate_all, range(8)):
            assert answers == expected * 50


def test_an_input_that_reads_its_context_is_validated_with_it():
    body = {"cashier_amount": "12.50"}
    assert validated(SitInput, body, context={"currency": "EUR"}) == {
        "cashier_amount": 1250,
        "stake_per_point": None,
    }
    yen = validated(SitInput, {"cashier_amount": "1250"}, context={"currency": "JPY"})
    assert yen["cashier_amount"] == 1250
    with pytest.raises(serializers.ValidationError) as refused:
        validated(SitInput, [], context={"currency": "EUR"})
    serializer = SitInput(data=[], context={"currency": "EUR"})
    assert not serializer.is_valid()
    assert refused.value.detail == serializer.errors
