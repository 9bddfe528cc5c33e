"""Back-office admin for tenancy. Secrets are never shown, not even encrypted: a secret
field appears as "set (sha256 ...)" or "not set"; the audit log is read-only."""

import json

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.utils.html import format_html

from gin_platform.admin.audited import AuditedModelAdmin, ReadOnlyAdmin
from gin_platform.encryption import fingerprint
from gin_platform.models import (
    AuditEvent,
    IdempotencyRecord,
    LaunchToken,
    Operator,
    OperatorApiKey,
    OperatorOrigin,
    OperatorSigningSecret,
    Player,
    PlayerSession,
    SocketTicket,
    WebhookAttempt,
    WebhookDelivery,
)
from gin_platform.staff.roles import player_fields_editable


class OperatorOriginInline(admin.TabularInline):
    """The operator's registered origins, read only (operators manage them over the API)."""

    model = OperatorOrigin
    extra = 0
    can_delete = False
    fields = readonly_fields = ("origin", "created_at")

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


class ModeFilter(admin.SimpleListFilter):
    """Live operators' rows, or the sandboxes' (test mode, docs/api.md "Sandbox")."""

    title = "mode"
    parameter_name = "mode"
    lookup = "is_sandbox"

    def lookups(self, request, model_admin):
        return (("live", "live"), ("test", "test (sandbox)"))

    def queryset(self, request, queryset):
        if self.value() in ("live", "test"):
            return queryset.filter(**{self.lookup: self.value() == "test"})
        return queryset


class OperatorModeFilter(ModeFilter):
    lookup = "operator__is_sandbox"


SANDBOX_BADGE_STYLE = (
    "background:#f5a623;color:#000;padding:0 .4em;border-radius:3px;font-weight:bold"
)


def sandbox_badge(operator: Operator) -> str:
    """A visible TEST badge on sandbox rows, nothing on live ones."""
    if not operator.is_sandbox:
        return ""
    return format_html('<span style="{}">TEST</span>', SANDBOX_BADGE_STYLE)


@admin.register(Operator)
class OperatorAdmin(AuditedModelAdmin):
    list_display = (
        "name",
        "slug",
        "mode_badge",
        "status",
        "base_currency",
        "require_signed_requests",
    )
    list_filter = (ModeFilter, "status", "base_currency")
    search_fields = ("name", "slug")
    exclude = ("webhook_secret",)
    readonly_fields = ("webhook_secret_status", "is_sandbox", "live_operator")
    inlines = (OperatorOriginInline,)

    @admin.display(description="mode")
    def mode_badge(self, obj: Operator) -> str:
        return sandbox_badge(obj) or "live"

    @admin.display(description="webhook secret")
    def webhook_secret_status(self, obj: Operator) -> str:
        return fingerprint(obj.webhook_secret)


@admin.register(OperatorApiKey)
class OperatorApiKeyAdmin(ReadOnlyAdmin):
    list_display = (
        "operator",
        "mode_badge",
        "name",
        "prefix",
        "created_at",
        "last_used_at",
        "revoked_at",
    )
    list_filter = (OperatorModeFilter, "operator")
    list_select_related = ("operator",)
    exclude = ("key_hash",)

    @admin.display(description="mode")
    def mode_badge(self, obj: OperatorApiKey) -> str:
        return sandbox_badge(obj.operator) or "live"


@admin.register(OperatorSigningSecret)
class OperatorSigningSecretAdmin(ReadOnlyAdmin):
    list_display = ("operator", "secret_status", "created_at", "revoked_at")
    exclude = ("secret",)
    readonly_fields = ("secret_status",)

    @admin.display(description="secret")
    def secret_status(self, obj: OperatorSigningSecret) -> str:
        return fingerprint(obj.secret)


@admin.register(OperatorOrigin)
class OperatorOriginAdmin(ReadOnlyAdmin):
    """The origins each operator registered (operators manage them over the API)."""

    list_display = ("origin", "operator", "created_at")
    list_filter = ("operator",)
    search_fields = ("origin", "operator__slug")


@admin.register(LaunchToken)
class LaunchTokenAdmin(ReadOnlyAdmin):
    list_display = ("player", "created_at", "expires_at", "used_at", "created_by_id")
    exclude = ("token_hash",)


@admin.register(SocketTicket)
class SocketTicketAdmin(ReadOnlyAdmin):
    list_display = ("player", "session", "created_at", "expires_at", "used_at")
    exclude = ("token_hash",)


@admin.register(Player)
class PlayerAdmin(AuditedModelAdmin):
    list_display = (
        "external_ref",
        "operator",
        "mode_badge",
        "wallet_currency",
        "status",
        "kyc_status",
    )
    list_filter = (OperatorModeFilter, "operator", "status", "kyc_status")
    list_select_related = ("operator",)
    search_fields = ("external_ref", "display_name")
    readonly_fields = ("operator", "external_ref", "wallet_currency", "created_at")

    @admin.display(description="mode")
    def mode_badge(self, obj: Player) -> str:
        return sandbox_badge(obj.operator) or "live"

    def get_readonly_fields(self, request, obj=None):
        """Risk sees KYC status and status editable, the rest read only
        (gin_platform/staff/roles.py ``player_fields_editable``)."""
        fields = tuple(super().get_readonly_fields(request, obj))
        editable = player_fields_editable(request.user)
        if editable is None:
            return fields
        others = tuple(
            f.name
            for f in Player._meta.fields
            if f.editable and f.name not in editable and f.name not in fields
        )
        return fields + others

    def save_model(self, request, obj, form, change) -> None:
        """Checked again on save, whatever the form held: a role without
        ``platform.change_player_profile`` changes KYC status and status only."""
        editable = player_fields_editable(request.user)
        if change and editable is not None:
            stored = Player.objects.get(pk=obj.pk)
            changed = {
                f.name
                for f in Player._meta.concrete_fields
                if f.value_from_object(stored) != f.value_from_object(obj)
            }
            if changed - editable:
                raise PermissionDenied(
                    f"Your role may change a player's {' and '.join(sorted(editable))} only"
                )
        super().save_model(request, obj, form, change)


@admin.register(PlayerSession)
class PlayerSessionAdmin(ReadOnlyAdmin):
    list_display = ("player", "created_at", "expires_at", "revoked_at", "last_used_at")
    exclude = ("token_hash",)


@admin.register(IdempotencyRecord)
class IdempotencyRecordAdmin(ReadOnlyAdmin):
    list_display = ("operator", "key", "method", "path", "state", "response_status", "created_at")
    list_filter = ("state", "secret_withheld")
    # The stored body never holds a secret (they are withheld before storage); shown as JSON.
    exclude = ("response_body",)
    readonly_fields = ("stored_response",)

    @admin.display(description="response body")
    def stored_response(self, obj: IdempotencyRecord) -> str:
        return format_html("<pre>{}</pre>", json.dumps(obj.response_body, indent=2, default=str))


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "operator", "actor_type", "actor_id", "action", "object_type")
    list_filter = ("action", "actor_type")
    search_fields = ("object_id", "actor_id")


class WebhookAttemptInline(admin.TabularInline):
    model = WebhookAttempt
    extra = 0
    can_delete = False
    readonly_fields = (
        "number",
        "started_at",
        "duration_ms",
        "response_status",
        "error",
    )
    exclude = ("response_excerpt",)

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "operator", "event_type", "status", "attempt_count")
    list_filter = ("status", "event_type", "operator")
    inlines = (WebhookAttemptInline,)
