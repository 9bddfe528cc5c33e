"""Run the API under gunicorn on a free loopback port for the length of a ``with`` block."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def running_server(*, workers: int = 2, env: dict[str, str] | None = None) -> Iterator[str]:
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    command = [
        sys.executable,
        "-m",
        "gunicorn",
        "gin_platform.wsgi:application",
        "--config",
        str(ROOT / "deploy" / "gunicorn.conf.py"),
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        str(workers),
        "--log-level",
        "warning",
    ]
    server_env = {**os.environ, "GUNICORN_ACCESSLOG": "", **(env or {})}
    process = subprocess.Popen(command, cwd=ROOT, env=server_env)  # noqa: S603
    try:
        _wait_until_healthy(base_url, process)
        yield base_url
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_until_healthy(base_url: str, process: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with status {process.returncode}")
        try:
            with urllib.request.urlopen(base_url + "/api/v1/health", timeout=2):  # noqa: S310
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("the server did not become healthy within a minute")
