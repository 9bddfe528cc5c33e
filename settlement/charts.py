"""The daily report as pictures: one server-rendered SVG per operator and currency, with a
panel per figure (turnover, fees = GGR, NGR, games, active players) and one point per UTC
day of the period (a day without games is a point at zero). No JavaScript, no external
file: the admin page embeds the SVG as it is (docs/settlement.md "Back office pages").

Every point carries its day and value (``data-day``, ``data-value``, and a ``<title>``
tooltip), so what the line shows can be read exactly, and checked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, timedelta

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from gin_platform.money import to_decimal_string
from settlement.reports import DailyReport

WIDTH, PANEL_HEIGHT, GAP = 760, 110, 34
LEFT, RIGHT, TOP = 90, 20, 26
# (figure, label, colour, is money)
FIGURES = (
    ("turnover", "Turnover", "#2b6cb0", True),
    ("fees", "Fees (GGR)", "#2f855a", True),
    ("ngr", "NGR", "#6b46c1", True),
    ("games", "Games", "#c05621", False),
    ("active_players", "Active players", "#b83280", False),
)


@dataclass
class Series:
    """One operator and currency: each figure's value per day of the period."""

    operator: str
    currency: str
    mode: str
    days: list[date]
    values: dict[str, list[int]] = field(default_factory=dict)

    def label(self, figure: str, value: int) -> str:
        is_money = next(money for name, _, _, money in FIGURES if name == figure)
        return to_decimal_string(value, self.currency) if is_money else str(value)


def period_days(report: DailyReport) -> list[date]:
    """Every UTC day the period ``[start, end)`` touches."""
    first = report.start.astimezone(UTC).date()
    last = (report.end.astimezone(UTC) - timedelta(microseconds=1)).date()
    return [first + timedelta(days=n) for n in range((last - first).days + 1)]


def report_series(report: DailyReport) -> list[Series]:
    """One series per operator and currency in the report, a value for every day."""
    days = period_days(report)
    index = {day: n for n, day in enumerate(days)}
    series: dict[tuple[str, str], Series] = {}

    def of(operator: str, currency: str, mode: str) -> Series:
        key = (operator, currency)
        if key not in series:
            series[key] = Series(
                operator, currency, mode, days, {name: [0] * len(days) for name, *_ in FIGURES}
            )
        return series[key]

    for row in report.totals:
        line = of(row.operator, row.currency, row.mode)
        n = index[row.day]
        line.values["turnover"][n] += row.turnover
        line.values["fees"][n] += row.ggr
        line.values["ngr"][n] += row.ngr
        line.values["games"][n] += row.games
    for player in report.players:
        of(player.operator, player.currency, player.mode).values["active_players"][
            index[player.day]
        ] += 1
    return [series[key] for key in sorted(series)]


def _scale(values: list[int]) -> tuple[int, int]:
    low, high = min(0, *values), max(0, *values)
    return low, high if high > low else low + 1


def series_svg(series: Series) -> SafeString:
    """The series as one SVG: a panel per figure, one circle per day on its line."""
    days = series.days
    plot_width = WIDTH - LEFT - RIGHT
    step = plot_width / max(len(days) - 1, 1)
    height = TOP + len(FIGURES) * (PANEL_HEIGHT + GAP)
    title = f"{series.operator} {series.currency}" + (" (test)" if series.mode == "test" else "")
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="report-chart" role="img" '
        f'width="100%" style="max-width:{WIDTH}px;height:auto" viewBox="0 0 {WIDTH} {height}" '
        f'data-operator="{escape(series.operator)}" data-currency="{escape(series.currency)}" '
        f'aria-label="Daily figures of {escape(title)}" font-family="sans-serif" font-size="11">',
        f"<title>Daily figures of {escape(title)}</title>",
        f'<text x="{LEFT}" y="16" font-size="13" font-weight="bold">{escape(title)}</text>',
    ]
    for number, (figure, label, colour, _) in enumerate(FIGURES):
        values = series.values[figure]
        low, high = _scale(values)
        top = TOP + number * (PANEL_HEIGHT + GAP) + 14
        bottom = top + PANEL_HEIGHT - 14

        def x(n: int) -> float:
            return LEFT + (n * step if len(days) > 1 else plot_width / 2)

        def y(value: int, low=low, high=high, top=top, bottom=bottom) -> float:
            return bottom - (value - low) / (high - low) * (bottom - top)

        parts += [
            f'<g class="panel" data-figure="{figure}">',
            f'<text x="{LEFT}" y="{top - 4:.1f}" font-weight="bold" fill="{colour}">'
            f"{escape(label)}</text>",
            f'<line x1="{LEFT}" y1="{bottom:.1f}" x2="{WIDTH - RIGHT}" y2="{bottom:.1f}" '
            f'stroke="#999"/>',
            f'<line x1="{LEFT}" y1="{top:.1f}" x2="{LEFT}" y2="{bottom:.1f}" stroke="#999"/>',
            f'<text x="{LEFT - 6}" y="{y(high):.1f}" text-anchor="end" dominant-baseline="middle">'
            f"{escape(series.label(figure, high))}</text>",
            f'<text x="{LEFT - 6}" y="{y(low):.1f}" text-anchor="end" dominant-baseline="middle">'
            f"{escape(series.label(figure, low))}</text>",
        ]
        if low < 0:
            parts.append(
                f'<line x1="{LEFT}" y1="{y(0):.1f}" x2="{WIDTH - RIGHT}" y2="{y(0):.1f}" '
                f'stroke="#ccc" stroke-dasharray="3 3"/>'
            )
        points = " ".join(f"{x(n):.1f},{y(value):.1f}" for n, value in enumerate(values))
        parts.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{points}"/>'
        )
        for n, (day, value) in enumerate(zip(days, values, strict=True)):
            shown = series.label(figure, value)
            parts.append(
                f'<circle class="point" cx="{x(n):.1f}" cy="{y(value):.1f}" r="3" '
                f'fill="{colour}" data-day="{day.isoformat()}" data-value="{escape(shown)}">'
                f"<title>{day.isoformat()}: {escape(label)} {escape(shown)}</title></circle>"
            )
        parts += [
            f'<text x="{LEFT}" y="{bottom + 14:.1f}">{days[0].isoformat()}</text>',
            f'<text x="{WIDTH - RIGHT}" y="{bottom + 14:.1f}" text-anchor="end">'
            f"{days[-1].isoformat()}</text>",
            "</g>",
        ]
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 - every text above is escaped or a number


def report_charts(report: DailyReport) -> list[dict[str, object]]:
    """The admin page's charts: each operator and currency with its SVG."""
    return [
        {"operator": s.operator, "currency": s.currency, "mode": s.mode, "svg": series_svg(s)}
        for s in report_series(report)
    ]
