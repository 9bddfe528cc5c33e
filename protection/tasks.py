"""Celery tasks of player protection. Thin: one service call.

- ``play_sessions_sweep``: beat job (``CELERY_BEAT_SCHEDULE["play-sessions-sweep"]``, every
  ``PROTECTION_SWEEP_SECONDS``): reached limits, reality checks away from the tables, idle
  sessions, stopped matches' voids (``protection.services.sweep``).
"""

from celery import shared_task

from protection.services.sweep import play_sessions_sweep as sweep_run


# A sweep is not acks_late: one that dies mid-way is simply run again at the next beat tick.
@shared_task(ignore_result=True, acks_late=False)
def play_sessions_sweep() -> int:
    sweep = sweep_run()
    return len(sweep.limits_reached) + len(sweep.checks_shown) + len(sweep.idle_ended)
