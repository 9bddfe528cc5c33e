"""Cursor pagination for every list (stable under inserts, unlike page numbers).

A cursor is opaque to clients but only base64 to us: its position is checked against the
ordering field before it reaches a query, so a forged cursor (``p=<NUL>``, ``p=yesterday``)
is 404 "Invalid cursor" like any other bad cursor, never a database error (500).
"""

from django.core.exceptions import FieldDoesNotExist, ValidationError
from rest_framework.exceptions import NotFound
from rest_framework.pagination import CursorPagination


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
