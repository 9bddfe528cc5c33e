"""Routes of the games API: operators (rooms, matches), players (lobby, seats, the game)."""

from django.urls import path

from games.api import views

urlpatterns = [
    # Operators
    path("rooms", views.RoomListCreateView.as_view(), name="room-list"),
    path("rooms/<str:room_id>", views.RoomDetailView.as_view(), name="room-detail"),
    path("rooms/<str:room_id>/tables", views.RoomTableCreateView.as_view(), name="room-tables"),
    path("matches", views.MatchListView.as_view(), name="match-list"),
    path("matches/<str:match_id>", views.MatchDetailView.as_view(), name="match-detail"),
    # Players
    path("lobby", views.LobbyView.as_view(), name="lobby"),
    path("lobby/<str:room_id>", views.LobbyRoomView.as_view(), name="lobby-room"),
    path("tables/<str:table_id>/sit", views.SitView.as_view(), name="table-sit"),
    path("tables/<str:table_id>/leave", views.LeaveView.as_view(), name="table-leave"),
    path("me/seats", views.MySeatsView.as_view(), name="my-seats"),
    path("matches/<str:match_id>/view", views.GameView.as_view(), name="game-view"),
    path("matches/<str:match_id>/actions", views.ActionView.as_view(), name="game-actions"),
    path("matches/<str:match_id>/events", views.EventsView.as_view(), name="game-events"),
    path("matches/<str:match_id>/resign", views.ResignView.as_view(), name="game-resign"),
    path("tables/<str:table_id>/bot", views.BotSeatView.as_view(), name="table-bot"),
    # Watchers (any player of the operator)
    path("matches/<str:match_id>/watch", views.WatchView.as_view(), name="watch"),
    path(
        "matches/<str:match_id>/watch/events",
        views.WatchEventsView.as_view(),
        name="watch-events",
    ),
    # Hand history and fairness (the match's players and the operator)
    path("matches/<str:match_id>/hands", views.HandHistoryListView.as_view(), name="hands"),
    path(
        "matches/<str:match_id>/hands/<str:number>",
        views.HandHistoryDetailView.as_view(),
        name="hand-detail",
    ),
    path(
        "matches/<str:match_id>/hands/<str:number>/fairness",
        views.HandFairnessView.as_view(),
        name="hand-fairness",
    ),
]
