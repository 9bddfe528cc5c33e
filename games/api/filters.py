"""Filter serializers of the games endpoints: their query parameters, parsed here and never
by hand in a view (``?active=``, ``?status=``, ``?room=``, ``?after=``, ``?limit=``).

Query parameters are strings. These fields read one exactly as sent (the last value when it
is repeated; an empty value is a value, not an absent parameter) and refuse what no
database column can hold, with the API's usual 400 ``validation-error`` naming the field.
The views also pass these serializers to ``extend_schema(parameters=...)``, so the schema
documents the same parameters.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from games.models import Match
from games.realtime.longpoll import LONG_POLL_MAX_SECONDS
from games.selectors import EVENTS_PAGE_DEFAULT, EVENTS_PAGE_MAX
from gin_platform.tenancy.selectors import MAX_ID


class _QueryField(serializers.Field):
    def get_value(self, dictionary):
        return dictionary.get(self.field_name, serializers.empty)


@extend_schema_field(OpenApiTypes.INT)
class QueryIntegerField(_QueryField):
    """A 64-bit integer (else 400 ``must be a 64-bit integer``)."""

    def to_internal_value(self, data: Any) -> int:
        try:
            value = int(data)
        except (TypeError, ValueError):
            value = None
        if value is None or abs(value) > MAX_ID:
            raise serializers.ValidationError("must be a 64-bit integer")
        return value


@extend_schema_field(OpenApiTypes.BOOL)
class QueryBooleanField(_QueryField):
    """``1``, ``true`` or ``yes`` (any case) is true; any other value is false."""

    def to_internal_value(self, data: object) -> bool:
        return str(data).lower() in ("1", "true", "yes")


class QueryChoiceField(_QueryField):
    """One of ``choices`` (else 400 naming them); an empty value is no filter (None)."""

    def __init__(self, choices, **kwargs) -> None:
        self.choices = tuple(choices)
        super().__init__(**kwargs)

    def to_internal_value(self, data: object) -> str | None:
        if data == "":
            return None
        if data not in self.choices:
            raise serializers.ValidationError(f"one of {', '.join(self.choices)}")
        return str(data)


def query_choice(choices, **kwargs) -> QueryChoiceField:
    """A QueryChoiceField whose schema lists ``choices`` as an enum."""
    schema = {"type": "string", "enum": sorted(choices)}
    field_class = extend_schema_field(schema)(type("QueryEnumField", (QueryChoiceField,), {}))
    return field_class(choices, **kwargs)


class RoomFilterInput(serializers.Serializer):
    active = QueryBooleanField(required=False, default=None, help_text="Only active (or inactive)")


class MatchFilterInput(serializers.Serializer):
    status = query_choice(Match.Status.values, required=False, default=None)
    room = QueryIntegerField(required=False, default=None)


class EventsFilterInput(serializers.Serializer):
    after = QueryIntegerField(required=False, default=0, help_text="Events after this seq")
    limit = QueryIntegerField(
        required=False, default=EVENTS_PAGE_DEFAULT, help_text=f"At most {EVENTS_PAGE_MAX}"
    )
    wait = QueryIntegerField(
        required=False,
        default=0,
        help_text="Long poll (docs/realtime.md): when no event is after `after`, hold the "
        f"request until one is, or this many seconds (at most {LONG_POLL_MAX_SECONDS}) pass",
    )

    def validate_wait(self, value: int) -> int:
        if not 0 <= value <= LONG_POLL_MAX_SECONDS:
            raise serializers.ValidationError(f"from 0 to {LONG_POLL_MAX_SECONDS} seconds")
        return value
