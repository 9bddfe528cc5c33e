"""A running topology (deploy/cluster, docs/deploy.md "The topology on one machine") seen as
a benchmark's stack: what the chaos run's checks read (``sql``, ``manage``, ``base_url``) and
what bench_push.py's ``--cluster`` mode plays and meters against (the harness ``Stack``'s
``pids``, ``cpu_meter``, ``pg_stats``, ``redis_info``, ``postgres_memory``, ``log_problems``).

Every request and socket goes to HAProxy (``base_url``, ``ws_url``), so both web nodes
serve them; SQL goes straight to the current primary, ``manage.py`` runs as the app does
(through PgBouncer). The topology's processes are its own: nothing here starts or stops one.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

from harness import (
    ROOT,
    SEED_CODE,
    CpuMeter,
    database_stats,
    problem_lines,
    process_tree_rss,
)

sys.path.insert(0, str(ROOT / "deploy" / "cluster"))
from cluster_processes import group_alive
from topology import Topology

# The process groups a benchmark counts as one part of the server (the report's columns),
# and the parts beyond the one-process stack's: the balancer and the pooler.
PIECES = {
    "gunicorn": ("web_a", "web_b"),
    "celery": ("worker_1", "worker_2", "beat"),
    "postgres": ("postgres_primary", "postgres_replica", "postgres_replication"),
}
SERVER_PARTS = ("gunicorn", "postgres", "redis", "celery", "haproxy", "pgbouncer")


class ClusterStack:
    def __init__(self, topology: Topology) -> None:
        self.topology = topology
        self.base_url = topology.base_url
        self.operator_key = ""
        self.staff: tuple[str, str] = ("", "")
        self.last_returncode = 0
        self._log_offsets: dict[str, int] = {}

    @classmethod
    def running(cls, directory: Path) -> ClusterStack:
        """The topology ``deploy/cluster/run start --dir DIRECTORY`` runs (its ports and
        process groups from ``pids.json``); refused when a piece of it is down."""
        if not (Path(directory) / "pids.json").exists():
            raise RuntimeError(f"no topology in {directory}: deploy/cluster/run start --dir ...")
        topology = Topology(directory=directory).load()
        down = sorted(name for name, pid in topology.pids.items() if not group_alive(pid))
        if down or not topology.pids:
            raise RuntimeError(f"the topology in {directory} is not running: {down or 'all'}")
        return cls(topology)

    # The benchmark's stack ---------------------------------------------------------------
    def __enter__(self) -> ClusterStack:
        """Its own operator (an API key and a finance staff user), seeded through PgBouncer
        as the app writes; the logs read from here on."""
        self._log_offsets = {log.name: log.stat().st_size for log in self._logs()}
        seeded = self.seeded(SEED_CODE)
        self.operator_key, self.staff = seeded["operator_key"], tuple(seeded["staff"])
        return self

    def __exit__(self, *exc_info) -> None:
        """Nothing to drop: the seeded rows stay, as no DELETE can remove them (a trigger
        keeps the ledger append-only, and the players, matches and settlements are bound to
        it); the topology's next ``run start`` builds its database from nothing."""

    @property
    def ws_url(self) -> str:
        return "ws" + self.base_url.removeprefix("http")

    def describe(self) -> str:
        return self.topology.describe()

    def pids(self) -> dict[str, int]:
        """Every process group of the topology (web nodes, workers, beat, HAProxy,
        PgBouncer, Redis) by name."""
        return dict(self.topology.pids)

    def postmasters(self) -> dict[str, int]:
        """``primary`` and ``replica`` (as they serve now) -> the postmaster's pid."""
        found = {}
        serving = {"primary": self.topology.primary, "replica": self.topology.standby}
        for role, data_dir in serving.items():
            pidfile = self.topology.directory / (data_dir or "-") / "postmaster.pid"
            if data_dir and pidfile.exists():
                found[role] = int(pidfile.read_text().split("\n", 1)[0])
        return found

    def cpu_meter(self) -> CpuMeter:
        return CpuMeter(groups=self.pids(), postmasters=self.postmasters())

    def pg_stats(self) -> dict[str, float]:
        """The app's database on the primary (pg_stat_database): PgBouncer's connections to
        it and its statement time."""
        return database_stats(self.sql)

    def postgres_memory(self) -> dict[str, int]:
        """Private memory (RssAnon) of each server's postmaster and children: both servers
        are the topology's alone."""
        return {
            f"postgres_{role}": process_tree_rss(pid, "RssAnon")
            for role, pid in self.postmasters().items()
        }

    def redis_info(self, section: str) -> dict:
        import redis

        return redis.Redis(host="127.0.0.1", port=self.topology.ports["redis"], db=0).info(section)

    def log_problems(self, limit: int = 12) -> list[str]:
        """ERROR/CRITICAL lines and exception heads the app's logs (web nodes, workers,
        beat) gained since ``__enter__``, as the one-process stack reads its gunicorn and
        Celery logs. PostgreSQL's own log is not read: a race the app resolves (two first
        uses of an account, ``get_or_create``) leaves an ERROR there by design."""
        app = [log for log in self._logs() if log.name.startswith(("web_", "worker_", "beat"))]
        return problem_lines({log.name: self._since_enter(log) for log in app}, limit)

    # The chaos run's checks ---------------------------------------------------------------
    def sql(self, query: str) -> list[tuple]:
        import psycopg

        with psycopg.connect(self.topology.direct_url(), autocommit=True) as connection:
            return connection.execute(query).fetchall()

    def manage(self, *args: str, check: bool = True) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.topology.env(),
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        self.last_returncode = done.returncode
        if check and done.returncode:
            raise RuntimeError(f"manage.py {args[0]}: {done.stdout}{done.stderr}"[-2000:])
        return done.stdout + done.stderr

    def seeded(self, code: str) -> dict:
        out = self.manage("shell", "-c", code)
        return json.loads(next(x for x in out.splitlines() if x.startswith("SEED "))[5:])

    def log_counts(self) -> Counter:
        """ERROR lines and tracebacks per log (the faults make some: each is listed)."""
        found: Counter = Counter()
        for log in self._logs():
            for line in self._since_enter(log).splitlines():
                if " ERROR" in line or "[ERROR]" in line or "Exception in ASGI" in line:
                    # Timestamps, pids and ids out: one count per kind of message.
                    message = re.sub(r"\d+", "N", line.strip())[:150]
                    found[f"{log.name}: {message}"] += 1
        return found

    def _logs(self) -> list[Path]:
        return sorted(self.topology.logs.glob("*.log"))

    def _since_enter(self, log: Path) -> str:
        """What ``log`` gained since ``__enter__`` (all of it for the chaos run)."""
        with log.open("rb") as stream:
            stream.seek(self._log_offsets.get(log.name, 0))
            return stream.read().decode(errors="replace")
