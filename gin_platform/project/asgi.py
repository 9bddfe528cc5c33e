"""The ASGI application: HTTP (Django) and the WebSockets under ``/ws/v1/`` (Channels).

    gunicorn gin_platform.project.asgi:application --config deploy/gunicorn.conf.py

HTTP requests run through Django's synchronous handler on a fixed pool of ASGI_THREADS
threads per process (gin_platform/project/http_bridge.py): every view is synchronous, and Django's
own ASGI handler would start a thread per request. Sockets authenticate with a single-use
ticket in their URL (docs/realtime.md), not with cookies, so they need no session middleware;
anything else is refused with a close.
"""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gin_platform.project.settings")
# Django first: the routing below imports models.
wsgi_application = get_wsgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from games.realtime.routing import websocket_urlpatterns as game_sockets  # noqa: E402
from gin_platform.project.http_bridge import SyncHTTPApplication  # noqa: E402
from tournaments.realtime.routing import (  # noqa: E402
    websocket_urlpatterns as tournament_sockets,
)

# Synchronous HTTP requests one process serves at once (deploy/gunicorn.conf.py explains 32).
ASGI_THREADS = int(os.environ.get("ASGI_THREADS") or 32)

application = ProtocolTypeRouter(
    {
        "http": SyncHTTPApplication(wsgi_application, threads=ASGI_THREADS),
        # games' sockets and tournaments' (games never imports tournaments: both are mounted
        # here, in the wiring).
        "websocket": URLRouter([*game_sockets, *tournament_sockets]),
    }
)
