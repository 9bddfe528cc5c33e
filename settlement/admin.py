"""Back office: statements of settled games, daily reports, reconciliation runs (read-only)."""

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join

from gin_platform.admin.audited import ReadOnlyAdmin
from gin_platform.admin.changelist import CsvExportMixin, DateRangeFilter, moment, money
from gin_platform.admin.tenancy import PlayerAdmin
from gin_platform.http.problems import Problem
from gin_platform.models import Operator, Player
from gin_platform.staff.scope import operator_scope
from settlement import backoffice, charts, reports
from settlement.models import DailyReport, ReconciliationRun, Settlement


@admin.register(Settlement)
class SettlementAdmin(CsvExportMixin, ReadOnlyAdmin):
    list_display = ("match", "operator", "variant", "currency", "escrow_total", "fee", "settled_at")
    # operator__is_sandbox: the sandboxes' test games (docs/api.md "Sandbox") apart.
    list_filter = (
        ("settled_at", DateRangeFilter),
        "operator__is_sandbox",
        "operator",
        "variant",
        "currency",
        "is_practice",
    )
    date_hierarchy = "settled_at"
    csv_select_related = ("operator",)
    csv_columns = (
        ("match_id", lambda s: s.match_id),
        ("operator", lambda s: s.operator.slug),
        ("mode", lambda s: s.operator.mode),
        ("variant", lambda s: s.variant),
        ("currency", lambda s: s.currency),
        ("is_practice", lambda s: s.is_practice),
        ("escrow_total", lambda s: money(s.escrow_total, s.currency)),
        ("fee", lambda s: money(s.fee, s.currency)),
        ("payouts", lambda s: money(s.escrow_total - s.fee, s.currency)),
        ("settled_at", lambda s: moment(s.settled_at)),
    )
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


def _scoped_operator(request):
    """None (every operator) for unscoped staff; for staff limited to some operators, the
    one named by ``?operator=<slug>`` among them, else the first of them."""
    scope = operator_scope(request.user)
    if scope is None:
        return None
    operators = Operator.objects.filter(pk__in=scope).order_by("slug")
    return operators.filter(slug=request.GET.get("operator")).first() or operators.first()


@admin.register(DailyReport)
class DailyReportAdmin(ReadOnlyAdmin):
    """Reports as the API serves them (settlement.reports), for a period chosen in the page:
    the totals per day, operator and currency, then the line of each player."""

    def changelist_view(self, request, extra_context=None):
        if not self.has_view_permission(request):
            raise PermissionDenied  # a role's view_dailyreport (docs/backoffice.md)
        error = None
        try:
            start, end = reports.parse_period(request.GET.get("from"), request.GET.get("to"))
            report = reports.daily_report(
                operator=_scoped_operator(request),
                start=start,
                end=end,
                currency=request.GET.get("currency"),
                mode=request.GET.get("mode") or "live",
            )
        except Problem as problem:
            error = problem.detail
            start, end = reports.parse_period(None, None)
            report = reports.DailyReport(start=start, end=end)
        context = {
            **self.admin_site.each_context(request),
            "title": "Daily reports",
            "opts": self.model._meta,
            "charts": charts.report_charts(report),
            "totals": [reports.totals_dict(row) for row in report.totals],
            "players": [reports.player_dict(row) for row in report.players],
            "start": start,
            "end": end,
            "error": error,
            **(extra_context or {}),
        }
        return TemplateResponse(request, "admin/settlement/daily_report.html", context)


# The player page reads the wallet and games too, which gin_platform may not import: the
# Player admin is registered again here with the page added (settlement.backoffice).
admin.site.unregister(Player)


@admin.register(Player)
class PlayerPageAdmin(PlayerAdmin):
    """The Player admin plus its read-only player page, linked from the change page and
    the list: balances, ledger, matches and hands, limits, sessions, webhooks, audit."""

    change_form_template = "admin/settlement/player_change_form.html"
    list_display = (*PlayerAdmin.list_display, "page_link")  # type: ignore[assignment]  # PlayerAdmin's is typed as its own 6 names (gin_platform/admin/tenancy.py)

    def get_urls(self):
        page = path(
            "<path:object_id>/page/",
            self.admin_site.admin_view(self.player_page_view),
            name="platform_player_page",
        )
        return [page, *super().get_urls()]

    @admin.display(description="page")
    def page_link(self, obj: Player) -> str:
        return format_html(
            '<a href="{}">player page</a>', reverse("admin:platform_player_page", args=[obj.pk])
        )

    def player_page_view(self, request, object_id: str):
        player = self.get_object(request, object_id)
        if player is None:
            raise Http404(f"No player {object_id}")
        if not self.has_view_permission(request, player):
            raise PermissionDenied
        context = {
            **self.admin_site.each_context(request),
            "title": f"Player {player.external_ref} ({player.operator.slug})",
            "opts": self.model._meta,
            **backoffice.player_page(player=player),
        }
        return TemplateResponse(request, "admin/settlement/player_page.html", context)
