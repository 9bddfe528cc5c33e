"""The CSV downloads of a player's history (``?format=csv`` or ``Accept: text/csv``): the
whole window, never a page of it, streamed as it is read (one keyset query per batch of
rows, ``protection.history.newest_first``), newest first like the pages. RFC 4180 text
(CRLF line ends, quoting where needed), amounts as decimal strings with a currency column,
no cell able to start a spreadsheet formula."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from django.http import StreamingHttpResponse

from gin_platform.admin.changelist import safe_cell  # the admin's CSV rule, as settlement's
from gin_platform.http.renderers import CSV_CONTENT_TYPE
from protection import history
from protection.api import history_presenters as presenters

if TYPE_CHECKING:
    from django.db.models import QuerySet

    from games.models import Match
    from gin_platform.models import Player
    from wallet.models import LedgerEntry


class _Line:
    """A file-like ``write`` that hands back the line ``csv.writer`` writes."""

    def write(self, value: str) -> str:
        return value


def _download(
    name: str, columns: Sequence[str], batches: Iterable[Iterable[dict[str, Any]]]
) -> StreamingHttpResponse:
    writer = csv.writer(_Line(), lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)

    def text() -> Iterator[str]:
        yield writer.writerow(columns)
        for batch in batches:
            yield "".join(
                writer.writerow([safe_cell(row[column]) for column in columns]) for row in batch
            )

    response = StreamingHttpResponse(text(), content_type=CSV_CONTENT_TYPE)
    response["Content-Disposition"] = f'attachment; filename="history-{name}.csv"'
    return response


def matches_download(*, player: Player, matches: QuerySet[Match]) -> StreamingHttpResponse:
    batches = (
        map(presenters.match_csv_row, history.match_history_rows(player=player, matches=batch))
        for batch in history.newest_first(matches)
    )
    return _download("matches", presenters.MATCH_COLUMNS, batches)


def movements_download(*, movements: QuerySet[LedgerEntry]) -> StreamingHttpResponse:
    batches = (
        map(presenters.movement_csv_row, history.movement_rows(batch))
        for batch in history.newest_first(movements)
    )
    return _download("transactions", presenters.MOVEMENT_COLUMNS, batches)


def summary_download(summary: history.HistorySummary) -> StreamingHttpResponse:
    rows = presenters.summary_csv_rows(summary)
    return _download(f"summary-{summary.period}", presenters.SUMMARY_COLUMNS, [rows])
