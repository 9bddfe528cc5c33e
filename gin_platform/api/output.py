"""Answers from one serializer instance per output serializer class, not one per answer.

DRF builds a serializer's fields anew for every instance: for a ModelSerializer that means
introspecting each model field and building its validators (a URLField compiles its
regular expressions). For the trivial ``GET /operators/me`` that was a fifth of the web
server's CPU, more than its database work (docs/benchmarks.md). An output serializer that
reads no context keeps no state between answers, so one instance per class, its fields
built once, can represent any number of rows from any thread.

A dict is represented without DRF's per-field lookup. ``Field.get_attribute`` answers a
key the dict lacks by raising KeyError, catching it and raising SkipField for the
serializer to catch: for ``EventOutput`` (two dozen optional fields, a handful present in
any one event) that was 3.8% of the web process's CPU per move pushed over the sockets
(games/realtime/render.py). A plan per serializer class, read once from its fields, says
where each field's value is and what a missing key gives, exactly as DRF decides it; a
serializer or a field it cannot mirror (a dotted source, its own ``get_attribute`` or
``to_representation``) is represented by DRF itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple, TypeVar

from django.core.exceptions import ObjectDoesNotExist
from rest_framework import serializers
from rest_framework.fields import SkipField, empty
from rest_framework.relations import PKOnlyObject

S = TypeVar("S", bound=serializers.BaseSerializer)

_instances: dict[type[serializers.BaseSerializer], Any] = {}


def shared_instance(serializer_class: type[S]) -> S:
    """This process's one instance of ``serializer_class``, built on first use."""
    serializer = _instances.get(serializer_class)
    if serializer is None:
        serializer = _instances.setdefault(serializer_class, serializer_class())
    return serializer


def represent(serializer_class: type[serializers.BaseSerializer], instance: Any) -> dict:
    """``serializer_class(instance).data`` for a serializer that needs no context."""
    if type(instance) is dict or isinstance(instance, Mapping):
        plan = _plans.get(serializer_class, _UNBUILT)
        if plan is _UNBUILT:
            plan = _plans.setdefault(serializer_class, _plan(shared_instance(serializer_class)))
        if plan is not None:
            return _represent_mapping(plan, instance)
    return shared_instance(serializer_class).to_representation(instance)


# What a field whose key is missing gives (Field.get_attribute's KeyError branch).
_NULL = "null"  # allow_null: None
_SKIP = "skip"  # not required: no key in the answer
_ASK_DRF = "ask_drf"  # a default, or a required field: DRF's get_attribute, exception included


class _Step(NamedTuple):
    """One readable field of a plan."""

    field: serializers.Field
    name: str
    key: str | None  # None: source='*', the whole instance
    to_representation: Callable[[Any], Any]
    when_missing: str


_UNBUILT: Any = object()
_ABSENT = object()
_SKIPPED = object()
# A serializer class -> its plan, or None when DRF represents it.
_plans: dict[type[serializers.BaseSerializer], tuple[_Step, ...] | None] = {}


def _plan(serializer: serializers.BaseSerializer) -> tuple[_Step, ...] | None:
    """The steps of ``Serializer.to_representation`` for a Mapping, in field order; None
    when the serializer or one of its fields does not do what DRF 3's Serializer and Field
    do."""
    base = serializers.Serializer
    if not isinstance(serializer, base) or (
        type(serializer).to_representation is not base.to_representation
        or type(serializer)._readable_fields is not base._readable_fields
    ):
        return None
    steps = []
    for field in serializer._readable_fields:
        if type(field).get_attribute is not serializers.Field.get_attribute:
            return None
        if len(field.source_attrs) > 1:  # a dotted source: DRF walks it
            return None
        if field.default is not empty or (field.required and not field.allow_null):
            when_missing = _ASK_DRF
        else:
            when_missing = _NULL if field.allow_null else _SKIP
        key = field.source_attrs[0] if field.source_attrs else None
        assert field.field_name is not None  # set when the serializer bound its fields
        steps.append(_Step(field, field.field_name, key, field.to_representation, when_missing))
    return tuple(steps)


def _drf_attribute(field: serializers.Field, instance: Any) -> Any:
    """DRF's own answer for the rare cases: a default, a missing required key, a callable."""
    try:
        return field.get_attribute(instance)
    except SkipField:
        return _SKIPPED


def _represent_mapping(plan: tuple[_Step, ...], instance: Mapping) -> dict:
    """``Serializer.to_representation(instance)``, the same keys in the same order."""
    ret: dict[str, Any] = {}
    plain = type(instance) is dict  # its get() is its [] (no __missing__, no override)
    for field, name, key, to_representation, when_missing in plan:
        value: Any
        if key is None:
            value = instance
        else:
            if plain:
                value = instance.get(key, _ABSENT)
            else:
                try:
                    value = instance[key]
                except (KeyError, AttributeError):
                    value = _ABSENT
                except ObjectDoesNotExist:
                    value = None
            if value is _ABSENT:
                if when_missing is _NULL:
                    ret[name] = None
                    continue
                if when_missing is _SKIP:
                    continue
                value = _drf_attribute(field, instance)
            elif callable(value):  # DRF calls a function value with no arguments
                value = _drf_attribute(field, instance)
            if value is _SKIPPED:
                continue
        if value is None or (isinstance(value, PKOnlyObject) and value.pk is None):
            ret[name] = None
        else:
            ret[name] = to_representation(value)
    return ret
