"""The Django project's wiring: settings and how they are read, the URL map, the ASGI and
WSGI applications, the Celery application, the HTTP bridge and the web server's own code."""
