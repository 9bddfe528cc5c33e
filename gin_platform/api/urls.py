"""The platform's API routes, and ``routes``: the table every app's API URL conf is written
as (mounted under /api/v1/ by gin_platform.project.urls)."""

from __future__ import annotations

from django.urls import URLPattern, path
from django.views import View

from gin_platform.api import (
    event_views,
    key_views,
    launch_views,
    operator_views,
    player_views,
    service_views,
)


def routes(*rows: tuple[str, type[View], str]) -> list[URLPattern]:
    """A URL conf from its table: one ``path(route, view.as_view(), name=name)`` for each
    ``(route, view, name)`` row, in the rows' order."""
    return [path(route, view.as_view(), name=name) for route, view, name in rows]


urlpatterns = routes(
    ("health", service_views.HealthView, "health"),
    ("health/live", service_views.LivenessView, "health-live"),
    ("operators/me", operator_views.OperatorMeView, "operator-me"),
    ("operators/me/network", operator_views.NetworkMembershipView, "operator-network"),
    (
        "operators/me/webhook-secret",
        operator_views.WebhookSecretRotateView,
        "operator-webhook-secret",
    ),
    (
        "operators/me/signing-secrets",
        operator_views.SigningSecretCreateView,
        "operator-signing-secret-create",
    ),
    (
        "operators/me/signing-secrets/<str:secret_id>/revoke",
        operator_views.SigningSecretRevokeView,
        "operator-signing-secret-revoke",
    ),
    ("operators/me/origins", operator_views.OperatorOriginListCreateView, "operator-origin-list"),
    (
        "operators/me/origins/<str:origin_id>",
        operator_views.OperatorOriginDetailView,
        "operator-origin-detail",
    ),
    ("api-keys", key_views.ApiKeyListCreateView, "api-key-list"),
    ("api-keys/<str:api_key_id>/revoke", key_views.ApiKeyRevokeView, "api-key-revoke"),
    ("api-keys/<str:api_key_id>/rotate", key_views.ApiKeyRotateView, "api-key-rotate"),
    ("operators/me/events", event_views.OperatorEventListView, "event-list"),
    ("operators/me/events/<str:event_id>", event_views.OperatorEventDetailView, "event-detail"),
    (
        "operators/me/webhook-subscriptions",
        event_views.WebhookSubscriptionView,
        "webhook-subscriptions",
    ),
    ("webhooks/deliveries", event_views.WebhookDeliveryListView, "webhook-list"),
    (
        "webhooks/deliveries/<str:delivery_id>",
        event_views.WebhookDeliveryDetailView,
        "webhook-detail",
    ),
    (
        "webhooks/deliveries/<str:delivery_id>/redeliver",
        event_views.WebhookRedeliverView,
        "webhook-redeliver",
    ),
    ("players", player_views.PlayerListCreateView, "player-list"),
    ("players/<str:player_id>", player_views.PlayerDetailView, "player-detail"),
    (
        "players/<str:player_id>/sessions",
        player_views.PlayerSessionCreateView,
        "player-session-create",
    ),
    (
        "players/<str:player_id>/sessions/<str:session_id>/revoke",
        player_views.PlayerSessionRevokeView,
        "player-session-revoke",
    ),
    ("players/<str:player_id>/launch", launch_views.PlayerLaunchView, "player-launch"),
    ("launch/session", launch_views.LaunchSessionView, "launch-session"),
    ("socket-tickets", launch_views.SocketTicketCreateView, "socket-ticket-create"),
    ("problems", service_views.ProblemTypeListView, "problem-list"),
)
