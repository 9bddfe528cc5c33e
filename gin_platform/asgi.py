"""The ASGI application: HTTP (Django) and the WebSockets under ``/ws/v1/`` (Channels).

    gunicorn gin_platform.asgi:application --config deploy/gunicorn.conf.py

Sockets authenticate with a single-use ticket in their URL (docs/realtime.md), not with
cookies, so they need no session middleware; anything else is refused with a close.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gin_platform.settings")
# Django first: the routing below imports models.
http_application = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from games.realtime.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": http_application,
        "websocket": URLRouter(websocket_urlpatterns),
    }
)
