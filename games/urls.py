"""API routes of the games app, mounted under /api/v1/ by gin_platform.project.urls."""

from games.api.urls import urlpatterns

__all__ = ["urlpatterns"]
