"""Answers from one serializer instance per output serializer class, not one per answer.

DRF builds a serializer's fields anew for every instance: for a ModelSerializer that means
introspecting each model field and building its validators (a URLField compiles its
regular expressions). For the trivial ``GET /operators/me`` that was a fifth of the web
server's CPU, more than its database work (docs/benchmarks.md). An output serializer that
reads no context keeps no state between answers, so one instance per class, its fields
built once, can represent any number of rows from any thread.
"""

from __future__ import annotations

from typing import Any, TypeVar

from rest_framework import serializers

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
    return shared_instance(serializer_class).to_representation(instance)
