from django.urls import path

from gin_platform.api import (
    event_views,
    key_views,
    launch_views,
    operator_views,
    player_views,
    service_views,
)

urlpatterns = [
    path("health", service_views.HealthView.as_view(), name="health"),
    path("health/live", service_views.LivenessView.as_view(), name="health-live"),
    path("operators/me", operator_views.OperatorMeView.as_view(), name="operator-me"),
    path(
        "operators/me/network",
        operator_views.NetworkMembershipView.as_view(),
        name="operator-network",
    ),
    path(
        "operators/me/webhook-secret",
        operator_views.WebhookSecretRotateView.as_view(),
        name="operator-webhook-secret",
    ),
    path(
        "operators/me/signing-secrets",
        operator_views.SigningSecretCreateView.as_view(),
        name="operator-signing-secret-create",
    ),
    path(
        "operators/me/signing-secrets/<str:secret_id>/revoke",
        operator_views.SigningSecretRevokeView.as_view(),
        name="operator-signing-secret-revoke",
    ),
    path(
        "operators/me/origins",
        operator_views.OperatorOriginListCreateView.as_view(),
        name="operator-origin-list",
    ),
    path(
        "operators/me/origins/<str:origin_id>",
        operator_views.OperatorOriginDetailView.as_view(),
        name="operator-origin-detail",
    ),
    path("api-keys", key_views.ApiKeyListCreateView.as_view(), name="api-key-list"),
    path(
        "api-keys/<str:api_key_id>/revoke",
        key_views.ApiKeyRevokeView.as_view(),
        name="api-key-revoke",
    ),
    path(
        "api-keys/<str:api_key_id>/rotate",
        key_views.ApiKeyRotateView.as_view(),
        name="api-key-rotate",
    ),
    path("operators/me/events", event_views.OperatorEventListView.as_view(), name="event-list"),
    path(
        "operators/me/events/<str:event_id>",
        event_views.OperatorEventDetailView.as_view(),
        name="event-detail",
    ),
    path(
        "operators/me/webhook-subscriptions",
        event_views.WebhookSubscriptionView.as_view(),
        name="webhook-subscriptions",
    ),
    path("webhooks/deliveries", event_views.WebhookDeliveryListView.as_view(), name="webhook-list"),
    path(
        "webhooks/deliveries/<str:delivery_id>",
        event_views.WebhookDeliveryDetailView.as_view(),
        name="webhook-detail",
    ),
    path(
        "webhooks/deliveries/<str:delivery_id>/redeliver",
        event_views.WebhookRedeliverView.as_view(),
        name="webhook-redeliver",
    ),
    path("players", player_views.PlayerListCreateView.as_view(), name="player-list"),
    path("players/<str:player_id>", player_views.PlayerDetailView.as_view(), name="player-detail"),
    path(
        "players/<str:player_id>/sessions",
        player_views.PlayerSessionCreateView.as_view(),
        name="player-session-create",
    ),
    path(
        "players/<str:player_id>/sessions/<str:session_id>/revoke",
        player_views.PlayerSessionRevokeView.as_view(),
        name="player-session-revoke",
    ),
    path(
        "players/<str:player_id>/launch",
        launch_views.PlayerLaunchView.as_view(),
        name="player-launch",
    ),
    path("launch/session", launch_views.LaunchSessionView.as_view(), name="launch-session"),
    path(
        "socket-tickets", launch_views.SocketTicketCreateView.as_view(), name="socket-ticket-create"
    ),
    path("problems", service_views.ProblemTypeListView.as_view(), name="problem-list"),
]
