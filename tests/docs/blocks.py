"""Running a page's shell blocks as a reader would: `make serve` in one terminal, the blocks
pasted in order into bash in a second one (docs/walkthrough.md, docs/integration.md).

A page run this way has only ``sh`` blocks (run) and ``text`` ones (not commands): a fence of
any other language would escape the run. ``run_blocks`` runs the blocks in one bash
(``set -euo pipefail``) with ``API`` the server's base URL and nothing else defined for them,
and returns each block's output lines for the test to check against what the page says;
``run_page`` does all of it for a page: `make serve` as the page says, then its blocks.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

from gin_platform.demo.server import free_port

ROOT = Path(__file__).resolve().parents[2]
MARKER = "::doc-block-{}::"
# A fresh machine's settings: none of this shell's database or broker URLs.
EMBEDDED_ONLY = ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "GIN_ENV")
FENCE = re.compile(r"^```(\S*)\n(.*?)^```$", re.S | re.M)


def page_blocks(text: str) -> list[str]:
    """The page's ``sh`` blocks, in order (every fence starts at the left margin)."""
    fences = FENCE.findall(text)
    assert {language for language, _ in fences} <= {"sh", "text"}, [f[0] for f in fences]
    assert text.count("```") == 2 * len(fences), "a fence not at the left margin"
    return [body for language, body in fences if language == "sh"]


def block_outputs(stdout: str, count: int) -> list[list[str]]:
    outputs: list[list[str]] = []
    for line in stdout.splitlines():
        if line == MARKER.format(len(outputs)):
            outputs.append([])
        elif outputs:
            outputs[-1].append(line)
    assert len(outputs) == count, stdout[-3000:]
    return outputs


def run_blocks(blocks: list[str], *, env: dict[str, str], api: str) -> list[list[str]]:
    """The blocks in one ``bash`` (``set -euo pipefail``: a failing command fails the run),
    as a reader pastes them one after the other, with ``$API`` the server; each block's
    output lines."""
    script = "set -euo pipefail\n" + "".join(
        f"echo '{MARKER.format(i)}'\n{block}" for i, block in enumerate(blocks)
    )
    run = subprocess.run(
        ["bash", "-c", script],
        cwd=ROOT,
        env=env | {"API": api},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, f"{run.stdout[-3000:]}\n---\n{run.stderr[-3000:]}"
    return block_outputs(run.stdout, len(blocks))


def json_then_lines(lines: list[str]) -> tuple[object, list[str]]:
    """A pretty-printed JSON document at the start of ``lines``, and the lines after it."""
    text = "\n".join(lines)
    value, end = json.JSONDecoder().raw_decode(text)
    return value, text[end:].strip("\n").splitlines()


def not_at_midnight() -> None:
    """The pages ask for today's report (UTC): do not start right before midnight."""
    now = datetime.now(UTC)
    midnight = datetime.combine(now.date() + timedelta(days=1), datetime.min.time(), UTC)
    if (midnight - now).total_seconds() < 120:
        time.sleep((midnight - now).total_seconds() + 1)


def fresh_machine_env(var_dir: Path) -> dict[str, str]:
    """This shell's environment less the database and broker URLs, with its own var/."""
    env = {k: v for k, v in os.environ.items() if k not in EMBEDDED_ONLY}
    env["GIN_VAR_DIR"] = str(var_dir)
    return env


def stop_group(process: subprocess.Popen, *, timeout: float = 20) -> None:
    """SIGTERM to the process group `make serve` leads (make and gunicorn), then SIGKILL."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    with contextlib.suppress(ProcessLookupError):  # gunicorn outliving make
        os.killpg(process.pid, signal.SIGKILL)


@contextlib.contextmanager
def make_serve(env: dict[str, str], log: Path) -> Iterator[str]:
    """`make serve` on a free port; the API's base URL once it answers."""
    # make serve installs the runtime lock first; the suite runs after `make install`, which
    # leaves that stamp, so here it must be a no-op, never an install behind the test's back.
    fresh = subprocess.run(["make", "-q", "install-base"], cwd=ROOT, env=env, check=False)
    assert fresh.returncode == 0, "the runtime lock is not installed: run `make install`"
    port = free_port()
    with log.open("w") as output:
        server = subprocess.Popen(
            ["make", "--no-print-directory", "serve", f"PORT={port}"],
            cwd=ROOT,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            assert server.poll() is None, f"make serve exited:\n{log.read_text()[-3000:]}"
            try:
                with urllib.request.urlopen(base + "/api/v1/health", timeout=2):
                    break
            except OSError:
                assert time.monotonic() < deadline, "the server did not answer within 120 s"
                time.sleep(0.2)
        yield base + "/api/v1"
    finally:
        stop_group(server)


def run_page(text: str, workdir: Path, *, blocks: int) -> tuple[str, list[list[str]]]:
    """A page run as a reader runs it: it says to start the server with `make serve`, which
    runs here on a fresh machine's settings under ``workdir``, and its ``blocks`` sh blocks
    (which need neither uuidgen nor jq) are pasted in order. The API's base URL it ran
    against, and each block's output lines."""
    assert "start the server: `make serve`" in " ".join(text.split())
    commands = page_blocks(text)
    assert len(commands) == blocks, "the page's checks follow it block by block"
    for command in commands:
        assert "uuidgen" not in command and "jq " not in command
    env = fresh_machine_env(workdir / "var")
    not_at_midnight()
    with make_serve(env, workdir / "serve.log") as api:
        return api, run_blocks(commands, env=env, api=api)
