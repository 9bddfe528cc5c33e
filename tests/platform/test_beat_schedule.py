"""The beat's schedule: a recovery sweep outlives a backlog. A chaos run with 1,024
tournament entries SIGKILLed a worker with thousands of tasks queued; the sweeps that alone
finish what a dead worker held expired within their one interval behind that backlog, and
never ran until it cleared."""

from __future__ import annotations

from django.conf import settings

RECOVERY_SWEEPS = {
    "redeliver-due-webhooks",
    "settle-stragglers",
    "seamless-wallet-calls",
    "tournament-no-shows",
    "play-sessions-sweep",
    "tournaments-sweep",
    "ratings-sweep",
}


def test_every_recovery_sweep_waits_a_dozen_of_its_runs_in_the_queue() -> None:
    schedule = settings.CELERY_BEAT_SCHEDULE
    assert set(schedule) >= RECOVERY_SWEEPS
    for name in RECOVERY_SWEEPS:
        job = schedule[name]
        assert job["options"]["expires"] >= 12 * float(job["schedule"]), name


def test_no_job_expires_before_its_next_run_is_due() -> None:
    for name, job in settings.CELERY_BEAT_SCHEDULE.items():
        expires = job.get("options", {}).get("expires")
        every = job["schedule"]
        if expires is not None and isinstance(every, int | float):
            assert expires >= float(every), name
