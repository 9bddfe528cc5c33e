"""Routes of the games API: operators (rooms, matches), players (lobby, seats, the game)."""

from django.urls import path

from games.api import clock_views, network_views, views

urlpatterns = [
    # The game itself first: a move and a view are most of the traffic
    # (gin_platform/project/urls.py).
    path("matches/<str:match_id>/view", views.GameView.as_view(), name="game-view"),
    path("matches/<str:match_id>/actions", views.ActionView.as_view(), name="game-actions"),
    # Operators
    path("rooms", views.RoomListCreateView.as_view(), name="room-list"),
    path("rooms/<str:room_id>", views.RoomDetailView.as_view(), name="room-detail"),
    path("rooms/<str:room_id>/tables", views.RoomTableCreateView.as_view(), name="room-tables"),
    path("matches", views.MatchListView.as_view(), name="match-list"),
    path("matches/<str:match_id>", views.MatchDetailView.as_view(), name="match-detail"),
    # Operators: the network's rooms they offer (docs/network.md)
    path(
        "operators/me/network/rooms",
        network_views.NetworkRoomListView.as_view(),
        name="network-room-list",
    ),
    path(
        "operators/me/network/rooms/<str:room_id>",
        network_views.NetworkRoomDetailView.as_view(),
        name="network-room-detail",
    ),
    # Players
    path("me/screen-name", network_views.ScreenNameView.as_view(), name="my-screen-name"),
    path("lobby", views.LobbyView.as_view(), name="lobby"),
    path("lobby/<str:room_id>", views.LobbyRoomView.as_view(), name="lobby-room"),
    path(
        "lobby/<str:room_id>/waiting-list",
        network_views.WaitingListView.as_view(),
        name="lobby-waiting-list",
    ),
    path("me/waiting-list", network_views.MyWaitingListView.as_view(), name="my-waiting-list"),
    path("tables/<str:table_id>/sit", views.SitView.as_view(), name="table-sit"),
    path("tables/<str:table_id>/leave", views.LeaveView.as_view(), name="table-leave"),
    path("me/seats", views.MySeatsView.as_view(), name="my-seats"),
    path("me/turn-protections", clock_views.MyProtectionsView.as_view(), name="my-protections"),
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
