"""Requests validated by one serializer instance per input serializer class (output.py does
the same for answers).

Each new Serializer deep-copies its declared fields with their validators: for the body of a
game move that was a few per cent of the move's CPU, on the hottest path of the API. An
input serializer that reads no context and keeps nothing between validations can validate
any number of requests from any thread with its fields built once. Only the valid request
takes the shared instance: an invalid one is validated again by a new instance, so its
errors are exactly DRF's (``is_valid`` words a few edge cases, a null body for one, on its
own).

Every request body is a ``StrictInput``: a key the serializer does not declare is refused
with ``unknown-fields`` before any field is validated, never dropped, so a typo or an option
this version lacks is said, not ignored. A write without a body validates ``NoBody``.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import Any

from django.utils.translation import gettext
from rest_framework import serializers
from rest_framework.request import Request

from gin_platform.api.output import shared_instance
from gin_platform.http.problems import UnknownFieldsProblem, ValidationProblem

# Named in the problem: enough to fix a request, bounded whatever a client sends.
UNKNOWN_NAMES_SHOWN = 10
UNKNOWN_NAME_CHARS = 64


def validated(
    serializer_class: type[serializers.Serializer],
    data: Any,
    *,
    context: Mapping[str, Any] | None = None,
) -> Any:
    """``serializer_class(data=data)``'s ``validated_data``; DRF's ValidationError, with
    the errors ``is_valid(raise_exception=True)`` gives, when ``data`` is not valid.

    An input that reads its ``context`` (the caller's operator, a table's currency) is
    validated by an instance of its own made with it; one without, by the shared one."""
    if context is not None:
        serializer = serializer_class(data=data, context=dict(context))
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data
    try:
        return shared_instance(serializer_class).run_validation(data)
    except serializers.ValidationError:
        serializer_class(data=data).is_valid(raise_exception=True)  # DRF's own wording
        raise


class StrictInput(serializers.Serializer):
    """A request object that refuses the keys it does not declare (read-only fields are
    not taken either). Nested inputs name the unknown key with its path: ``rules.x``."""

    @cached_property
    def accepted_fields(self) -> frozenset[str]:
        return frozenset(name for name, field in self.fields.items() if not field.read_only)

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping):
            refuse_unknown_fields(data, accepted=self.accepted_fields, path=self._path())
        return super().to_internal_value(data)

    def _path(self) -> str:
        names: list[str] = []
        node: serializers.Field | None = self
        while node is not None and node.field_name:
            names.append(node.field_name)
            node = node.parent
        return ".".join(reversed(names))


class NoBody(StrictInput):
    """The body of a write that takes none: nothing, ``{}``, or refused."""


def refuse_unknown_fields(data: Mapping, *, accepted: frozenset[str], path: str = "") -> None:
    """UnknownFieldsProblem naming the keys of ``data`` outside ``accepted``; nothing if none."""
    unknown = [key for key in data if key not in accepted]
    if not unknown:
        return
    prefix = f"{path}." if path else ""
    shown = [f"{prefix}{str(key)[:UNKNOWN_NAME_CHARS]}" for key in unknown[:UNKNOWN_NAMES_SHOWN]]
    takes = ", ".join(sorted(accepted)) if accepted else "no fields"
    raise UnknownFieldsProblem(
        f"Unknown field{'s' if len(unknown) > 1 else ''} {', '.join(shown)}"
        f"{' and more' if len(unknown) > len(shown) else ''}: "
        f"{'this object' if path else 'this request'} takes {takes}",
        fields=shown,
        accepted=sorted(accepted),
    )


def text_filter(request: Request, name: str) -> str | None:
    """The query parameter ``name``, a free-text filter. NUL characters are refused (400) like in
    JSON bodies: PostgreSQL cannot compare text with them and the query would fail (a 500)."""
    value = request.query_params.get(name)
    if value is not None and "\x00" in value:
        raise ValidationProblem(
            gettext("One or more fields are invalid"),
            errors={name: ["Null characters are not allowed."]},
        )
    return value
