"""Child processes the tests and the benchmarks start: ``manage.py`` run to its end, the
command line of a real Celery worker, and stopping a child politely, then for good.

Standard library only: the HTTP benchmarks (tests/benchmarks/harness.py) import it without
Django.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def manage(env: Mapping[str, str], *args: str, timeout: float = 300) -> str:
    """``manage.py <args>`` in a child process with exactly the environment ``env``: its
    standard output. Fails with the end of its standard error unless it exits 0."""
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def worker_command(
    *,
    queues: str | None = None,
    pool: str = "solo",
    concurrency: int = 1,
    loglevel: str = "warning",
    hostname: str | None = None,
    heartbeat: bool = False,
) -> list[str]:
    """``celery -A gin_platform worker`` with this interpreter's Celery, consuming ``queues``
    (comma-separated; all of the app's when None) with ``concurrency`` processes of ``pool``.
    No gossip or mingle: a test's or benchmark's worker has no other worker to talk to."""
    command = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "gin_platform",
        "worker",
        "--pool",
        pool,
        "--concurrency",
        str(concurrency),
        "--loglevel",
        loglevel,
        "--without-gossip",
        "--without-mingle",
    ]
    if not heartbeat:
        command.append("--without-heartbeat")
    if queues:
        command += ["--queues", queues]
    if hostname:
        command += ["--hostname", hostname]
    return command


def stop(process: subprocess.Popen, *, timeout: float = 20) -> None:
    """SIGTERM, and SIGKILL if the process has not exited ``timeout`` seconds later."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
