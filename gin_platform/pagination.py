"""Cursor pagination for every list (stable under inserts, unlike page numbers)."""

from rest_framework.pagination import CursorPagination


class CreatedCursorPagination(CursorPagination):
    ordering = ("-created_at", "-pk")
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200
