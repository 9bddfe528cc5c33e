"""Requests validated by one serializer instance per input serializer class (output.py does
the same for answers).

Each new Serializer deep-copies its declared fields with their validators: for the body of a
game move that was a few per cent of the move's CPU, on the hottest path of the API. An
input serializer that reads no context and keeps nothing between validations can validate
any number of requests from any thread with its fields built once. Only the valid request
takes the shared instance: an invalid one is validated again by a new instance, so its
errors are exactly DRF's (``is_valid`` words a few edge cases, a null body for one, on its
own).
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from gin_platform.api.output import shared_instance


def validated(serializer_class: type[serializers.Serializer], data: Any) -> Any:
    """``serializer_class(data=data)``'s ``validated_data``; DRF's ValidationError, with
    the errors ``is_valid(raise_exception=True)`` gives, when ``data`` is not valid."""
    try:
        return shared_instance(serializer_class).run_validation(data)
    except serializers.ValidationError:
        serializer_class(data=data).is_valid(raise_exception=True)  # DRF's own wording
        raise
