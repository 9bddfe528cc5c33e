"""The Celery application.

Start a worker and the single beat against Redis (``REDIS_URL`` or ``CELERY_BROKER_URL``)::

    celery -A gin_platform worker -l info
    celery -A gin_platform beat -l info

Without a broker URL the settings make every task run eagerly in-process (demo, tests).
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gin_platform.settings")

app = Celery("gin_platform")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
