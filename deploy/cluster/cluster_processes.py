"""The topology's processes (topology.py): each started in a process group of its own,
stopped as a group, PostgreSQL's commands run as its user when started by root, and the
waits for something to answer. Standard library only."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import stat
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# PostgreSQL refuses to run as root: as root, its commands run as this user (and its
# directories are handed to it).
PG_USER = os.environ.get("CLUSTER_PG_USER", "postgres")


def as_pg_user(command: list[str]) -> list[str]:
    return ["runuser", "-u", PG_USER, "--", *command] if os.geteuid() == 0 else command


def pg_owned(path: Path, *, directory: bool = True) -> Path:
    """``path`` created (a directory, mode 0700, or an empty file) and owned by the
    PostgreSQL user when we are root."""
    if directory:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    else:
        path.touch()
    if os.geteuid() == 0:
        shutil.chown(path, PG_USER, PG_USER)
        ancestors_traversable(path)
    return path


def ancestors_traversable(path: Path) -> None:
    """Every directory above ``path`` searchable by others (o+x, not readable), so that the
    PostgreSQL user reaches its directories in a checkout made by root under a private
    directory (``mktemp -d`` makes it 0700: initdb could not reach its data directory)."""
    for parent in path.resolve().parents:
        mode = parent.stat().st_mode
        if not mode & stat.S_IXOTH:
            parent.chmod(stat.S_IMODE(mode) | stat.S_IXOTH)


# --- Processes -----------------------------------------------------------------------------
def start_group(command: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
    """A child in its own process group (its pid is the group's id), its output appended to
    ``log``."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as out:
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    return process


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def stop_group(
    pgid: int,
    *,
    grace: float = 20.0,
    sig: int = signal.SIGTERM,
    process: subprocess.Popen | None = None,
) -> None:
    """``sig`` to the process group, SIGKILL after ``grace`` seconds. ``process``: the
    group's leader when it is our child, collected as it exits (a zombie leader would keep
    the group alive to ``killpg``)."""

    def _reap() -> None:
        if process is not None:
            process.poll()

    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        _reap()
        if not group_alive(pgid):
            return
        time.sleep(0.1)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)
    for _ in range(50):
        _reap()
        if not group_alive(pgid):
            return
        time.sleep(0.1)


def run(command: list[str], *, env: dict[str, str] | None = None, timeout: float = 600) -> str:
    done = subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    if done.returncode:
        raise RuntimeError(
            f"{' '.join(command[:3])} exited {done.returncode}:\n{done.stdout}{done.stderr}"[-3000:]
        )
    return done.stdout


def http_ok(url: str, *, timeout: float = 2.0, headers: dict[str, str] | None = None) -> bool:
    request = urllib.request.Request(url, headers=headers or {})  # noqa: S310 - our loopback
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:  # noqa: S310
            return answer.status == 200
    except (urllib.error.URLError, OSError):
        return False


def wait_for(what: str, check, *, timeout: float, interval: float = 0.2) -> float:
    """Until ``check()`` is true; the seconds it took. Raises after ``timeout``."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if check():
            return time.monotonic() - started
        time.sleep(interval)
    raise RuntimeError(f"{what}: not within {timeout:.0f} s")


# --- The topology --------------------------------------------------------------------------


PG_BIN = Path(os.environ.get("CLUSTER_PG_BIN", "/usr/lib/postgresql/15/bin"))
INSTALL_HINT = "apt-get install -y haproxy pgbouncer"
# The binaries each piece needs, and the Debian package that ships them.
REQUIRED = {
    "haproxy": ("haproxy", ["/usr/sbin/haproxy"]),
    "pgbouncer": ("pgbouncer", ["/usr/sbin/pgbouncer"]),
    "redis-server": ("redis-server", ["/usr/bin/redis-server"]),
    "initdb": ("postgresql-15", [str(PG_BIN / "initdb")]),
}


class MissingTools(RuntimeError):
    """A binary the topology needs is not installed; the message says what to install."""


def tool_path(name: str) -> str | None:
    _package, candidates = REQUIRED[name]
    for candidate in candidates:
        if Path(candidate).exists():
            return candidate
    return shutil.which(name)


def missing_tools() -> list[str]:
    """The Debian packages to install for the tools that are missing."""
    return sorted({REQUIRED[name][0] for name in REQUIRED if tool_path(name) is None})


def check_tools() -> None:
    missing = missing_tools()
    if missing:
        raise MissingTools(
            f"missing: {', '.join(missing)}. Install them (as root): "
            f"apt-get install -y {' '.join(missing)}  (or: make cluster-tools)"
        )
