"""Celery tasks of the games app: the house bot's moves and the turn timers. Thin: ids in,
one service call (``games.services.house_bot.bot_play``, ``games.services.timers``).

One direction: this module imports the services; a service queues a task after its commit
by the task's name (``gin_platform.enqueue``: ``"games.tasks.bot_move"``), never by
importing it. ``GamesConfig.ready`` imports this module, so that every process knows the
tasks by name (a worker, the web, eager runs in the demo and the tests).

- ``bot_move``: the house bot's move, queued on commit when it becomes the bot's turn.
  Idempotent through ``expected_seq``: a stale or redelivered message does nothing.
- ``expire_turns``: beat job (``CELERY_BEAT_SCHEDULE["expire-turns"]``, every 5 s): turns
  past their deadline forfeit (R10).
- ``waiting_list_match``: seat a room's waiting players who have an opponent now, queued on
  commit after a join or a lone seat (``games.services.waiting_list``). Idempotent: each
  entry is claimed once; a run that finds nobody to seat does nothing.
- ``expire_waiting_list``: beat job (every 30 s): waiting-list entries whose time is up end.
- ``match_void_task``: a match stopped after its hand because a player's session ended
  (player protection) is voided, every stake back. Idempotent: a voided match is not
  suspended any more.
- ``tournament_no_shows``: beat job (every 5 s): a tournament's match still waiting for its
  players past its deadline goes on without those who did not come (R14 "Absence").
"""

from celery import shared_task
from django.db import InterfaceError, OperationalError

from games import services

TRANSIENT_ERRORS = (OperationalError, InterfaceError)
# A task queued for one game or room: acknowledged once done, so a worker that dies mid-task
# gets it redelivered (each task is idempotent), and retried on transient database errors.
REDELIVERED = {
    "acks_late": True,
    "reject_on_worker_lost": True,
    "autoretry_for": TRANSIENT_ERRORS,
    "retry_backoff": 1,
    "max_retries": 5,
    "ignore_result": True,
}


@shared_task(**REDELIVERED)
def bot_move(match_id: int, expected_seq: int) -> bool:
    return services.bot_play(match_id=match_id, expected_seq=expected_seq)


# A sweep is not acks_late: one that dies mid-way is simply run again at the next beat tick.
@shared_task(ignore_result=True, acks_late=False)
def expire_turns() -> int:
    return len(services.turn_timers_expire().forfeited)


@shared_task(**REDELIVERED)
def waiting_list_match(room_id: int) -> int:
    return services.waiting_list_match(room_id=room_id)


@shared_task(ignore_result=True, acks_late=False)
def expire_waiting_list() -> int:
    return services.waiting_list_expire()


@shared_task(**REDELIVERED)
def match_void_task(match_id: int, reason: str) -> bool:
    return services.match_void(match_id=match_id, reason=reason, actor=services.PROTECTION_ACTOR)


@shared_task(ignore_result=True, acks_late=False)
def tournament_no_shows() -> int:
    return services.tournament_no_shows_sweep()
