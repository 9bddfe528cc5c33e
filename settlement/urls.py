"""API routes of the settlement app, mounted under /api/v1/ by gin_platform.urls."""

urlpatterns: list = []
