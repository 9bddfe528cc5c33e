from django.urls import path

from gin_platform.api import event_views, views

urlpatterns = [
    path("health", views.HealthView.as_view(), name="health"),
    path("health/live", views.LivenessView.as_view(), name="health-live"),
    path("operators/me", views.OperatorMeView.as_view(), name="operator-me"),
    path("operators/me/network", views.NetworkMembershipView.as_view(), name="operator-network"),
    path(
        "operators/me/webhook-secret",
        views.WebhookSecretRotateView.as_view(),
        name="operator-webhook-secret",
    ),
    path(
        "operators/me/signing-secrets",
        views.SigningSecretCreateView.as_view(),
        name="operator-signing-secret-create",
    ),
    path(
        "operators/me/signing-secrets/<str:secret_id>/revoke",
        views.SigningSecretRevokeView.as_view(),
        name="operator-signing-secret-revoke",
    ),
    path(
        "operators/me/origins",
        views.OperatorOriginListCreateView.as_view(),
        name="operator-origin-list",
    ),
    path(
        "operators/me/origins/<str:origin_id>",
        views.OperatorOriginDetailView.as_view(),
        name="operator-origin-detail",
    ),
    path("api-keys", views.ApiKeyListCreateView.as_view(), name="api-key-list"),
    path(
        "api-keys/<str:api_key_id>/revoke",
        views.ApiKeyRevokeView.as_view(),
        name="api-key-revoke",
    ),
    path(
        "api-keys/<str:api_key_id>/rotate",
        views.ApiKeyRotateView.as_view(),
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
    path("webhooks/deliveries", views.WebhookDeliveryListView.as_view(), name="webhook-list"),
    path(
        "webhooks/deliveries/<str:delivery_id>",
        views.WebhookDeliveryDetailView.as_view(),
        name="webhook-detail",
    ),
    path(
        "webhooks/deliveries/<str:delivery_id>/redeliver",
        views.WebhookRedeliverView.as_view(),
        name="webhook-redeliver",
    ),
    path("players", views.PlayerListCreateView.as_view(), name="player-list"),
    path("players/<str:player_id>", views.PlayerDetailView.as_view(), name="player-detail"),
    path(
        "players/<str:player_id>/sessions",
        views.PlayerSessionCreateView.as_view(),
        name="player-session-create",
    ),
    path(
        "players/<str:player_id>/sessions/<str:session_id>/revoke",
        views.PlayerSessionRevokeView.as_view(),
        name="player-session-revoke",
    ),
    path("players/<str:player_id>/launch", views.PlayerLaunchView.as_view(), name="player-launch"),
    path("launch/session", views.LaunchSessionView.as_view(), name="launch-session"),
    path("socket-tickets", views.SocketTicketCreateView.as_view(), name="socket-ticket-create"),
    path("problems", views.ProblemTypeListView.as_view(), name="problem-list"),
]
