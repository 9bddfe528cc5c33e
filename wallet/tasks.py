"""The wallet's Celery tasks (seamless mode, docs/wallet.md "Seamless wallet"). Thin: ids
in, one service call.

One direction: this module imports the services it calls; a service queues a task by its
name through gin_platform.enqueue (``wallet.services.seamless.RETRY_TASK``), on commit,
and never imports this module.

A pending credit or rollback is retried with backoff until the operator acknowledges it,
forever: ``seamless_call_retry`` is queued after the quick tries, and the beat sweep
``seamless_calls_sweep`` (every ``WALLET_SEAMLESS_SWEEP_SECONDS``) retries every call that
is due, so a lost message costs time, never a call.
"""

from celery import shared_task

from gin_platform.tenancy.principals import Actor
from wallet import services

SEAMLESS_ACTOR = Actor.system("seamless-wallet")


@shared_task(ignore_result=True, acks_late=True, reject_on_worker_lost=True)
def seamless_call_retry(call_id: str) -> None:
    services.seamless_call_retry(call_id=call_id, actor=SEAMLESS_ACTOR)


# Sweeps are not acks_late: one that dies mid-way is simply run again at the next beat tick.
@shared_task(ignore_result=True, acks_late=False)
def seamless_calls_sweep() -> int:
    return services.seamless_calls_sweep(actor=SEAMLESS_ACTOR)
