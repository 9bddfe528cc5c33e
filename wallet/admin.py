"""Back office: the ledger and its configuration, read-only (docs/api-errors.md).

Nothing here can change money or limits: corrections are reversing transactions (staff
API), rates come from the staff API or ``manage.py load_rates``, caps from the staff API,
limits, time-outs and self-exclusions from the operator and player APIs; all of them are
audited.
"""

from django.contrib import admin, messages

from gin_platform.admin.audited import ReadOnlyAdmin
from gin_platform.admin.changelist import CsvExportMixin, DateRangeFilter, moment, money
from gin_platform.http.problems import Problem
from wallet import services
from wallet.models import (
    Account,
    ApprovalRequest,
    CashierCaps,
    ExchangeRate,
    LedgerEntry,
    LedgerTransaction,
    OperatorWallet,
    PlayerLimit,
    PlayerLimitChange,
    SelfExclusion,
    WalletCall,
)


class LedgerEntryInline(admin.TabularInline):
    model = LedgerEntry
    extra = 0
    can_delete = False
    fields = ("account", "currency", "amount", "balance_after", "component", "player")
    readonly_fields = fields
    show_change_link = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Account)
class AccountAdmin(ReadOnlyAdmin):
    list_display = ("id", "kind", "currency", "balance", "operator", "player", "game_ref")
    list_filter = ("kind", "currency", "operator")
    search_fields = ("game_ref", "player__external_ref")


@admin.register(LedgerTransaction)
class LedgerTransactionAdmin(CsvExportMixin, ReadOnlyAdmin):
    list_display = ("id", "created_at", "kind", "reference", "amount", "currency", "game_ref")
    list_filter = (("created_at", DateRangeFilter), "kind", "currency", "operator")
    csv_select_related = ("operator",)
    csv_columns = (
        ("id", lambda t: t.pk),
        ("created_at", lambda t: moment(t.created_at)),
        ("operator", lambda t: t.operator.slug),
        ("kind", lambda t: t.kind),
        ("reference", lambda t: t.reference),
        ("amount", lambda t: money(t.amount, t.currency)),
        ("currency", lambda t: t.currency),
        ("player_id", lambda t: t.player_id or ""),
        ("game_ref", lambda t: t.game_ref or ""),
        ("reverses_id", lambda t: t.reverses_id or ""),
        ("actor_type", lambda t: t.actor_type),
        ("actor_id", lambda t: t.actor_id),
    )
    search_fields = ("reference", "game_ref")
    date_hierarchy = "created_at"
    inlines = (LedgerEntryInline,)


@admin.register(LedgerEntry)
class LedgerEntryAdmin(CsvExportMixin, ReadOnlyAdmin):
    list_display = ("id", "transaction", "account", "currency", "amount", "component")
    list_filter = (("created_at", DateRangeFilter), "currency", "component", "account__kind")
    csv_select_related = ("transaction", "account")
    csv_columns = (
        ("id", lambda e: e.pk),
        ("created_at", lambda e: moment(e.created_at)),
        ("transaction_id", lambda e: e.transaction_id),
        ("transaction_kind", lambda e: e.transaction.kind),
        ("reference", lambda e: e.transaction.reference),
        ("account_id", lambda e: e.account_id),
        ("account_kind", lambda e: e.account.kind),
        ("currency", lambda e: e.currency),
        ("amount", lambda e: money(e.amount, e.currency)),
        ("balance_after", lambda e: money(e.balance_after, e.currency)),
        ("component", lambda e: e.component),
        ("player_id", lambda e: e.player_id or ""),
    )
    search_fields = ("transaction__reference",)


@admin.register(ExchangeRate)
class ExchangeRateAdmin(ReadOnlyAdmin):
    list_display = ("base", "quote", "rate", "as_of", "source", "created_at")
    list_filter = ("base", "quote", "source")


@admin.register(CashierCaps)
class CashierCapsAdmin(ReadOnlyAdmin):
    list_display = ("operator", "currency", *CashierCaps.FIELDS, "updated_at")
    list_filter = ("operator", "currency")


@admin.register(PlayerLimit)
class PlayerLimitAdmin(ReadOnlyAdmin):
    list_display = (
        "player",
        "kind",
        "period",
        "currency",
        "amount",
        "pending_amount",
        "pending_effective_at",
    )
    list_filter = ("kind", "period")


@admin.register(PlayerLimitChange)
class PlayerLimitChangeAdmin(ReadOnlyAdmin):
    list_display = (
        "player",
        "kind",
        "period",
        "old_amount",
        "new_amount",
        "created_at",
        "effective_at",
        "actor_type",
        "actor_id",
    )
    list_filter = ("kind", "period")


@admin.register(SelfExclusion)
class SelfExclusionAdmin(ReadOnlyAdmin):
    list_display = ("player", "kind", "starts_at", "ends_at", "reason", "actor_type")
    list_filter = ("kind",)


@admin.register(OperatorWallet)
class OperatorWalletAdmin(ReadOnlyAdmin):
    list_display = ("operator", "mode", "base_url", "timeout_ms", "updated_at")
    list_filter = ("mode",)


@admin.register(WalletCall)
class WalletCallAdmin(ReadOnlyAdmin):
    """Seamless wallet calls: what the operator's wallet was asked, and what it answered."""

    list_display = (
        "id",
        "kind",
        "status",
        "player",
        "amount",
        "currency",
        "reason",
        "attempt_count",
        "last_error",
        "created_at",
        "acknowledged_at",
    )
    list_filter = ("kind", "status", "reason")
    search_fields = ("id", "purpose")


@admin.register(ApprovalRequest)
class ApprovalRequestAdmin(ReadOnlyAdmin):
    """Four-eyes requests (docs/backoffice.md): approve or reject the selected ones, through
    the same services as the staff API (the proposer cannot decide their own; each decision
    is audited by the service). Proposals are made over the staff API."""

    list_display = (
        "id",
        "kind",
        "operator",
        "status",
        "reason",
        "proposed_by",
        "proposed_at",
        "decided_by",
        "decided_at",
        "result_ref",
    )
    list_filter = ("status", "kind", "operator")
    list_select_related = ("operator", "proposed_by", "decided_by")
    actions = ("approve_selected", "reject_selected")

    def has_decide_permission(self, request) -> bool:
        user = request.user
        return any(user.has_perm(f"wallet.approve_{kind}") for kind in ApprovalRequest.Kind)

    def _decide(self, request, queryset, decide, verb: str) -> None:
        done = 0
        for approval in queryset.order_by("pk"):
            try:
                getattr(services, decide)(approval=approval, user=request.user)
                done += 1
            except Problem as problem:
                self.message_user(request, f"#{approval.pk}: {problem.detail}", messages.ERROR)
        if done:
            self.message_user(request, f"{done} request(s) {verb}", messages.SUCCESS)

    @admin.action(description="Approve and execute the selected requests", permissions=["decide"])
    def approve_selected(self, request, queryset) -> None:
        self._decide(request, queryset, "approval_approve", "approved and executed")

    @admin.action(description="Reject the selected requests", permissions=["decide"])
    def reject_selected(self, request, queryset) -> None:
        self._decide(request, queryset, "approval_reject", "rejected")
