from django.urls import path

from gin_platform.api import views

urlpatterns = [
    path("health", views.HealthView.as_view(), name="health"),
    path("operators/me", views.OperatorMeView.as_view(), name="operator-me"),
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
    path("problems", views.ProblemTypeListView.as_view(), name="problem-list"),
]
