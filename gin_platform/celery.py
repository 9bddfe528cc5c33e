"""The Celery application.

Start a worker and the single beat against Redis (``REDIS_URL`` or ``CELERY_BROKER_URL``)::

    celery -A gin_platform worker -l info
    celery -A gin_platform beat -l info

Without a broker URL the settings make every task run eagerly in-process (demo, tests).
"""

import os

from celery import Celery, signals

from gin_platform.redaction import WithholdSecretsFilter

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gin_platform.settings")

app = Celery("gin_platform")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@signals.after_setup_logger.connect
@signals.after_setup_task_logger.connect
def withhold_secrets_in_worker_logs(logger, **kwargs) -> None:
    """A worker (or beat) replaces Django's log handlers with its own: give them the same
    filter, so no API key, session token or signing secret reaches a worker's log."""
    for handler in logger.handlers:
        if not any(isinstance(f, WithholdSecretsFilter) for f in handler.filters):
            handler.addFilter(WithholdSecretsFilter())
