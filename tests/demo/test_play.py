"""``make play`` (``manage.py demo --play``): the server on a fixed loopback port, a launch URL
from the operator API that opens a player session, another on Enter, a clean stop on Ctrl-C,
and the same operator, room and player on the next run."""

from __future__ import annotations

import contextlib
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import pytest

from gin_platform.demo.client import ApiClient, ApiError
from gin_platform.demo.play import PRACTICE_ROOM
from gin_platform.demo.server import free_port
from tests.processes import manage

ROOT = Path(__file__).resolve().parents[2]
EMBEDDED_ONLY = ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "GIN_ENV")
LAUNCH_URL = re.compile(r"^\s+(http://127\.0\.0\.1:(\d+)/play/(?:\?lang=\w+)?#launch=(glt_\S+))$")
TIMEOUT = 60


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> dict[str, str]:
    environment = {k: v for k, v in os.environ.items() if k not in EMBEDDED_ONLY}
    environment["GIN_VAR_DIR"] = str(tmp_path_factory.mktemp("play"))
    manage(environment, "migrate", "--verbosity", "0")
    return environment


class Play:
    """``demo --play`` in its own process group, as in a terminal: lines of its output as
    they come, Enter on its input, Ctrl-C to the whole group."""

    def __init__(self, env: dict[str, str], port: int, *, sigint_ignored: bool = False) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "manage.py", "demo", "--play", "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
            # As a background job of a non-interactive shell (a CI runner) starts it: SIGINT
            # ignored, which the child inherits and Python then leaves ignored.
            preexec_fn=(lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
            if sigint_ignored
            else None,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def next_launch_url(self) -> re.Match:
        while True:
            line = self.lines.get(timeout=TIMEOUT)
            assert line is not None, "\n".join(self.seen)
            self.seen.append(line)
            if match := LAUNCH_URL.match(line):
                return match

    def enter(self) -> None:
        self.process.stdin.write("\n")
        self.process.stdin.flush()

    def ctrl_c(self) -> int:
        os.killpg(self.process.pid, signal.SIGINT)
        try:
            status = self.process.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            raise AssertionError(
                f"still running {TIMEOUT} s after Ctrl-C:\n{self.processes()}\n"
                + "\n".join(self.seen)
            ) from None
        while (line := self.lines.get(timeout=TIMEOUT)) is not None:
            self.seen.append(line)
        return status

    def server_pids(self) -> list[int]:
        """The demo's children: the server, which runs in a session of its own."""
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        with contextlib.suppress(OSError):
            return [int(pid) for pid in children.read_text().split()]
        return []

    def processes(self) -> str:
        """What is still running of this run (the demo, its server and workers), to say why
        a stop took too long."""
        groups = {str(self.process.pid), *map(str, self.server_pids())}
        listing = subprocess.run(
            ["ps", "-eo", "pid,ppid,pgid,stat,etime,args"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.splitlines()
        return "\n".join(line for line in listing[1:] if line.split()[2] in groups)

    def stop(self) -> None:
        if self.process.poll() is None:
            for server in self.server_pids():
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(server, signal.SIGKILL)
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


def port_is_free(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


def open_launch_url(url: re.Match) -> dict:
    """What the page at /play/ does with the URL's fragment: exchange the launch token."""
    base = url[1].split("/play/")[0]
    return ApiClient(base).post("/api/v1/launch/session", {"launch_token": url[3]})


def test_play_prints_launch_urls_that_open_a_session_and_stops_on_ctrl_c(env):
    port = free_port()
    play = Play(env, port)
    try:
        first = play.next_launch_url()
        assert int(first[2]) == port
        with urllib.request.urlopen(first[1].split("#")[0], timeout=TIMEOUT) as page:
            assert page.status == 200 and page.headers.get_content_type() == "text/html"
        session = open_launch_url(first)
        assert session["token"].startswith("gps_") and session["options"]["mode"] == "lobby"
        player = ApiClient(first[1].split("/play/")[0], token=session["token"])
        lobby = player.get("/api/v1/lobby")
        assert PRACTICE_ROOM["name"] in {room["name"] for room in lobby["results"]}
        with pytest.raises(ApiError) as used:
            open_launch_url(first)  # a launch URL works once
        assert used.value.status == 401

        play.enter()
        second = play.next_launch_url()
        assert second[3] != first[3]
        assert open_launch_url(second)["player"]["id"] == session["player"]["id"]
        assert play.ctrl_c() == 0
    finally:
        play.stop()
    assert "Server stopped." in play.seen
    assert any("Opened the practice room" in line for line in play.seen)
    assert port_is_free(port)  # no server left behind

    # The next run finds the same operator, room and player; it stops on Ctrl-C even when
    # started with SIGINT ignored (it ran on, in CI's full runs, until it set its own).
    again = Play(env, port, sigint_ignored=True)
    try:
        session = open_launch_url(again.next_launch_url())
        assert again.ctrl_c() == 0
    finally:
        again.stop()
    assert not any("Opened the practice room" in line for line in again.seen)
    assert not any("Created the player" in line for line in again.seen)


def test_play_names_the_way_out_when_the_port_is_taken(env):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "manage.py", "demo", "--play", "--port", str(port)],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    assert result.returncode == 1
    assert f"127.0.0.1:{port} is taken" in result.stderr
    assert f"make play PORT={port + 1}" in result.stderr
