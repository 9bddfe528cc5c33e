"""API routes of the wallet app, mounted under /api/v1/ by gin_platform.urls."""

urlpatterns: list = []
