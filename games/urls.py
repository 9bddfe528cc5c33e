"""API routes of the games app, mounted under /api/v1/ by gin_platform.urls."""

from games.api.urls import urlpatterns

__all__ = ["urlpatterns"]
