"""gunicorn settings for the web processes (docs/deploy.md). Every value can be overridden on
the command line or through GUNICORN_* environment variables.

    gunicorn gin_platform.project.asgi:application --config deploy/gunicorn.conf.py

gunicorn manages the processes (start, graceful reload on HUP, timeouts, recycling); each
worker is uvicorn serving the ASGI application: HTTP (Django) and the WebSockets under
/ws/v1/ (Channels, docs/realtime.md) on the same port.
"""

import math
import os
import sys
from pathlib import Path

# The only channel layer that works without Redis keeps its groups in the memory of one
# process (gin_platform/project/settings.py, CHANNEL_LAYERS): a move committed in one worker would
# never reach the sockets held by another.
IN_MEMORY_LAYER = "channels.layers.InMemoryChannelLayer"
ONE_PROCESS_ONLY = (
    "the channel layer is in memory (no REDIS_URL): it works inside one process only, so "
    "sockets would miss the moves made through the other workers. Run one worker "
    "(GUNICORN_WORKERS=1, the default without REDIS_URL) or set REDIS_URL."
)


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


def default_workers(env) -> int:
    """One process per CPU (at least 2) when the channel layer is Redis; exactly one on the
    embedded default, whose in-memory layer works inside one process only. Mirrors the
    CHANNEL_LAYERS choice of the settings (Redis iff REDIS_URL); ``post_worker_init`` checks
    the real settings, so a mismatch stops the server instead of losing pushes."""
    return max(available_cpus(), 2) if env.get("REDIS_URL") else 1


bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
# Each worker is one event loop (uvicorn): it holds any number of sockets and runs Django's
# synchronous views on a fixed pool of threads (gin_platform/project/http_bridge.py), so one
# process per CPU is enough.
# uvicorn_worker's worker with the platform's WebSocket protocol
# (gin_platform/project/web_server.py: a text message that is not UTF-8 closes 1007 after an
# error message, one log line).
worker_class = "gin_platform.project.web_server.Worker"
workers = int(os.environ.get("GUNICORN_WORKERS") or default_workers(os.environ))
# Synchronous (Django) HTTP requests one process serves at once, each on one of that many
# long-lived threads with at most one database connection: the short API calls (a few ms
# each) plus every long poll (GET .../events?wait=S holds its thread for up to 25 s); the
# others wait their turn in the pool's queue, which costs nothing. Sockets do not count.
# gin_platform/project/asgi.py reads the same variable.
asgi_threads = int(os.environ.get("ASGI_THREADS") or 32)
# The heartbeat uvicorn must send the arbiter; a stuck event loop is killed after this.
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
# On SIGTERM or a reload, a worker stops accepting, closes its sockets at once with 1012
# (service restart: clients reconnect and resume, docs/realtime.md), then lets HTTP requests
# finish; a long poll may take 25 s. Past this the arbiter kills the worker. Orchestrators
# must wait longer still (k8s terminationGracePeriodSeconds, compose stop_grace_period,
# systemd TimeoutStopSec; tests/deploy checks them).
graceful_timeout = int(os.environ.get("GUNICORN_GRACEFUL_TIMEOUT", "35"))
keepalive = 5
# Recycle workers now and then so a slow leak can never take a web process down; a recycled
# worker's sockets are closed with 1012 and reconnect to the others, and the new one loads the
# application again (1-2 s of CPU). 200,000: a process serves 300-600 short requests/s in the
# action benchmark, where 20,000 restarted each worker every 30-60 s, its players' sockets
# with it; now every 6-11 minutes at that pace, hours at a human one.
max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS", "200000"))
max_requests_jitter = max_requests // 10
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


def on_starting(server) -> None:
    """Before any worker starts: one process only on the embedded default (no Redis)."""
    if server.num_workers > 1 and not os.environ.get("REDIS_URL"):
        raise RuntimeError(f"refusing to start {server.num_workers} workers: {ONE_PROCESS_ONLY}")


def database_pool_options(database: dict, env) -> dict | None:
    """psycopg's pool for a PostgreSQL database of a web process, sized to the requests that
    may hold a connection at once (``ASGI_THREADS``, plus the sockets' short reads), or None
    (SQLite, or ``DATABASE_POOL=0``). Idle connections beyond ``min_size`` close after 5
    minutes; a request waits at most ``DATABASE_POOL_TIMEOUT`` seconds for one (then 500,
    never an unbounded queue)."""
    if "postgresql" not in database.get("ENGINE", "") or env.get("DATABASE_POOL") == "0":
        return None
    return {
        "min_size": int(env.get("DATABASE_POOL_MIN_SIZE") or 2),
        "max_size": int(env.get("DATABASE_POOL_MAX_SIZE") or asgi_threads + 8),
        "timeout": float(env.get("DATABASE_POOL_TIMEOUT") or 10),
        "max_idle": 300,
    }


def post_worker_init(worker) -> None:
    """In each worker, once the application (and so Django's settings) is loaded: refuse to
    serve from more than one process with the in-memory channel layer, share one pool of
    database connections between the request threads and the sockets' reads, and keep the
    loaded application out of the garbage collector's way
    (gin_platform/request_path/collector.py)."""
    # gunicorn's master reads this file before any application is loaded; this hook runs in
    # a worker once it has loaded Django's.
    from django.conf import settings  # noqa: PLC0415 (Django is loaded only in the worker)

    from gin_platform.request_path.collector import (  # noqa: PLC0415 (idem)
        loaded_application_frozen,
    )

    backend = settings.CHANNEL_LAYERS.get("default", {}).get("BACKEND")
    if backend == IN_MEMORY_LAYER and worker.cfg.workers > 1:
        worker.log.error("refusing to start %d workers: %s", worker.cfg.workers, ONE_PROCESS_ONLY)
        sys.exit(4)  # gunicorn's APP_LOAD_ERROR: the arbiter stops instead of respawning
    # On PostgreSQL a request hands its connection back to the process's pool when it ends
    # (the pool refuses CONN_MAX_AGE): the HTTP threads and the sockets' short reads (run on
    # threads of their own by Channels) share at most max_size connections. Without a pool
    # (SQLite, DATABASE_POOL=0) each long-lived HTTP thread keeps its own (CONN_MAX_AGE).
    for database in settings.DATABASES.values():
        pool = database_pool_options(database, os.environ)
        if pool:
            database["CONN_MAX_AGE"] = 0
            database.setdefault("OPTIONS", {})["pool"] = pool
    loaded_application_frozen()


def nworkers_changed(server, new_value: int, old_value: int | None) -> None:
    """TTIN adds a worker at run time: never past one on the embedded default."""
    if old_value is not None and new_value > 1 and not os.environ.get("REDIS_URL"):
        server.log.error("not adding a worker: %s", ONE_PROCESS_ONLY)
        server._num_workers = old_value  # the setter would call this hook again
