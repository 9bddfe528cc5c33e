"""Run the web server on a loopback port for the length of a ``with`` block: gunicorn with
deploy/gunicorn.conf.py, its workers uvicorn serving ``gin_platform.project.asgi:application``, so
the HTTP API and the WebSockets under /ws/v1/ answer on the same port, as in production."""

from __future__ import annotations

import contextlib
import os
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
    process = subprocess.Popen(  # noqa: S603 - our own interpreter and arguments
        server_command(port=port, workers=workers), cwd=ROOT, env=server_environment(env)
    )
    server = RunningServer(url=f"http://127.0.0.1:{port}", process=process)
    try:
        _wait_until_healthy(server)
        yield server
    finally:
        process.terminate()
        try:
            # gunicorn's graceful timeout (35 s) bounds a clean stop; sockets close at once.
            process.wait(timeout=40)
        except subprocess.TimeoutExpired:
            process.kill()
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
