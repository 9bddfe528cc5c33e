"""The Celery application.

Start a worker and the single beat against Redis (``REDIS_URL`` or ``CELERY_BROKER_URL``)::

    celery -A gin_platform worker -l info
    celery -A gin_platform beat -l info

Without a broker URL the settings make every task run eagerly in-process (demo, tests).
"""

import os

from celery import Celery, signals, states
from django.db import close_old_connections, connections

from gin_platform.redaction import WithholdSecretsFilter
from gin_platform.request_path.collector import loaded_application_frozen

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gin_platform.project.settings")

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


@signals.worker_process_init.connect
def keep_the_application_out_of_collections(**kwargs) -> None:
    """In each pool process, once forked with the application loaded: full garbage
    collections skip what was loaded (gin_platform/request_path/collector.py)."""
    loaded_application_frozen()


@signals.task_prerun.connect
@signals.task_postrun.connect
def keep_usable_database_connections(sender=None, state=None, **kwargs) -> None:
    """Around each task, what Django does around each request: close a connection older
    than CONN_MAX_AGE or left broken by an error, keep the others (the next use
    health-checks them). After a task that did not succeed every connection is closed, as
    Celery does after every task: an exception raised in the middle of a query (a time
    limit, a signal) can leave a connection that only looks usable. Eager tasks (the demo,
    tests) run inside their caller's transaction and are left alone."""
    if getattr(getattr(sender, "request", None), "is_eager", False):
        return
    if state is not None and state != states.SUCCESS:
        for connection in connections.all(initialized_only=True):
            connection.close()
        return
    close_old_connections()
