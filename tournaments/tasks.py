"""Celery tasks of tournaments. Thin: one service call each.

- ``match_result``: a tournament match ended (queued by the receiver of
  ``games.signals.match_finished``): its result to the bracket, seating what it feeds.
- ``table_seat``: a table whose players a result made known, when opening its match after
  that result's commit failed where the result was taken.
- ``tournament_start``: a full sit and go, or a scheduled tournament at its time.
- ``aborted_match_void``: a cancelled tournament's table whose match was still open (queued
  by the cancellation after its commit): games voids the match.
- ``tournaments_sweep``: beat job (``CELERY_BEAT_SCHEDULE["tournaments-sweep"]``): opens
  registration when due, starts what is due, takes any finished match whose result no task
  recorded (a lost message, a worker killed mid-task), seats any table left due, voids any
  aborted table's match still open: a tournament never waits for a human.
"""

from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from gin_platform.tenancy.principals import Actor
from tournaments.services.bracket import due_table_seat
from tournaments.services.lifecycle import aborted_match_void as match_void
from tournaments.services.lifecycle import match_result_take
from tournaments.services.lifecycle import tournament_start as start
from tournaments.services.sweep import tournaments_sweep as sweep_run

TRANSIENT_ERRORS = (OperationalError, InterfaceError)
RETRIED = {
    "acks_late": True,
    "reject_on_worker_lost": True,
    "autoretry_for": TRANSIENT_ERRORS,
    "retry_backoff": 1,
    "retry_backoff_max": 60,
    "retry_jitter": True,
    "max_retries": 10,
    "ignore_result": True,
}


@shared_task(**RETRIED)
def match_result(match_id: int) -> bool:
    return match_result_take(match_id=match_id, actor=Actor.system("tournaments"))


@shared_task(**RETRIED)
def table_seat(table_id: int) -> bool:
    return due_table_seat(table_id=table_id, actor=Actor.system("tournaments"))


@shared_task(**RETRIED)
def tournament_start(tournament_id: int) -> None:
    start(tournament_id=tournament_id, actor=Actor.system("tournaments"))


@shared_task(**RETRIED)
def aborted_match_void(match_id: int) -> bool:
    return match_void(match_id=match_id, actor=Actor.system("tournaments"))


# A sweep is not acks_late: one that dies mid-way is simply run again at the next beat tick.
@shared_task(ignore_result=True, acks_late=False)
def tournaments_sweep() -> int:
    return sweep_run(actor=Actor.system("tournaments"))
