"""Run the web server on a loopback port for the length of a ``with`` block: gunicorn with
deploy/gunicorn.conf.py, its workers uvicorn serving ``gin_platform.project.asgi:application``, so
the HTTP API and the WebSockets under /ws/v1/ answer on the same port, as in production."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APPLICATION = "gin_platform.project.asgi:application"
# A local server's stop: gunicorn's graceful timeout for the requests in flight (production's
# 35 s is for a load balancer's draining; a local run has nothing worth waiting that long for),
# then a few seconds more before the whole server is killed.
GRACEFUL_SECONDS = 10


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass(frozen=True)
class RunningServer:
    url: str  # http://127.0.0.1:<port>
    process: subprocess.Popen

    @property
    def ws_url(self) -> str:
        return "ws" + self.url.removeprefix("http")

    def wait(self) -> int:
        """Block until the server exits (or the caller is interrupted); its exit status."""
        return self.process.wait()


def server_command(*, port: int, workers: int | None = None) -> list[str]:
    """The production web command on a loopback port. Without ``workers`` the configuration
    picks the count: one process on the embedded default, whose in-memory channel layer
    works inside one process only; one per CPU with Redis (deploy/gunicorn.conf.py)."""
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


def server_environment(env: Mapping[str, str | None] | None = None) -> dict[str, str]:
    """This process's environment with ``env`` applied: a value of None removes the name
    (``{"REDIS_URL": None}`` serves the embedded default whatever the caller's shell set)."""
    merged: dict[str, str | None] = {**os.environ, "GUNICORN_ACCESSLOG": "", **(env or {})}
    return {name: value for name, value in merged.items() if value is not None}


@contextlib.contextmanager
def running_server(
    *,
    workers: int | None = None,
    port: int | None = None,
    env: Mapping[str, str | None] | None = None,
) -> Iterator[RunningServer]:
    port = port or free_port()
    # Its own session: a terminal's Ctrl-C reaches the caller alone, which stops the server
    # one way (below); and the server's workers can be found, and killed, as one group.
    process = subprocess.Popen(  # noqa: S603 - our own interpreter and arguments
        server_command(port=port, workers=workers),
        cwd=ROOT,
        env=server_environment({"GUNICORN_GRACEFUL_TIMEOUT": str(GRACEFUL_SECONDS), **(env or {})}),
        start_new_session=True,
    )
    server = RunningServer(url=f"http://127.0.0.1:{port}", process=process)
    try:
        _wait_until_healthy(server)
        yield server
    finally:
        _stop(process)


def _stop(process: subprocess.Popen) -> None:
    """SIGTERM to gunicorn (graceful: its workers finish their requests), then SIGKILL to the
    server's whole process group: no worker outlives the server, holding its port or the
    caller's terminal."""
    if process.poll() is None:
        process.terminate()
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=GRACEFUL_SECONDS + 5)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def _wait_until_healthy(server: RunningServer, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"the server exited with status {server.process.returncode}")
        try:
            with urllib.request.urlopen(server.url + "/api/v1/health", timeout=2):  # noqa: S310
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("the server did not become healthy within a minute")
