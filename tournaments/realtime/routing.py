"""The tournaments' socket URLs (docs/realtime.md): ``gin_platform.project.asgi`` mounts them
beside games'."""

from django.urls import path

from tournaments.realtime.consumers import TournamentWatchConsumer

websocket_urlpatterns = [
    path("ws/v1/tournaments/<int:tournament_id>/watch", TournamentWatchConsumer.as_asgi()),
]
