"""Changelist tools for the back office: a from/to date filter and an "Export CSV" link
that downloads exactly the filtered changelist (docs/settlement.md "Back office pages").

- ``DateRangeFilter``: ``list_filter = (("created_at", DateRangeFilter), ...)`` adds two
  dates, ``<field>_from`` and ``<field>_to`` (ISO dates, UTC; both days included).
- ``CsvExportMixin``: a ModelAdmin with ``csv_columns`` (name -> function of a row) gets
  ``<changelist>/export.csv``, linked from the changelist. It exports every row the
  changelist's filters, search and ordering select (not only the page shown), as RFC 4180
  text (CRLF line ends, quoting where needed), streamed in chunks, amounts as decimal
  strings in their currency's decimals (``money``), no cell able to start a spreadsheet
  formula (``safe_cell``). Each export writes an audit row: who exported which filters.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from django.contrib import admin
from django.contrib.admin.options import IncorrectLookupParameters
from django.core.exceptions import PermissionDenied
from django.db import models
from django.http import HttpResponseBadRequest, StreamingHttpResponse
from django.urls import path
from django.utils import timezone

from gin_platform.audit import audit_record_for
from gin_platform.money import to_decimal_string
from gin_platform.tenancy.principals import actor_for

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
CHUNK_ROWS = 2000
EXPORT_ACTION = "admin.csv_exported"

if TYPE_CHECKING:
    # What CsvExportMixin is put before: a ModelAdmin, whose changelist and URLs it extends.
    ModelAdminBase = admin.ModelAdmin[Any]
else:
    ModelAdminBase = object


def safe_cell(value: object) -> str:
    """Neutralise spreadsheet formula injection; numbers (even negative) stay numbers."""
    text = "" if value is None else str(value)
    if text.startswith(FORMULA_PREFIXES) and not _is_number(text):
        return "'" + text
    return text


def _is_number(text: str) -> bool:
    try:
        Decimal(text)
    except InvalidOperation:
        return False
    return text.strip() == text and text.lstrip("-").replace(".", "", 1).isdigit()


def money(minor: int | None, currency: str) -> str:
    """An amount as a decimal string in ``currency``'s decimals; the bare integer when the
    row names no currency; "" for none."""
    if minor is None:
        return ""
    return to_decimal_string(minor, currency) if currency else str(minor)


def moment(value: datetime | None) -> str:
    return "" if value is None else value.astimezone(UTC).isoformat()


# --- Date range filter ----------------------------------------------------------------------
class DateRangeFilter(admin.FieldListFilter):
    """From and to dates (UTC, both included) on one date-time field."""

    template = "admin/gin_platform/date_range_filter.html"

    def __init__(self, field, request, params, model, model_admin, field_path):
        self.parameter_from = f"{field_path}_from"
        self.parameter_to = f"{field_path}_to"
        super().__init__(field, request, params, model, model_admin, field_path)
        self.title = f"{getattr(field, 'verbose_name', field_path)} (UTC dates)"

    def expected_parameters(self) -> list[str | None]:
        return [self.parameter_from, self.parameter_to]

    def value(self, parameter: str) -> str:
        raw = self.used_parameters.get(parameter)
        if isinstance(raw, list):  # the parameter's values: the last one counts
            raw = raw[-1] if raw else None
        return raw if isinstance(raw, str) else ""

    def bounds(self) -> tuple[datetime | None, datetime | None]:
        """[start, end) in UTC: the start of the from day, the end of the to day."""
        try:
            start = self._day(self.value(self.parameter_from))
            end = self._day(self.value(self.parameter_to))
        except ValueError as exc:
            raise IncorrectLookupParameters(exc) from exc
        return start, None if end is None else end + timedelta(days=1)

    @staticmethod
    def _day(raw: str) -> datetime | None:
        if not raw:
            return None
        return datetime.combine(date.fromisoformat(raw), time.min, tzinfo=UTC)

    def queryset(self, request, queryset):
        start, end = self.bounds()
        if start is not None:
            queryset = queryset.filter(**{f"{self.field_path}__gte": start})
        if end is not None:
            queryset = queryset.filter(**{f"{self.field_path}__lt": end})
        return queryset

    def choices(self, changelist) -> Iterator[dict[str, Any]]:  # type: ignore[override]  # its own template's keys, not the stubs' TypedDict of a FieldListFilter's choices
        """One "choice": the form's values, the other filters kept as hidden fields, and
        the link that clears this filter."""
        mine = set(self.expected_parameters())
        hidden = [
            (key, value)
            for key, values in changelist.params.items()
            if key not in mine
            for value in (values if isinstance(values, list) else [values])
        ]
        yield {
            "selected": bool(self.value(self.parameter_from) or self.value(self.parameter_to)),
            "parameter_from": self.parameter_from,
            "parameter_to": self.parameter_to,
            "value_from": self.value(self.parameter_from),
            "value_to": self.value(self.parameter_to),
            "hidden": hidden,
            "clear_query_string": changelist.get_query_string(remove=list(mine)),
            "display": "clear",
        }


# --- CSV export -------------------------------------------------------------------------
class _Echo:
    """A file-like object whose write() hands the line back (for csv.writer streaming)."""

    def write(self, value: str) -> str:
        return value


class CsvExportMixin(ModelAdminBase):
    """``csv_columns``: ``(("name", lambda row: ...), ...)``, the export's columns in order.
    ``csv_select_related``: relations each row reads (one query per chunk, not per row)."""

    csv_columns: tuple[tuple[str, Callable[[Any], object]], ...] = ()
    csv_select_related: tuple[str, ...] = ()
    change_list_template = "admin/gin_platform/csv_change_list.html"

    def get_urls(self):
        opts = self.model._meta
        export = path(
            "export.csv",
            self.admin_site.admin_view(self.csv_export_view),
            name=f"{opts.app_label}_{opts.model_name}_export_csv",
        )
        return [export, *super().get_urls()]

    def csv_queryset(self, request) -> models.QuerySet:
        """Exactly the rows the changelist selects with this request's filters, search and
        ordering, every page of them."""
        changelist = self.get_changelist_instance(request)
        queryset = changelist.get_queryset(request)
        if self.csv_select_related:
            queryset = queryset.select_related(*self.csv_select_related)
        return queryset

    def csv_rows(self, queryset: models.QuerySet) -> Iterator[list[str]]:
        yield [name for name, _ in self.csv_columns]
        for row in queryset.iterator(chunk_size=CHUNK_ROWS):
            yield [safe_cell(column(row)) for _, column in self.csv_columns]

    def csv_export_view(self, request):
        if not self.has_view_permission(request):
            raise PermissionDenied
        try:
            queryset = self.csv_queryset(request)
        except IncorrectLookupParameters as exc:
            return HttpResponseBadRequest(f"Invalid filters: {exc}", content_type="text/plain")
        opts = self.model._meta
        filters = {key: request.GET.getlist(key) for key in sorted(request.GET)}
        audit_record_for(
            actor=actor_for(request.user),
            action=EXPORT_ACTION,
            object_type=opts.label_lower,
            object_id="changelist",
            operator=None,
            data={
                "username": request.user.get_username(),
                "filters": filters,
                "columns": [name for name, _ in self.csv_columns],
            },
        )
        writer = csv.writer(_Echo(), lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
        response = StreamingHttpResponse(
            (writer.writerow(row) for row in self.csv_rows(queryset)),
            content_type="text/csv; charset=utf-8",
        )
        stamp = timezone.now().strftime("%Y%m%dT%H%M%SZ")
        response["Content-Disposition"] = (
            f'attachment; filename="{opts.app_label}-{opts.model_name}-{stamp}.csv"'
        )
        return response
