"""Back-office admin for tenancy. Secrets are never shown, not even encrypted: a secret
field appears as "set (sha256 ...)" or "not set"; the audit log is read-only."""

import json

from django.contrib import admin
from django.utils.html import format_html

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


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


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


@admin.register(Operator)
class OperatorAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", "status", "base_currency", "require_signed_requests")
    list_filter = ("status", "base_currency")
    search_fields = ("name", "slug")
    exclude = ("webhook_secret",)
    readonly_fields = ("webhook_secret_status",)
    inlines = (OperatorOriginInline,)

    @admin.display(description="webhook secret")
    def webhook_secret_status(self, obj: Operator) -> str:
        return fingerprint(obj.webhook_secret)


@admin.register(OperatorApiKey)
class OperatorApiKeyAdmin(ReadOnlyAdmin):
    list_display = ("operator", "name", "prefix", "created_at", "last_used_at", "revoked_at")
    list_filter = ("operator",)
    exclude = ("key_hash",)


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
class PlayerAdmin(admin.ModelAdmin):
    list_display = ("external_ref", "operator", "wallet_currency", "status", "kyc_status")
    list_filter = ("operator", "status", "kyc_status")
    search_fields = ("external_ref", "display_name")
    readonly_fields = ("operator", "external_ref", "wallet_currency", "created_at")


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
