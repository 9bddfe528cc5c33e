"""The window a player's history covers (docs/player-protection.md "History"): a rolling
365 days back from the moment of the request, ``[now - 365 days, now)``. Older rows are
never served, whatever a cursor says; and the rows of a window read newest first in
batches, for the CSV downloads of the whole window."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TypeVar

from django.db.models import Model, Q, QuerySet
from django.utils import timezone

HISTORY_DAYS = 365
# Rows per query of a download: each batch is one keyset query, so a long download keeps no
# database cursor open between the chunks it writes.
BATCH_ROWS = 500

M = TypeVar("M", bound=Model)


@dataclass(frozen=True)
class HistoryWindow:
    """``[start, end)``, UTC."""

    start: datetime
    end: datetime


def history_window(*, now: datetime | None = None) -> HistoryWindow:
    """The 365 days up to ``now`` (by default the present moment)."""
    end = now or timezone.now()
    return HistoryWindow(start=end - timedelta(days=HISTORY_DAYS), end=end)


def newest_first(rows: QuerySet[M], *, size: int = BATCH_ROWS) -> Iterator[list[M]]:
    """Every row of ``rows`` (a model with ``created_at``), newest first (then by key),
    ``size`` rows at a time; the order the API's pages list them in."""
    ordered = rows.order_by("-created_at", "-pk")
    after: tuple[datetime, object] | None = None
    while True:
        page = ordered
        if after is not None:
            page = ordered.filter(
                Q(created_at__lt=after[0]) | Q(created_at=after[0], pk__lt=after[1])
            )
        batch = list(page[:size])
        if batch:
            yield batch
        if len(batch) < size:
            return
        after = (batch[-1].created_at, batch[-1].pk)  # type: ignore[attr-defined]  # the rows' model has created_at (the docstring's contract)
