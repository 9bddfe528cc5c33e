"""gunicorn settings for the API (docs/deploy.md). Every value can be overridden on the command
line or through GUNICORN_* environment variables.

    gunicorn gin_platform.wsgi:application --config deploy/gunicorn.conf.py
"""

import math
import os
from pathlib import Path


def available_cpus() -> int:
    """CPUs this process may really use: the cgroup CPU quota in a container, else the CPUs it
    is allowed to run on. ``os.cpu_count()`` alone reports every CPU of the node, which would
    start dozens of workers in a pod limited to one CPU."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cpus = os.cpu_count() or 1
    quota = _cgroup_cpu_quota()
    if quota is not None:
        cpus = min(cpus, quota)
    return max(1, cpus)


def _cgroup_cpu_quota() -> int | None:
    try:  # cgroup v2: "<quota> <period>" or "max <period>"
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()
        return None if quota == "max" else math.ceil(int(quota) / int(period))
    except (OSError, ValueError):
        pass
    try:  # cgroup v1: a quota of -1 means unlimited
        quota = int(Path("/sys/fs/cgroup/cpu/cpu.cfs_quota_us").read_text())
        period = int(Path("/sys/fs/cgroup/cpu/cpu.cfs_period_us").read_text())
        return None if quota <= 0 else math.ceil(quota / period)
    except (OSError, ValueError):
        return None


bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
# One process per CPU with 4 threads each: the threads cover the time a request waits on
# PostgreSQL, and fewer processes cost less CPU per request than 2 x CPUs + 1 sync workers
# (measured: ~10 ms against 12.5-15 ms per request, docs/benchmarks.md). Each thread holds
# at most one database connection (conn_max_age). GUNICORN_THREADS=1 gives sync workers.
workers = int(os.environ.get("GUNICORN_WORKERS") or max(available_cpus(), 2))
threads = int(os.environ.get("GUNICORN_THREADS", "4"))
worker_class = "gthread" if threads > 1 else "sync"
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = int(os.environ.get("GUNICORN_GRACEFUL_TIMEOUT", "30"))
keepalive = 5
# Recycle workers now and then so a slow leak can never take a web process down.
# (20,000: at ~130 requests/s a lower figure restarts a worker every half minute.)
max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS", "20000"))
max_requests_jitter = 2000
accesslog = os.environ.get("GUNICORN_ACCESSLOG", "-") or None  # "" turns it off
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOGLEVEL", "info")
# Addresses whose X-Forwarded-* headers are trusted: the reverse proxy or load balancer.
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
# Worker heartbeat files; /dev/shm in containers, where /tmp may be a slow overlay.
worker_tmp_dir = os.environ.get("GUNICORN_WORKER_TMP_DIR") or None
# The gunicornc control socket; unset keeps gunicorn's default ($XDG_RUNTIME_DIR or ~/.gunicorn).
if os.environ.get("GUNICORN_CONTROL_SOCKET"):
    control_socket = os.environ["GUNICORN_CONTROL_SOCKET"]
