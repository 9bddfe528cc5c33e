"""Back office: statements of settled games, daily reports, reconciliation runs (read-only)."""

from django.contrib import admin
from django.template.response import TemplateResponse
from django.utils.html import format_html_join

from gin_platform.admin import ReadOnlyAdmin
from gin_platform.problems import Problem
from settlement import reports
from settlement.models import DailyReport, ReconciliationRun, Settlement


@admin.register(Settlement)
class SettlementAdmin(ReadOnlyAdmin):
    list_display = ("match", "operator", "variant", "currency", "escrow_total", "fee", "settled_at")
    list_filter = ("operator", "variant", "currency", "is_practice")
    date_hierarchy = "settled_at"
    readonly_fields = ("statement_lines",)

    @admin.display(description="lines")
    def statement_lines(self, obj: Settlement):
        return format_html_join(
            "\n",
            "<div>seat {} · {} · {} {}</div>",
            (
                (line["seat"], line["component"], line["amount"], line["currency"])
                for line in obj.statement.get("lines", [])
            ),
        )


@admin.register(ReconciliationRun)
class ReconciliationRunAdmin(ReadOnlyAdmin):
    list_display = (
        "started_at",
        "ok",
        "accounts_checked",
        "transactions_checked",
        "unsettled_games",
    )
    list_filter = ("ok",)
    readonly_fields = ("report_lines",)

    @admin.display(description="report")
    def report_lines(self, obj: ReconciliationRun):
        return format_html_join("\n", "<div>{}</div>", ((line,) for line in obj.report["lines"]))


@admin.register(DailyReport)
class DailyReportAdmin(ReadOnlyAdmin):
    """Reports as the API serves them (settlement.reports), for a period chosen in the page:
    the totals per day, operator and currency, then the line of each player."""

    def changelist_view(self, request, extra_context=None):
        error = None
        try:
            start, end = reports.parse_period(request.GET.get("from"), request.GET.get("to"))
            report = reports.daily_report(
                operator=None, start=start, end=end, currency=request.GET.get("currency")
            )
        except Problem as problem:
            error = problem.detail
            start, end = reports.parse_period(None, None)
            report = reports.DailyReport(start=start, end=end)
        context = {
            **self.admin_site.each_context(request),
            "title": "Daily reports",
            "opts": self.model._meta,
            "totals": [reports.totals_dict(row) for row in report.totals],
            "players": [reports.player_dict(row) for row in report.players],
            "start": start,
            "end": end,
            "error": error,
            **(extra_context or {}),
        }
        return TemplateResponse(request, "admin/settlement/daily_report.html", context)
