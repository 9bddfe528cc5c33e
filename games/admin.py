"""Back-office admin for games.

Rooms and tables are editable (name, active, status; stakes and rules are fixed once players
may have sat down under them). Matches, seats, hands and events are read-only records. Staff
never see a live hand's secrets: the server seed, the stored state (both hands, stock order)
and the payload of events (a stock draw's card) are shown only once the hand is over.
"""

from django.contrib import admin

from games.models import Hand, HandEvent, HouseBot, Match, Room, Seat, Table
from games.turn_clock import TURN_CLOCK_OPTIONS
from gin_platform.admin.audited import AuditedModelAdmin, ReadOnlyAdmin
from gin_platform.admin.changelist import CsvExportMixin, DateRangeFilter, moment, money


class TableInline(admin.TabularInline):
    model = Table
    extra = 0
    fields = ("status", "created_at")
    readonly_fields = ("created_at",)
    can_delete = False


@admin.register(Room)
class RoomAdmin(AuditedModelAdmin):
    list_display = (
        "name",
        "operator",
        "purpose",
        "variant",
        "currency",
        "is_practice",
        "target",
        "stake",
        "fee_bps",
        "active",
    )
    list_filter = ("operator", "purpose", "variant", "is_practice", "active", "currency")
    search_fields = ("name",)
    readonly_fields = (
        "operator",
        "purpose",  # R14: a tournament's room is the tournament's
        "variant",
        "rules",
        "target",
        "seats",
        "prize_table",
        "stake",
        "stake_per_point_choices",
        "cashier_min",
        "cashier_max",
        "fee_bps",
        "currency",
        "is_practice",
        "bot_enabled",
        "turn_seconds",
        *TURN_CLOCK_OPTIONS,  # R13's options, as the operator API set and checked them
        "created_at",
    )
    inlines = (TableInline,)

    def has_add_permission(self, request, obj=None) -> bool:
        return False  # rooms are created through the operator API (validated, audited)

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Table)
class TableAdmin(AuditedModelAdmin):
    list_display = ("id", "room", "status", "created_at")
    list_filter = ("status", "room__operator")
    readonly_fields = ("room", "created_at")

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    fields = ("position", "player", "state", "amount", "currency", "created_at", "left_at")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Match)
class MatchAdmin(CsvExportMixin, ReadOnlyAdmin):
    list_display = (
        "id",
        "operator",
        "variant",
        "status",
        "currency",
        "seat_count",
        "score",
        "winner_seat",
        "created_at",
        "finished_at",
    )
    list_filter = (
        ("finished_at", DateRangeFilter),
        ("created_at", DateRangeFilter),
        "status",
        "variant",
        "is_practice",
        "operator",
    )
    inlines = (SeatInline,)
    csv_select_related = ("operator",)

    @admin.display(description="score")
    def score(self, match):
        """Heads-up: each seat's hand points; three and four seats (R12): penalty totals."""
        return " / ".join(str(points) for points in match.points)

    csv_columns = (
        ("id", lambda m: m.pk),
        ("operator", lambda m: m.operator.slug),
        ("variant", lambda m: m.variant),
        ("status", lambda m: m.status),
        ("currency", lambda m: m.currency),
        ("is_practice", lambda m: m.is_practice),
        ("stake", lambda m: money(m.stake, m.currency)),
        ("stake_per_point", lambda m: money(m.stake_per_point, m.currency)),
        ("fee_bps", lambda m: m.fee_bps),
        ("seat_count", lambda m: m.seat_count),
        # Heads-up: hand points; three and four seats (R12): penalty totals.
        ("points", lambda m: "/".join(str(points) for points in m.points)),
        ("winner_seat", lambda m: "" if m.winner_seat is None else m.winner_seat),
        ("created_at", lambda m: moment(m.created_at)),
        ("finished_at", lambda m: moment(m.finished_at)),
        ("settled_at", lambda m: moment(m.settled_at)),
    )


@admin.register(Seat)
class SeatAdmin(ReadOnlyAdmin):
    list_display = ("id", "match", "position", "player", "state", "amount", "currency")
    list_filter = ("state",)
    search_fields = ("player__external_ref",)


@admin.register(Hand)
class HandAdmin(ReadOnlyAdmin):
    list_display = ("id", "match", "number", "dealer", "status", "to_act", "turn_deadline")
    list_filter = ("status",)
    fields = (
        "match",
        "number",
        "dealer",
        "status",
        "seed_commitment",
        "revealed_seed",
        "seq",
        "to_act",
        "turn_deadline",
        "outcome",
        "created_at",
        "ended_at",
    )
    readonly_fields = fields

    @admin.display(description="server seed")
    def revealed_seed(self, hand: Hand) -> str:
        return hand.server_seed if hand.is_over else "(hidden until the hand is over)"


@admin.register(HandEvent)
class HandEventAdmin(ReadOnlyAdmin):
    list_display = ("id", "match", "hand", "match_seq", "seq", "kind", "seat", "created_at")
    list_filter = ("kind",)
    fields = (
        "match",
        "hand",
        "match_seq",
        "seq",
        "state_seq",
        "kind",
        "seat",
        "actor",
        "details",
        "created_at",
    )
    readonly_fields = fields

    @admin.display(description="payload")
    def details(self, event: HandEvent):
        return event.payload if event.hand.is_over else "(hidden until the hand is over)"


@admin.register(HouseBot)
class HouseBotAdmin(ReadOnlyAdmin):
    list_display = ("player", "operator", "created_at")
    list_filter = ("operator",)
