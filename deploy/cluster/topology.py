"""The production topology on one machine (docs/deploy.md "The topology on one machine"):
a PostgreSQL primary and its synchronous streaming replica, PgBouncer in transaction mode in
front of the primary, a private Redis, two web nodes (gunicorn with deploy/gunicorn.conf.py,
separate process groups on their own ports) behind HAProxy, two Celery workers and one
beat. Everything lives under one directory (``var/cluster`` by default) and listens on
127.0.0.1 on ports of its own.

``Topology.start()`` builds it from nothing (initdb, pg_basebackup -R, the generated
pgbouncer.ini and haproxy.cfg, migrate) and starts every process in a process group of its
own, recorded in ``<dir>/pids.json`` so another process (``deploy/cluster/run stop``) can
stop them. ``promote()`` is the failover: the replica promoted with ``pg_ctl promote``,
synchronous replication turned off on it (no standby is left to acknowledge a commit) and
PgBouncer pointed at it with a reload, so web and workers reconnect through PgBouncer
without a restart. ``kill``/``restart_*`` are the faults the chaos run
(tests/benchmarks/bench_chaos.py) injects.

Standard library only (the PostgreSQL client is ``psql``): the script runs before any
virtualenv package is needed, and the tests and the chaos run import it as they are.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from cluster_configs import (
    DATABASE,
    DEFAULT_PORT_BASE,
    PROBLEM_PAGES,
    haproxy_cfg,
    pgbouncer_ini,
    ports_from,
    postgresql_conf,
    problem_page,
)
from cluster_processes import (
    PG_BIN,
    ROOT,
    as_pg_user,
    check_tools,
    group_alive,
    http_ok,
    pg_owned,
    run,
    start_group,
    stop_group,
    tool_path,
    wait_for,
)

REPLICA_NAME = "replica1"  # the standby's application_name, named by synchronous_standby_names
CELERY = (sys.executable, "-m", "celery", "-A", "gin_platform")  # a worker or beat follows


# --- Generated configuration ---------------------------------------------------------------
@dataclass
class Topology:
    directory: Path = ROOT / "var" / "cluster"
    port_base: int = DEFAULT_PORT_BASE
    web_workers: int = 2  # gunicorn workers per web node
    celery_concurrency: int = 1  # processes per Celery worker
    pool_size: int = 40  # PgBouncer's server connections per database
    extra_env: dict[str, str] = field(default_factory=dict)
    say: object = print
    ports: dict[str, int] = field(init=False)
    pids: dict[str, int] = field(default_factory=dict)
    processes: dict[str, subprocess.Popen] = field(default_factory=dict, repr=False)
    primary: str = "pg-primary"  # the data directory serving as primary now
    standby: str | None = "pg-replica"

    def __post_init__(self) -> None:
        self.directory = Path(self.directory).resolve()
        self.ports = ports_from(self.port_base)

    # Paths and URLs ------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.ports['haproxy']}"

    def node_url(self, node: str) -> str:
        return f"http://127.0.0.1:{self.ports['web_' + node]}"

    @property
    def database_url(self) -> str:
        """What the app uses: the database through PgBouncer."""
        return f"postgres://postgres@127.0.0.1:{self.ports['pgbouncer']}/{DATABASE}"

    def direct_url(self, data_dir: str | None = None) -> str:
        """The database on the current primary (or ``data_dir``'s server), bypassing
        PgBouncer: migrations and the checks' own reads."""
        port = self._pg_port(data_dir or self.primary)
        return f"postgres://postgres@127.0.0.1:{port}/{DATABASE}"

    @property
    def redis_url(self) -> str:
        return f"redis://127.0.0.1:{self.ports['redis']}/0"

    def _pg_port(self, data_dir: str) -> int:
        return self.ports["primary" if data_dir == "pg-primary" else "replica"]

    @property
    def logs(self) -> Path:
        return self.directory / "logs"

    def env(self) -> dict[str, str]:
        """The environment of every app process (web, workers, beat, manage.py)."""
        env = {
            key: value
            for key, value in os.environ.items()
            if key not in ("CELERY_BROKER_URL", "CHANNEL_LAYER_URL", "DATABASE_REPLICA_URL")
        }
        return {
            **env,
            "DATABASE_URL": self.database_url,
            "DATABASE_SERVER_SIDE_BINDING": "0",
            "REDIS_URL": self.redis_url,
            "CELERY_BROKER_URL": f"redis://127.0.0.1:{self.ports['redis']}/1",
            "GIN_ENV": os.environ.get("GIN_ENV", "development"),
            "DEBUG": "0",
            "LOG_LEVEL": os.environ.get("LOG_LEVEL", "WARNING"),
            "GUNICORN_WORKERS": str(self.web_workers),
            "GUNICORN_ACCESSLOG": "",
            "FORWARDED_ALLOW_IPS": "127.0.0.1",
            "CACHE_KEY_PREFIX": "cluster",
            "CHANNEL_LAYER_PREFIX": "cluster:ws",
            "PYTHONUNBUFFERED": "1",
            **self.extra_env,
        }

    # Bookkeeping --------------------------------------------------------------------
    def _save(self) -> None:
        state = {key: getattr(self, key) for key in ("pids", "primary", "standby", "port_base")}
        (self.directory / "pids.json").write_text(json.dumps(state, indent=1))

    def load(self) -> Topology:
        """The state a running ``start`` left in ``pids.json`` (for ``stop``, ``promote``,
        and a benchmark that plays against it: its ports follow the recorded base)."""
        state = json.loads((self.directory / "pids.json").read_text())
        self.pids, self.primary, self.standby = state["pids"], state["primary"], state["standby"]
        self.port_base = state.get("port_base", self.port_base)
        self.ports = ports_from(self.port_base)
        return self

    def _spawn(self, name: str, command: list[str], env: dict[str, str] | None = None) -> None:
        process = start_group(command, env or self.env(), self.logs / f"{name}.log")
        self.processes[name] = process
        self.pids[name] = process.pid
        self._save()

    def _stop(self, name: str, *, grace: float, sig: int = signal.SIGTERM) -> None:
        pid = self.pids.pop(name, None)
        if pid is not None:
            stop_group(pid, grace=grace, sig=sig, process=self.processes.pop(name, None))
            self._save()

    # Building -----------------------------------------------------------------------
    def start(self) -> None:
        check_tools()
        if (self.directory / "pids.json").exists():
            self.load()
            if any(group_alive(pid) for pid in self.pids.values()):
                raise RuntimeError(
                    f"a topology is running from {self.directory}: stop it first "
                    "(deploy/cluster/run stop)"
                )
        shutil.rmtree(self.directory, ignore_errors=True)
        (self.directory / "run").mkdir(parents=True)
        self.logs.mkdir()
        self.pids, self.primary, self.standby = {}, "pg-primary", "pg-replica"
        started = time.monotonic()
        self.primary_build()
        self.migrate()  # before the replica exists: no commit waits for it
        self.say(
            f"PostgreSQL primary :{self.ports['primary']} migrated "
            f"({time.monotonic() - started:.0f} s)"
        )
        self.replica_build()
        self.say(
            f"synchronous replica :{self.ports['replica']} streaming "
            f"({time.monotonic() - started:.0f} s)"
        )
        self.pgbouncer_start()
        self.redis_start()
        for node in ("a", "b"):
            self.web_start(node)
        for number in (1, 2):
            self.worker_start(number)
        self.beat_start()
        self.haproxy_start()
        for node in ("a", "b"):
            self.web_wait(node)
        wait_for(
            "HAProxy sees both web nodes up",
            lambda: self.haproxy_servers_up() == {"web_a", "web_b"},
            timeout=30,
        )
        self.say(f"up in {time.monotonic() - started:.0f} s: {self.describe()}")

    def describe(self) -> str:
        p = self.ports
        return (
            f"HAProxy {self.base_url} (stats :{p['haproxy_stats']}) -> web a :{p['web_a']}, "
            f"web b :{p['web_b']} ({self.web_workers} gunicorn workers each); 2 Celery "
            f"workers + beat; PgBouncer :{p['pgbouncer']} (transaction) -> PostgreSQL "
            f"primary :{self._pg_port(self.primary)}"
            + (f", standby :{self._pg_port(self.standby)}" if self.standby else "")
            + f"; Redis :{p['redis']}; logs in {self.logs}"
        )

    def primary_build(self) -> None:
        primary = pg_owned(self.directory / "pg-primary")
        pg_owned(self.directory / "run")
        run(
            as_pg_user(
                [
                    str(PG_BIN / "initdb"),
                    "-D",
                    str(primary),
                    "-U",
                    "postgres",
                    "--auth=trust",
                    "--encoding=UTF8",
                    "--locale=C.UTF-8",
                    "--no-sync",
                ]
            )
        )
        with (primary / "postgresql.conf").open("a") as conf:
            conf.write(
                postgresql_conf(port=self.ports["primary"], socket_dir=self.directory / "run")
            )
        with (primary / "pg_hba.conf").open("a") as hba:
            hba.write("host replication postgres 127.0.0.1/32 trust\n")
        self.postgres_start("pg-primary")
        self.psql("pg-primary", f"CREATE DATABASE {DATABASE}", database="postgres")

    def replica_build(self) -> None:
        """The standby: a base backup of the primary (``-R``: it follows the primary), then
        named in the primary's ``synchronous_standby_names``."""
        replica = pg_owned(self.directory / "pg-replica")
        run(
            as_pg_user(
                [
                    str(PG_BIN / "pg_basebackup"),
                    "-h",
                    "127.0.0.1",
                    "-p",
                    str(self.ports["primary"]),
                    "-U",
                    "postgres",
                    "-D",
                    str(replica),
                    "-R",
                    "-X",
                    "stream",
                    "--no-sync",
                    "--checkpoint=fast",
                    "-d",
                    f"application_name={REPLICA_NAME}",
                ]
            )
        )
        with (replica / "postgresql.auto.conf").open("a") as conf:
            # The standby's own port; once promoted it has no standby of its own to wait
            # for (promote() says so again on the running server).
            conf.write(f"port = {self.ports['replica']}\nsynchronous_standby_names = ''\n")
        self.postgres_start("pg-replica")
        self.psql("pg-primary", f"ALTER SYSTEM SET synchronous_standby_names = '{REPLICA_NAME}'")
        self.psql("pg-primary", "SELECT pg_reload_conf()")
        wait_for(
            "the replica streams synchronously",
            lambda: (
                self.psql(
                    "pg-primary",
                    "SELECT sync_state FROM pg_stat_replication "
                    f"WHERE application_name = '{REPLICA_NAME}'",
                ).strip()
                == "sync"
            ),
            timeout=60,
        )

    def postgres_start(self, data_dir: str) -> None:
        log = pg_owned(self.logs / f"{data_dir}.log", directory=False)
        run(
            as_pg_user(
                [
                    str(PG_BIN / "pg_ctl"),
                    "start",
                    "-w",
                    "-t",
                    "60",
                    "-D",
                    str(self.directory / data_dir),
                    "-l",
                    str(log),
                ]
            )
        )

    def postgres_stop(self, data_dir: str, *, mode: str = "fast") -> None:
        """``immediate`` is a crash: no checkpoint, connections cut."""
        path = self.directory / data_dir
        if (path / "postmaster.pid").exists():
            with contextlib.suppress(RuntimeError):
                run(
                    as_pg_user(
                        [
                            str(PG_BIN / "pg_ctl"),
                            "stop",
                            "-w",
                            "-t",
                            "60",
                            "-m",
                            mode,
                            "-D",
                            str(path),
                        ]
                    )
                )

    def psql(self, data_dir: str, sql: str, *, database: str = DATABASE) -> str:
        return run(
            [
                str(PG_BIN / "psql"),
                "-X",
                "-A",
                "-t",
                "-v",
                "ON_ERROR_STOP=1",
                "-h",
                "127.0.0.1",
                "-p",
                str(self._pg_port(data_dir)),
                "-U",
                "postgres",
                "-d",
                database,
                "-c",
                sql,
            ],
            timeout=60,
        )

    def pgbouncer_write(self) -> None:
        directory = pg_owned(self.directory / "pgbouncer")  # it refuses to run as root too
        (directory / "userlist.txt").write_text('"postgres" ""\n')
        (directory / "pgbouncer.ini").write_text(
            pgbouncer_ini(
                directory=directory,
                port=self.ports["pgbouncer"],
                primary_port=self._pg_port(self.primary),
                pool_size=self.pool_size,
            )
        )

    def pgbouncer_start(self) -> None:
        self.pgbouncer_write()
        ini = self.directory / "pgbouncer" / "pgbouncer.ini"
        self._spawn("pgbouncer", as_pg_user([tool_path("pgbouncer") or "pgbouncer", str(ini)]))
        wait_for("PgBouncer answers", self._through_pgbouncer, timeout=30)

    def _through_pgbouncer(self) -> bool:
        try:
            out = self._psql_through_pgbouncer(DATABASE, "SELECT pg_is_in_recovery()")
        except (RuntimeError, subprocess.TimeoutExpired):
            return False
        return out.strip() == "f"

    def psql_pgbouncer(self, command: str) -> str:
        """A command on PgBouncer's admin console (``SHOW STATS``, ``SHOW POOLS``)."""
        return self._psql_through_pgbouncer("pgbouncer", command)

    def _psql_through_pgbouncer(self, database: str, command: str) -> str:
        return run(
            [
                str(PG_BIN / "psql"),
                *("-X", "-A", "-t", "-h", "127.0.0.1", "-p", str(self.ports["pgbouncer"])),
                *("-U", "postgres", "-d", database, "-c", command),
            ],
            timeout=10,
        )

    def redis_start(self) -> None:
        directory = self.directory / "redis"
        directory.mkdir(exist_ok=True)
        self._spawn(
            "redis",
            [
                tool_path("redis-server") or "redis-server",
                "--bind",
                "127.0.0.1",
                "--port",
                str(self.ports["redis"]),
                "--dir",
                str(directory),
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "everysec",
                "--maxmemory-policy",
                "noeviction",
                "--daemonize",
                "no",
            ],
        )
        wait_for("Redis answers", self._redis_ping, timeout=30)

    def _redis_answer(self, commands: bytes) -> bytes:
        """What the private Redis answers to ``commands`` (inline protocol); b"" if down."""
        try:
            with socket.create_connection(("127.0.0.1", self.ports["redis"]), timeout=2) as s:
                s.sendall(commands)
                time.sleep(0.1)
                return s.recv(256)
        except OSError:
            return b""

    def _redis_ping(self) -> bool:
        return self._redis_answer(b"PING\r\n").startswith(b"+PONG")

    def broker_queue_length(self) -> int:
        """Tasks waiting in Celery's default queue (the broker's Redis db 1)."""
        answer = self._redis_answer(b"SELECT 1\r\nLLEN celery\r\n").split(b"\r\n")
        return int(answer[1][1:]) if len(answer) > 1 and answer[1][:1] == b":" else -1

    def migrate(self) -> None:
        env = {**self.env(), "DATABASE_URL": self.direct_url()}
        run([sys.executable, "manage.py", "migrate", "--noinput", "--verbosity", "0"], env=env)

    def manage(self, *args: str, timeout: float = 600) -> str:
        """``manage.py`` as the app runs it (through PgBouncer)."""
        return run([sys.executable, "manage.py", *args], env=self.env(), timeout=timeout)

    def web_start(self, node: str) -> None:
        control = self.directory / "run" / f"web_{node}.ctl"  # one per node, not ~/.gunicorn
        env = {**self.env(), "GUNICORN_CONTROL_SOCKET": str(control)}
        self._spawn(
            f"web_{node}",
            [
                sys.executable,
                "-m",
                "gunicorn",
                "gin_platform.project.asgi:application",
                "--config",
                "deploy/gunicorn.conf.py",
                "--bind",
                f"127.0.0.1:{self.ports['web_' + node]}",
            ],
            env,
        )

    def web_wait(self, node: str, timeout: float = 120) -> float:
        return wait_for(
            f"web node {node}",
            lambda: http_ok(self.node_url(node) + "/api/v1/health/live"),
            timeout=timeout,
        )

    def worker_start(self, number: int) -> None:
        self._spawn(
            f"worker_{number}",
            [
                *CELERY,
                *("worker", "--pool", "prefork", "--concurrency", str(self.celery_concurrency)),
                *("--loglevel", "warning", "--hostname", f"worker{number}@%h"),
                *("--without-gossip", "--without-mingle"),
            ],
        )

    def beat_start(self) -> None:
        schedule = self.directory / "run" / "beat-schedule"
        with contextlib.suppress(FileNotFoundError):
            schedule.unlink()
        self._spawn("beat", [*CELERY, "beat", "--loglevel", "warning", "--schedule", str(schedule)])

    def haproxy_start(self) -> None:
        directory = self.directory / "haproxy"
        directory.mkdir(exist_ok=True)
        for status in PROBLEM_PAGES:
            (directory / f"{status}.http").write_text(problem_page(status))
        cfg = directory / "haproxy.cfg"
        cfg.write_text(
            haproxy_cfg(
                directory=directory,
                port=self.ports["haproxy"],
                stats_port=self.ports["haproxy_stats"],
                web_ports=[self.ports["web_a"], self.ports["web_b"]],
            )
        )
        binary = tool_path("haproxy") or "haproxy"
        run([binary, "-c", "-q", "-f", str(cfg)])
        self._spawn("haproxy", [binary, "-db", "-f", str(cfg)])

    def haproxy_servers_up(self) -> set[str]:
        """The web nodes HAProxy checks up now (its stats page's CSV; backups: "no check")."""
        url = f"http://127.0.0.1:{self.ports['haproxy_stats']}/;csv"
        try:
            with urllib.request.urlopen(url, timeout=2) as answer:
                rows = answer.read().decode().splitlines()
        except (urllib.error.URLError, OSError):
            return set()
        servers = [row.split(",") for row in rows[1:] if row.startswith("web,web_")]
        return {cells[1] for cells in servers if len(cells) > 17 and cells[17].startswith("UP")}

    # Faults and failover --------------------------------------------------------------
    def kill(self, name: str) -> None:
        """SIGKILL a whole process group (``web_a``, ``worker_1``, ``redis``, ...)."""
        self._stop(name, grace=10, sig=signal.SIGKILL)

    def restart(self, name: str) -> None:
        """Start ``name`` again (after ``kill``) and wait until it serves."""
        if name.startswith("web_"):
            self.web_start(name[-1])
            self.web_wait(name[-1])
        elif name.startswith("worker_"):
            self.worker_start(int(name[-1]))
        elif name == "beat":
            self.beat_start()
        elif name == "redis":
            self.redis_start()
        elif name == "pgbouncer":
            self.pgbouncer_start()
        else:
            raise ValueError(name)

    def redis_restart(self) -> None:
        """A Redis restart: SIGTERM (it writes its append-only file), then start again."""
        self._stop("redis", grace=10)
        self.redis_start()

    def promote(self) -> float:
        """The failover: the standby promoted (``pg_ctl promote``), its synchronous
        replication off (no standby is left: a commit waiting for one would wait forever),
        PgBouncer pointed at it and reloaded (SIGHUP rereads pgbouncer.ini; its server
        connections to the old primary are dropped as they fail, new ones go to the new
        primary; the app's pools find their broken connections and reconnect). The seconds
        until a query through PgBouncer lands on a primary."""
        if self.standby is None:
            raise RuntimeError("no standby left to promote")
        started = time.monotonic()
        new = self.standby
        run(
            as_pg_user(
                [
                    str(PG_BIN / "pg_ctl"),
                    "promote",
                    "-w",
                    "-t",
                    "60",
                    "-D",
                    str(self.directory / new),
                ]
            )
        )
        self.psql(new, "ALTER SYSTEM SET synchronous_standby_names = ''")
        self.psql(new, "SELECT pg_reload_conf()")
        self.say(f"promoted {new} in {time.monotonic() - started:.1f} s")
        self.primary, self.standby = new, None
        self._save()
        self.pgbouncer_write()
        # SIGHUP to PgBouncer itself (its pidfile): the group's leader may be runuser.
        with contextlib.suppress(OSError, ValueError):
            pidfile = self.directory / "pgbouncer" / "pgbouncer.pid"
            os.kill(int(pidfile.read_text().strip()), signal.SIGHUP)
        try:
            wait_for("PgBouncer reaches the new primary", self._through_pgbouncer, timeout=15)
        except RuntimeError:  # reload left it on dead connections: restart it
            self.kill("pgbouncer")
            self.pgbouncer_start()
        return time.monotonic() - started

    def primary_crash(self) -> None:
        """The primary lost: stopped at once (``immediate``: no checkpoint, as a crash)."""
        self.postgres_stop(self.primary, mode="immediate")

    # Stopping -------------------------------------------------------------------------
    def stop(self) -> None:
        """Every process this topology started: web and workers first (their in-flight work
        ends), then HAProxy, Redis, PgBouncer and PostgreSQL."""
        order = ["haproxy", "web_a", "web_b", "beat", "worker_1", "worker_2", "redis", "pgbouncer"]
        for name in order + [n for n in self.pids if n not in order]:
            self._stop(name, grace=40 if name.startswith(("web_", "worker_")) else 10)
        for data_dir in ("pg-primary", "pg-replica"):
            self.postgres_stop(data_dir)
        if self.directory.exists():
            self._save()
