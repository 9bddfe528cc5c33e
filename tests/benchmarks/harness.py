"""Shared pieces of the HTTP and socket benchmarks: a throw-away stack and the measurements.

``Stack`` is a context manager that, on loopback only:

1. creates a scratch PostgreSQL database ``gin_bench_<random>`` on the server of
   DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres; the database named
   there is only used to issue CREATE and DROP DATABASE) and runs ``manage.py migrate``;
2. uses one Redis database (REDIS_URL's host, port and number when set, else db 14 on
   127.0.0.1:6379; ``--redis-db`` wins) for the broker, the cache, the throttle buckets and
   the channel layer, refusing to start if it already holds keys, and flushes it at the end;
3. seeds an operator, its API key and a staff user through ``manage.py shell -c``;
4. starts a real Celery worker (``celery -A gin_platform worker``) and the web server as
   deployed: gunicorn with deploy/gunicorn.conf.py, its workers uvicorn serving
   ``gin_platform.project.asgi:application`` (HTTP and the sockets under /ws/v1/ on one port), on a
   free 127.0.0.1 port, each in its own process group with its output in a log file;
5. on the way out, also after Ctrl-C, SIGTERM or an exception: stops both process groups
   (SIGTERM, then SIGKILL after a grace period), flushes the Redis database and drops the
   scratch database.

The other pieces are shared with bench_actions.py (which runs its own, smaller stack): the
percentiles, ``KeepAliveClient`` (one persistent connection per client thread), the CPU and
memory accounting from /proc and the process-group helpers.

Nothing here imports Django: the benchmark process is a pure HTTP (and socket) client.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from tests.processes import worker_command  # noqa: E402  (needs ROOT on the path)

DEFAULT_PG_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
DEFAULT_REDIS_DB = 14
APPLICATION = "gin_platform.project.asgi:application"
# Loopback only: never let urllib send our requests to a proxy.
os.environ["NO_PROXY"] = os.environ["no_proxy"] = "127.0.0.1,localhost"

SEED_CODE = """
import json, secrets
from django.contrib.auth import get_user_model
from gin_platform.tenancy import services
from gin_platform.tenancy.principals import Actor
actor = Actor.system("bench")
slug = "bench-" + secrets.token_hex(3)
operator = services.operator_create(name="Bench", slug=slug, base_currency="EUR", actor=actor)
key = services.api_key_create(operator=operator, name="bench", actor=actor).key
password = secrets.token_urlsafe(16)
staff = get_user_model().objects.create_user("staff-" + slug, password=password, is_staff=True)
# The finance role records the exchange rates the seed needs (docs/backoffice.md).
from django.contrib.auth.models import Group
from gin_platform.staff.roles import FINANCE
staff.groups.add(Group.objects.get(name=FINANCE))
print("SEED " + json.dumps({"operator_key": key, "staff": ["staff-" + slug, password]}))
"""


# --- Measurements ---------------------------------------------------------------------------
def percentile(values: list[float], q: float) -> float | None:
    """Nearest-rank percentile of unsorted values (None when empty)."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, int(-(-q * len(ordered) // 100)))  # ceil(q/100 * n)
    return ordered[min(rank, len(ordered)) - 1]


def ms(value: float | None) -> str:
    return "-" if value is None else f"{value * 1000:.1f}"


@dataclass
class Recorder:
    """Thread-safe latencies per endpoint (with their start times) and errors."""

    samples: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    errors: Counter = field(default_factory=Counter)
    error_times: list[float] = field(default_factory=list)
    # Timestamped counts that are not requests (sockets opened, pushes received, resyncs).
    events: dict[str, list[float]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, endpoint: str, started: float, seconds: float) -> None:
        with self.lock:
            self.samples.setdefault(endpoint, []).append((started, seconds))

    def error(self, endpoint: str, what: str) -> None:
        with self.lock:
            self.errors[(endpoint, what)] += 1
            self.error_times.append(time.monotonic())

    def count(self, name: str, at: float | None = None) -> None:
        with self.lock:
            self.events.setdefault(name, []).append(time.monotonic() if at is None else at)

    def counted(self, name: str, start: float = 0.0, end: float = float("inf")) -> int:
        with self.lock:
            return sum(1 for t in self.events.get(name, ()) if start <= t < end)

    def latencies(self, endpoint: str, start: float = 0.0, end: float = float("inf")) -> list:
        with self.lock:
            return [s for t, s in self.samples.get(endpoint, ()) if start <= t < end]

    def total(self, start: float = 0.0, end: float = float("inf")) -> int:
        with self.lock:
            return sum(1 for v in self.samples.values() for t, _ in v if start <= t < end)


# --- A keep-alive HTTP client ----------------------------------------------------------------
class KeepAliveClient:
    """One persistent HTTP/1.1 connection with a bearer token (stdlib ``http.client``).

    ``request`` answers ``(status, parsed JSON body or None)`` for every HTTP answer, errors
    included; it raises only when no answer came (``OSError``, ``http.client.HTTPException``).
    A connection the server closed (keep-alive timeout, worker restart) is reopened and the
    request sent once more: a POST is only resent when the first attempt got no answer at
    all, and the game API refuses a repeated move by its ``expected_seq``. Not thread-safe:
    one client per thread.
    """

    def __init__(self, base_url: str, token: str, timeout: float = 30.0) -> None:
        parts = urlsplit(base_url)
        self.host, self.port, self.timeout = parts.hostname, parts.port, timeout
        self.headers = {
            "Authorization": f"Bearer {token}",
            "Content-Type": "application/json",
            "Accept": "application/json",
        }
        self.connection: http.client.HTTPConnection | None = None

    def request(self, method: str, path: str, body: dict | None = None) -> tuple[int, object]:
        payload = None if body is None else json.dumps(body)
        for attempt in range(2):
            if self.connection is None:
                self.connection = http.client.HTTPConnection(
                    self.host, self.port, timeout=self.timeout
                )
            try:
                self.connection.request(method, path, body=payload, headers=self.headers)
                response = self.connection.getresponse()
                data = response.read()
            except (http.client.HTTPException, OSError) as exc:
                self.close()
                if attempt or isinstance(exc, TimeoutError):  # a slow answer is not resent
                    raise
                continue
            if response.will_close:
                self.close()
            try:
                return response.status, json.loads(data) if data else None
            except ValueError:
                return response.status, None
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None


# --- CPU accounting from /proc (Linux) ------------------------------------------------------
TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _proc_stat(pid: str) -> tuple[int, int, int, int] | None:
    """(process group, own utime + stime, reaped children's cutime + cstime, parent) in
    ticks."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rindex(")") + 2 :].split()
    return (
        int(fields[2]),
        int(fields[11]) + int(fields[12]),
        int(fields[13]) + int(fields[14]),
        int(fields[1]),
    )


def _machine_busy() -> float:
    """Busy CPU seconds of the whole machine (without idle, iowait and the hypervisor's steal)."""
    cpu = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq = (int(v) for v in cpu[:7])
    return (user + nice + system + irq + softirq) / TICK


# The servers sampled by command line (not ours to group): PostgreSQL, Redis, and the
# production topology's pooler and balancer (docs/deploy.md; 0 when they are not running).
SAMPLED_SERVERS = ("postgres", "redis", "pgbouncer", "haproxy")
# A request's server side: the web and everything it waits on.
SERVER_PARTS = ("gunicorn", *SAMPLED_SERVERS)


# PostgreSQL's streaming replication processes, on the primary and on a replica.
REPLICATION = "replication"
_REPLICATION_ROLES = (b"walsender", b"walreceiver", b"startup")


class CpuMeter:
    """How many CPUs each party kept busy between ``start()`` and ``stop()``.

    Our process groups (gunicorn, the Celery worker) count their live processes plus the
    children they reaped (cutime/cstime), so workers recycled by ``max_requests`` are not lost.

    ``postgres`` is the whole PostgreSQL server, every database: backends that live a few
    milliseconds (``DATABASE_POOL=0``, or a pool growing and shrinking) escape any sampling,
    so the postmaster's
    reaped-children time (cutime/cstime) catches every backend that exits, and the live
    postgres processes are sampled twice a second. On a shared machine other sessions'
    databases count too (an upper bound; the Redis figure likewise). ``pgbouncer`` and
    ``haproxy``, when the topology of ``make cluster`` runs, are sampled the same way. A
    group named like one of these (``redis``: a topology's own Redis) is that server: its
    command-line namesakes (the machine's Redis, another topology's) are not counted.
    ``client`` is this process; ``machine`` the whole machine.

    After ``stop()``, ``postgres_servers`` has the CPUs of each PostgreSQL server alone (its
    postmaster, whose reaped children count, and its live children: every backend is a
    child of its postmaster), a part of ``postgres``: named by ``postmasters`` (name ->
    postmaster pid, e.g. a topology's primary and replica), else by its data directory; the
    streaming replication's processes (walsender, walreceiver, startup) apart, as
    ``replication``: what a replica costs beside the primary's own work.
    """

    def __init__(
        self,
        *,
        groups: dict[str, int],
        database: str = "",
        interval: float = 0.5,
        postmasters: dict[str, int] | None = None,
    ) -> None:
        self.groups = groups
        self.database = database  # kept for the callers; the PostgreSQL figure is server-wide
        self.interval = interval
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last: dict[tuple[str, int], int] = {}
        self._sampled = {name: 0 for name in SAMPLED_SERVERS if name not in groups}
        self._servers = {pid: name for name, pid in (postmasters or {}).items()}
        self._server_of: dict[int, str] = {}  # a sampled postgres pid -> its server's name
        self._by_server = dict.fromkeys([*self._servers.values(), REPLICATION], 0)
        self.postgres_servers: dict[str, float] = {}

    def _scan(self) -> tuple[dict[str, int], dict[tuple[str, int], int]]:
        by_pgid = {pgid: name for name, pgid in self.groups.items()}
        grouped = dict.fromkeys(self.groups, 0)
        sampled = {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            stat = _proc_stat(entry)
            if stat is None:
                continue
            pgid, own, children, parent = stat
            if pgid in by_pgid:
                grouped[by_pgid[pgid]] += own + children
                continue
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if cmdline.startswith(b"postgres: "):  # a backend or helper process
                sampled[("postgres", int(entry))] = own
                if any(role in cmdline for role in _REPLICATION_ROLES):
                    self._server_of[int(entry)] = REPLICATION
                else:
                    self._server_of[int(entry)] = self._server_name(parent)
            elif b"postgres\0" in cmdline and b"-D\0" in cmdline:  # the postmaster
                sampled[("postgres", int(entry))] = own + children
                self._server_of[int(entry)] = self._server_name(int(entry), cmdline)
            elif cmdline.startswith(b"redis-server"):
                sampled[("redis", int(entry))] = own
            elif b"pgbouncer" in cmdline.split(b"\0", 1)[0]:
                sampled[("pgbouncer", int(entry))] = own
            elif b"haproxy" in cmdline.split(b"\0", 1)[0]:
                sampled[("haproxy", int(entry))] = own
        return grouped, sampled

    def _server_name(self, postmaster: int, cmdline: bytes | None = None) -> str:
        """The name ``postmasters`` gave, else the server's data directory (``-D``)."""
        if postmaster not in self._servers:
            with contextlib.suppress(OSError, ValueError, IndexError):
                args = (cmdline or Path(f"/proc/{postmaster}/cmdline").read_bytes()).split(b"\0")
                self._servers[postmaster] = args[args.index(b"-D") + 1].decode(errors="replace")
        return self._servers.get(postmaster, "")

    def _sample(self) -> dict[str, int]:
        grouped, sampled = self._scan()
        for key, ticks in sampled.items():
            if key[0] not in self._sampled:  # a group of that name is metered instead
                continue
            delta = max(0, ticks - self._last.get(key, 0))
            self._sampled[key[0]] += delta
            server = self._server_of.get(key[1]) if key[0] == "postgres" else None
            if server:
                self._by_server[server] = self._by_server.get(server, 0) + delta
        self._last = sampled
        return grouped

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self._sample()

    def start(self) -> CpuMeter:
        self._started = time.monotonic()
        self._grouped, self._last = self._scan()
        self._machine = _machine_busy()
        self._client = sum(os.times()[:2])
        self._thread = threading.Thread(target=self._run, daemon=True, name="cpu-meter")
        self._thread.start()
        return self

    def stop(self) -> dict[str, float]:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        grouped = self._sample()
        seconds = max(time.monotonic() - self._started, 1e-9)
        used = {name: (grouped[name] - self._grouped[name]) / TICK for name in grouped}
        used |= {name: ticks / TICK for name, ticks in self._sampled.items()}
        used["client"] = sum(os.times()[:2]) - self._client
        used["machine"] = _machine_busy() - self._machine
        self.postgres_servers = {
            name: round(ticks / TICK / seconds, 3) for name, ticks in self._by_server.items()
        }
        return {name: round(value / seconds, 2) for name, value in used.items()}


# --- Memory from /proc (Linux) ---------------------------------------------------------------
def group_memory(pgid: int) -> dict[int, int]:
    """Resident set size in bytes of every live process of the group (``VmRSS``)."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        stat = _proc_stat(entry)
        if stat is None or stat[0] != pgid:
            continue
        with contextlib.suppress(OSError, ValueError, StopIteration):
            status = Path(f"/proc/{entry}/status").read_text()
            line = next(x for x in status.splitlines() if x.startswith("VmRSS:"))
            found[int(entry)] = int(line.split()[1]) * 1024
    return found


def process_rss(pid: int, field: str = "VmRSS") -> int:
    """Resident bytes of one process (0 when it is gone): ``VmRSS``, or ``RssAnon`` for its
    private memory alone (a PostgreSQL backend's RSS counts the shared buffers it touched)."""
    with contextlib.suppress(OSError, ValueError, StopIteration):
        status = Path(f"/proc/{pid}/status").read_text()
        line = next(x for x in status.splitlines() if x.startswith(f"{field}:"))
        return int(line.split()[1]) * 1024
    return 0


def process_tree_rss(pid: int, field: str = "VmRSS") -> int:
    """``process_rss`` of one process and its children together (a PostgreSQL server: the
    postmaster and every backend and helper it forked)."""
    children = [
        int(entry)
        for entry in os.listdir("/proc")
        if entry.isdigit() and (stat := _proc_stat(entry)) is not None and stat[3] == pid
    ]
    return sum(process_rss(p, field) for p in [pid, *children])


def worker_pids(pgid: int) -> list[int]:
    """gunicorn's worker processes: the live members of its group other than the arbiter
    (the group leader)."""
    return sorted(pid for pid in group_memory(pgid) if pid != pgid)


def process_cpu_seconds(pid: int) -> float | None:
    stat = _proc_stat(str(pid))
    return None if stat is None else stat[1] / TICK


# --- Processes --------------------------------------------------------------------------------
def gunicorn_command(*, port: int, workers: int | None = None) -> list[str]:
    """The web server as deployed (deploy/gunicorn.conf.py: uvicorn workers serving the ASGI
    application, HTTP and sockets) on a loopback port. ``workers`` None: the conf file's
    count (one per CPU, at least 2, with Redis). The synchronous requests each worker lets
    into Django at once come from ASGI_THREADS in the environment (the conf file's default
    when unset)."""
    command = [
        sys.executable,
        "-m",
        "gunicorn",
        APPLICATION,
        "--config",
        str(ROOT / "deploy" / "gunicorn.conf.py"),
        "--bind",
        f"127.0.0.1:{port}",
        "--log-level",
        "warning",
    ]
    if workers is not None:
        command += ["--workers", str(workers)]
    return command


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_group(command: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
    """A child in its own process group (its own workers included), output to ``log``."""
    with log.open("ab") as out:
        return subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )


def stop_group(process: subprocess.Popen | None, grace: float = 20.0) -> None:
    """SIGTERM the child's process group, SIGKILL what is left after ``grace`` seconds."""
    if process is None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        if process.poll() is not None and not _group_alive(process.pid):
            return
        time.sleep(0.2)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=10)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def exit_on_sigterm() -> None:
    """SIGTERM and SIGHUP unwind like Ctrl-C, so every ``finally`` cleans up (SIGINT too
    when started in the background, where the shell had it ignored)."""

    def interrupt(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, interrupt)
    signal.signal(signal.SIGHUP, interrupt)


def wait_healthy(
    base_url: str,
    process: subprocess.Popen,
    timeout: float = 60.0,
    *,
    database_only: bool = False,
) -> None:
    """Until /api/v1/health says "ok" or, with ``database_only``, until its database check
    passes (a stack whose broker check cannot pass answers 503 "degraded")."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"gunicorn exited with status {process.returncode}")
        try:
            with urllib.request.urlopen(base_url + "/api/v1/health", timeout=2) as answer:
                body = answer.read()
        except urllib.error.HTTPError as exc:  # 503 "degraded"
            body = exc.read()
        except OSError:
            body = b""
        with contextlib.suppress(ValueError):
            health = json.loads(body or b"{}")
            if health.get("status") == "ok" or (
                database_only and health.get("checks", {}).get("database") == "ok"
            ):
                return
        time.sleep(0.3)
    raise RuntimeError("gunicorn did not report healthy within a minute")


# --- The stack --------------------------------------------------------------------------------
def database_server_url() -> str:
    """The PostgreSQL server to create the scratch database on: DATABASE_URL when it names
    a PostgreSQL database (its database is only used for CREATE and DROP DATABASE), else
    the postgres database on 127.0.0.1."""
    url = os.environ.get("DATABASE_URL", "")
    return url if url.startswith(("postgres://", "postgresql://")) else DEFAULT_PG_URL


def redis_target(db: int | None = None) -> tuple[str, int, int]:
    """(host, port, db) of the benchmark's Redis: REDIS_URL's when set, else 127.0.0.1:6379
    db 14; ``db`` (a --redis-db option) wins over both."""
    url = os.environ.get("REDIS_URL", "")
    if url.startswith(("redis://", "rediss://")):
        parts = urlsplit(url)
        path_db = parts.path.strip("/")
        number = int(path_db) if path_db.isdigit() else DEFAULT_REDIS_DB
        return parts.hostname or "127.0.0.1", parts.port or 6379, number if db is None else db
    return "127.0.0.1", 6379, DEFAULT_REDIS_DB if db is None else db


@dataclass
class StackConfig:
    workers: int | None = 2  # gunicorn worker processes; None: the conf file's count
    # Synchronous HTTP requests each worker lets into Django at once (ASGI_THREADS);
    # None: the conf file's default.
    asgi_threads: int | None = None
    celery_concurrency: int = 2
    celery: bool = True
    redis_db: int | None = None  # None: REDIS_URL's number, else 14
    keep_logs: bool = False
    extra_env: dict[str, str] = field(default_factory=dict)


class Stack:
    """PostgreSQL scratch database + Redis db + Celery worker + gunicorn, torn down on exit."""

    def __init__(self, config: StackConfig, *, say=print) -> None:
        self.config = config
        self.say = say
        self.database = f"gin_bench_{secrets.token_hex(4)}"
        self.server_url = database_server_url()
        self.database_url = urlunsplit(urlsplit(self.server_url)._replace(path=f"/{self.database}"))
        self.redis_host, self.redis_port, self.redis_db = redis_target(config.redis_db)
        self.redis_url = f"redis://{self.redis_host}:{self.redis_port}/{self.redis_db}"
        self.logs = Path(tempfile.mkdtemp(prefix="gin-bench-"))
        self.base_url = ""
        self.operator_key = ""
        self.staff: tuple[str, str] = ("", "")
        self.gunicorn: subprocess.Popen | None = None
        self.worker: subprocess.Popen | None = None
        self._database_created = False
        self._redis_claimed = False
        self.env = {
            **os.environ,
            "DATABASE_URL": self.database_url,
            "REDIS_URL": self.redis_url,
            "CACHE_KEY_PREFIX": self.database,
            "CHANNEL_LAYER_PREFIX": f"{self.database}:ws",
            "DEBUG": "0",
            "GIN_ENV": "development",
            "LOG_LEVEL": "WARNING",
            # Measure the server, not the rate limiter.
            "THROTTLE_PLAYER": "100000000/min",
            "THROTTLE_OPERATOR": "100000000/min",
            "THROTTLE_ANON": "100000000/min",
            "GUNICORN_ACCESSLOG": "",
            "PYTHONUNBUFFERED": "1",
            **config.extra_env,
        }
        if config.workers is not None:
            self.env["GUNICORN_WORKERS"] = str(config.workers)
        if config.asgi_threads is not None:
            self.env["ASGI_THREADS"] = str(config.asgi_threads)
        self.env.pop("CELERY_BROKER_URL", None)

    # The with-block -----------------------------------------------------------------------
    def __enter__(self) -> Stack:
        try:
            self._start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def _start(self) -> None:
        self._claim_redis()
        self._create_database()
        started = time.monotonic()
        self.manage("migrate", "--noinput", "--verbosity", "0")
        seed = self.manage("shell", "-c", SEED_CODE)
        line = next(x for x in seed.splitlines() if x.startswith("SEED "))
        data = json.loads(line[5:])
        self.operator_key, self.staff = data["operator_key"], tuple(data["staff"])
        self.say(
            f"scratch database {self.database} migrated and seeded "
            f"in {time.monotonic() - started:.0f} s"
        )
        if self.config.celery:
            self.worker = start_group(
                worker_command(
                    pool="prefork",
                    concurrency=self.config.celery_concurrency,
                    hostname=f"{self.database}@%h",
                    heartbeat=True,
                ),
                self.env,
                self.logs / "celery.log",
            )
        port = free_port()
        self.base_url = f"http://127.0.0.1:{port}"
        self.gunicorn = start_group(
            gunicorn_command(port=port, workers=self.config.workers),
            self.env,
            self.logs / "gunicorn.log",
        )
        wait_healthy(self.base_url, self.gunicorn)
        if self.worker is not None and self.worker.poll() is not None:
            raise RuntimeError(f"the Celery worker exited: see {self.logs / 'celery.log'}")

    def close(self) -> None:
        for name in ("gunicorn", "worker"):
            process = getattr(self, name)
            try:
                stop_group(process)
            except Exception as exc:
                self.say(f"cleanup: stopping {name}: {exc}")
            setattr(self, name, None)
        if self._redis_claimed:
            try:
                self._redis().flushdb()
            except Exception as exc:
                self.say(f"cleanup: flushing Redis db {self.redis_db}: {exc}")
            self._redis_claimed = False
        if self._database_created:
            try:
                self._pg(f'DROP DATABASE IF EXISTS "{self.database}" WITH (FORCE)')
            except Exception as exc:
                self.say(f"cleanup: dropping {self.database}: {exc}")
            self._database_created = False
        if not self.config.keep_logs:
            shutil.rmtree(self.logs, ignore_errors=True)

    # Helpers ------------------------------------------------------------------------------
    @property
    def ws_url(self) -> str:
        """The sockets' base URL: ws://127.0.0.1:<port>."""
        return "ws" + self.base_url.removeprefix("http")

    def describe(self) -> str:
        """The server line of a report: what gunicorn runs, as configured."""
        workers = self.config.workers or "the conf file's (one per CPU, at least 2)"
        threads = self.config.asgi_threads or "the conf file's default"
        return (
            f"gunicorn + uvicorn workers (ASGI, deploy/gunicorn.conf.py), {workers} workers, "
            f"ASGI_THREADS {threads}"
        )

    def manage(self, *args: str, check: bool = True) -> str:
        """``manage.py`` against the scratch database; its output (stdout and stderr)."""
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        if check and done.returncode:
            raise RuntimeError(
                f"manage.py {args[0]} exited {done.returncode}:\n{done.stdout}{done.stderr}"
            )
        self.last_returncode = done.returncode
        return done.stdout + done.stderr

    def sql(self, query: str) -> list[tuple]:
        import psycopg

        with psycopg.connect(self.database_url, autocommit=True) as connection:
            return connection.execute(query).fetchall()

    def pg_stats(self) -> dict[str, float]:
        """The scratch database's counters (pg_stat_database): ``sessions``, connections
        ever opened (the web processes' pools open a few; with ``DATABASE_POOL=0`` one per
        request and per database call of a socket's consumer), and ``active_ms``, the time
        its backends spent running statements: the PostgreSQL work of this database alone, which the
        server-wide CPU figure cannot separate from other databases'."""
        return database_stats(self.sql)

    def postgres_memory(self) -> dict[str, int]:
        """The private memory (RssAnon) of this database's backends: the shared buffers are
        the server's, whatever it serves."""
        backends = self.sql(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid()"
        )
        return {"postgres": sum(process_rss(pid, "RssAnon") for (pid,) in backends)}

    def pids(self) -> dict[str, int]:
        groups = {}
        if self.gunicorn is not None:
            groups["gunicorn"] = self.gunicorn.pid
        if self.worker is not None:
            groups["celery"] = self.worker.pid
        return groups

    def cpu_meter(self) -> CpuMeter:
        return CpuMeter(groups=self.pids(), database=self.database)

    def log_problems(self, limit: int = 12) -> list[str]:
        """ERROR/CRITICAL lines and exception heads from the server and worker logs."""
        paths = [self.logs / name for name in ("gunicorn.log", "celery.log")]
        logs = {path.name: path.read_text(errors="replace") for path in paths if path.exists()}
        return problem_lines(logs, limit)

    def redis_info(self, section: str) -> dict:
        """Redis's ``INFO`` section (the whole server's, e.g. ``memory``)."""
        return self._redis().info(section)

    def _redis(self):
        import redis

        return redis.Redis(host=self.redis_host, port=self.redis_port, db=self.redis_db)

    def _claim_redis(self) -> None:
        keys = self._redis().dbsize()
        if keys:
            raise RuntimeError(
                f"Redis db {self.redis_db} holds {keys} keys: not ours to flush. Choose "
                f"another with --redis-db, or clear it: redis-cli -n {self.redis_db} flushdb"
            )
        self._redis_claimed = True

    def _create_database(self) -> None:
        self._pg(f'CREATE DATABASE "{self.database}"')
        self._database_created = True

    def _pg(self, statement: str) -> None:
        import psycopg

        with psycopg.connect(self.server_url, autocommit=True, connect_timeout=10) as conn:
            conn.execute(statement)


LOG_PROBLEM = re.compile(r"\b(ERROR|CRITICAL)\b|^\w*(Error|Exception):|Traceback")


def problem_lines(logs: dict[str, str], limit: int = 12) -> list[str]:
    """The ERROR/CRITICAL lines and exception heads of each log (its name -> its text)."""
    found = [
        f"{name}: {line.strip()[:300]}"
        for name, text in logs.items()
        for line in text.splitlines()
        if LOG_PROBLEM.search(line)
    ]
    return found if len(found) <= limit else [*found[:limit], f"... {len(found)} in all"]


def database_stats(sql) -> dict[str, float]:
    """``sessions`` and ``active_ms`` of the database ``sql`` (a query function) runs in,
    from pg_stat_database (``Stack.pg_stats``)."""
    rows = sql(
        "SELECT sessions, active_time FROM pg_stat_database WHERE datname = current_database()"
    )
    sessions, active = rows[0] if rows else (0, 0)
    return {"sessions": float(sessions or 0), "active_ms": float(active or 0)}


def machine_summary() -> str:
    """CPU model and count, memory, load average: the context of a measurement."""
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
        memory_kb = int(Path("/proc/meminfo").read_text().split()[1])
        load = Path("/proc/loadavg").read_text().split()[:3]
    except OSError:
        return model
    cpus = len(os.sched_getaffinity(0))
    return (
        f"{cpus} x {model}, {memory_kb // 1024 // 1024} GiB RAM, "
        f"load average {' '.join(load)} at start"
    )


# --- A stack benchmark's report and exit -----------------------------------------------------
def say(line: str = "") -> None:
    """One line of the report, printed at once (a long run is read as it goes)."""
    print(line, flush=True)


def finish(args, results: dict, problems: list[str]) -> int:
    """The end of a run: ``results`` with the command line and the problems written to
    ``--json`` when asked, each problem said, and the exit status (1 if there is any)."""
    if args.json:
        report = {"args": sys.argv[1:], **results, "problems": problems}
        args.json.write_text(json.dumps(report, indent=2))
    for problem in problems:
        say(f"PROBLEM: {problem}")
    return 1 if problems else 0


def run_script(main, *, stopped: str) -> None:
    """A stack benchmark's entry point: exits with ``main()``'s status; on Ctrl-C, once the
    stack has cleaned up, says so (``stopped``: what was stopped and dropped) and exits 130."""
    os.environ.setdefault("PYTHONHASHSEED", "0")
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        say(f"interrupted: {stopped}")
        sys.exit(130)
