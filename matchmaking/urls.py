"""API routes of matchmaking, mounted under /api/v1/ by gin_platform.project.urls (before
games' routes: ``lobby/quick-seat`` is not a room of ``lobby/<room_id>``)."""

from gin_platform.api.urls import routes
from matchmaking.api import views

urlpatterns = routes(
    # Player session token: the quick seat (R15), asked for, read and cancelled.
    ("lobby/quick-seat", views.QuickSeatView, "lobby-quick-seat"),
)
