"""Routes of the games API: operators (rooms, matches), players (lobby, seats, the game)."""

from games.api import clock_views, network_views, views
from gin_platform.api.urls import routes

urlpatterns = routes(
    # The game itself first: a move and a view are most of the traffic
    # (gin_platform/project/urls.py).
    ("matches/<str:match_id>/view", views.GameView, "game-view"),
    ("matches/<str:match_id>/actions", views.ActionView, "game-actions"),
    # Operators
    ("rooms", views.RoomListCreateView, "room-list"),
    ("rooms/<str:room_id>", views.RoomDetailView, "room-detail"),
    ("rooms/<str:room_id>/tables", views.RoomTableCreateView, "room-tables"),
    ("matches", views.MatchListView, "match-list"),
    ("matches/<str:match_id>", views.MatchDetailView, "match-detail"),
    # Operators: the network's rooms they offer (docs/network.md)
    ("operators/me/network/rooms", network_views.NetworkRoomListView, "network-room-list"),
    (
        "operators/me/network/rooms/<str:room_id>",
        network_views.NetworkRoomDetailView,
        "network-room-detail",
    ),
    # Players
    ("me/screen-name", network_views.ScreenNameView, "my-screen-name"),
    ("lobby", views.LobbyView, "lobby"),
    ("lobby/<str:room_id>", views.LobbyRoomView, "lobby-room"),
    ("lobby/<str:room_id>/waiting-list", network_views.WaitingListView, "lobby-waiting-list"),
    ("me/waiting-list", network_views.MyWaitingListView, "my-waiting-list"),
    ("tables/<str:table_id>/sit", views.SitView, "table-sit"),
    ("tables/<str:table_id>/leave", views.LeaveView, "table-leave"),
    ("me/seats", views.MySeatsView, "my-seats"),
    ("me/turn-protections", clock_views.MyProtectionsView, "my-protections"),
    ("matches/<str:match_id>/events", views.EventsView, "game-events"),
    ("matches/<str:match_id>/resign", views.ResignView, "game-resign"),
    ("tables/<str:table_id>/bot", views.BotSeatView, "table-bot"),
    # Watchers (any player of the operator)
    ("matches/<str:match_id>/watch", views.WatchView, "watch"),
    ("matches/<str:match_id>/watch/events", views.WatchEventsView, "watch-events"),
    # Hand history and fairness (the match's players and the operator)
    ("matches/<str:match_id>/hands", views.HandHistoryListView, "hands"),
    ("matches/<str:match_id>/hands/<str:number>", views.HandHistoryDetailView, "hand-detail"),
    ("matches/<str:match_id>/hands/<str:number>/fairness", views.HandFairnessView, "hand-fairness"),
)
