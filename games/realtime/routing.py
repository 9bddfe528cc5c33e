"""The sockets' URLs (docs/realtime.md): ``gin_platform.project.asgi`` mounts them."""

from django.urls import path

from games.realtime.consumers import MatchSocketConsumer, WatchSocketConsumer
from games.realtime.player_socket import PlayerSocketConsumer

websocket_urlpatterns = [
    path("ws/v1/matches/<int:match_id>", MatchSocketConsumer.as_asgi()),
    path("ws/v1/matches/<int:match_id>/watch", WatchSocketConsumer.as_asgi()),
    path("ws/v1/me", PlayerSocketConsumer.as_asgi()),
]
