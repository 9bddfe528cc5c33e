"""Back office: statements of settled games, reconciliation runs (read-only)."""

from django.contrib import admin
from django.utils.html import format_html_join

from gin_platform.admin import ReadOnlyAdmin
from settlement.models import ReconciliationRun, Settlement


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
