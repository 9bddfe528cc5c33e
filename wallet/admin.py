"""Back office: the ledger and its configuration, read-only (docs/api-errors.md).

Nothing here can change money or limits: corrections are reversing transactions (staff
API), rates come from the staff API or ``manage.py load_rates``, caps from the staff API,
limits and self-exclusions from the operator API; all of them are audited.
"""

from django.contrib import admin

from gin_platform.admin import ReadOnlyAdmin
from wallet.models import (
    Account,
    CashierCaps,
    ExchangeRate,
    LedgerEntry,
    LedgerTransaction,
    PlayerLimit,
    PlayerLimitChange,
    SelfExclusion,
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
class LedgerTransactionAdmin(ReadOnlyAdmin):
    list_display = ("id", "created_at", "kind", "reference", "amount", "currency", "game_ref")
    list_filter = ("kind", "currency", "operator")
    search_fields = ("reference", "game_ref")
    date_hierarchy = "created_at"
    inlines = (LedgerEntryInline,)


@admin.register(LedgerEntry)
class LedgerEntryAdmin(ReadOnlyAdmin):
    list_display = ("id", "transaction", "account", "currency", "amount", "component")
    list_filter = ("currency", "component", "account__kind")
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
    list_display = ("player", "starts_at", "ends_at", "reason", "actor_type")
