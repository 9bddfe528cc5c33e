"""Cursor pagination for every list (stable under inserts, unlike page numbers).

A cursor is opaque to clients but only base64 to us: its position is checked against the
ordering field before it reaches a query, so a forged cursor (``p=<NUL>``, ``p=yesterday``)
is 404 "Invalid cursor" like any other bad cursor, never a database error (500).

The OpenAPI document's ``next`` and ``previous`` examples are links as the paginator builds
them (absolute, ``format: uri``), not DRF's default, which ends in a stray quote.
"""

from base64 import b64encode
from typing import Any
from urllib.parse import urlencode

from django.core.exceptions import FieldDoesNotExist, ValidationError
from rest_framework.exceptions import NotFound
from rest_framework.pagination import CursorPagination

EXAMPLE_LIST_URL = "https://api.example.org/api/v1/players"
EXAMPLE_POSITION = "2026-11-29 22:40:01.204233+00:00"


class CheckedCursorPagination(CursorPagination):
    """DRF's cursor pagination with the decoded position validated by the model field."""

    _model = None

    def paginate_queryset(self, queryset, request, view=None):
        self._model = queryset.model
        return super().paginate_queryset(queryset, request, view)

    def decode_cursor(self, request):
        cursor = super().decode_cursor(request)
        if cursor is None or cursor.position is None:
            return cursor
        if "\x00" in cursor.position or not self._position_is_valid(cursor.position):
            raise NotFound(self.invalid_cursor_message)
        return cursor

    def get_paginated_response_schema(self, schema: dict) -> dict:
        paginated = super().get_paginated_response_schema(schema)
        links = paginated["properties"]
        links["next"]["example"] = self.example_link(position=EXAMPLE_POSITION)
        links["next"]["description"] = "The next page, this list with a cursor; null on the last"
        links["previous"]["example"] = self.example_link(position=EXAMPLE_POSITION, reverse=True)
        links["previous"]["description"] = "The page before; null on the first"
        return paginated

    def example_link(self, *, position: str, reverse: bool = False) -> str:
        """A link to another page of ``EXAMPLE_LIST_URL``, its cursor encoded as DRF's
        ``encode_cursor`` encodes it (URL-encoded tokens, then base64)."""
        tokens: dict[str, Any] = {"r": "1"} if reverse else {}
        tokens["p"] = position
        cursor = b64encode(urlencode(tokens, doseq=True).encode("ascii")).decode("ascii")
        return f"{EXAMPLE_LIST_URL}?{urlencode({self.cursor_query_param: cursor})}"

    def _position_is_valid(self, position: str) -> bool:
        if self._model is None:
            return True
        name = self.ordering[0].lstrip("-")
        try:
            self._model._meta.get_field(name).to_python(position)
        except FieldDoesNotExist:
            return True  # an annotation: nothing to check it against
        except (ValidationError, ValueError, TypeError, OverflowError):
            return False
        return True


class CreatedCursorPagination(CheckedCursorPagination):
    ordering = ("-created_at", "-pk")
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200
