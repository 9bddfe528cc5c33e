"""Browser tests of the hosted table page (docs/play.md): Debian's chromium, driven by
Playwright, against a live ASGI server (uvicorn serving ``gin_platform.project.asgi:application``).

The server is a child process on a free port, started once per session:

- On PostgreSQL (CI) it serves the test database itself, so every test module here is
  marked ``django_db(transaction=True)``: what the server commits is real, and the
  database is flushed after each test.
- On SQLite the test database lives in memory, which no other process can open; the server
  then runs on its own SQLite file, migrated when it starts.

Either way Celery runs eagerly inside the server (the house bot answers and settlement
posts on commit) and the channel layer is in memory: one server process holds every socket.
The tests create what they need over the operator API, as an operator would, and open the
page from launch URLs minted there. Screenshots of key moments go to
``var/test-artifacts/browser/`` (docs/testing.md).
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.db import connection
from playwright.sync_api import sync_playwright

from gin_platform.project.web_server import uvicorn_command
from tests.browser.pages import ARTIFACTS, CHROMIUM, OperatorApi
from tests.processes import manage, stop
from tests.servers import database_url, free_port, wait_until_serving

ROOT = Path(__file__).resolve().parents[2]
# What the server must not inherit: it picks its own database, broker and channel layer.
SERVER_ENV_DROP = {
    "DATABASE_URL",
    "REDIS_URL",
    "CELERY_BROKER_URL",
    "CHANNEL_LAYER_URL",
    "PUBLIC_BASE_URL",
    "DJANGO_SETTINGS_MODULE",
}


@dataclass
class LiveServer:
    url: str
    env: dict[str, str]
    shares_test_database: bool
    log: Path | None = None

    def manage(self, *args: str) -> str:
        """``manage.py <args>`` against the server's database; its standard output."""
        return manage(self.env, *args, timeout=120)


@pytest.fixture(scope="session")
def page_server(django_db_setup, tmp_path_factory) -> Iterator[LiveServer]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: `make chromium` installs Debian's chromium")
    workdir = tmp_path_factory.mktemp("page-server")
    on_postgresql = connection.vendor == "postgresql"
    env = {key: value for key, value in os.environ.items() if key not in SERVER_ENV_DROP}
    env |= {
        "DJANGO_SETTINGS_MODULE": "gin_platform.project.settings",
        "GIN_ENV": "development",
        "DEBUG": "0",
        "GIN_VAR_DIR": str(workdir),
        # Whole games in a few seconds: the player throttle must not get in the way.
        "THROTTLE_PLAYER": "100000/min",
        "THROTTLE_ANON": "100000/min",
        "PYTHONUNBUFFERED": "1",
    }
    if on_postgresql:
        env["DATABASE_URL"] = database_url(connection.settings_dict)
    port = free_port()
    log = workdir / "server.log"
    server = LiveServer(
        url=f"http://127.0.0.1:{port}", env=env, shares_test_database=on_postgresql, log=log
    )
    if not on_postgresql:
        server.manage("migrate", "--verbosity", "0")
    # Served as in production: the collected files with their gzip copies (settings'
    # STORAGES), so what a browser test weighs is what a player downloads.
    server.manage("collectstatic", "--noinput", "--verbosity", "0")
    with log.open("w") as output:
        process = subprocess.Popen(
            uvicorn_command(port=port),  # with the platform's WebSocket protocol
            cwd=ROOT,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_until_serving(server.url, process, log)
        yield server
    finally:
        stop(process)


@pytest.fixture
def play_server(page_server) -> LiveServer:
    """The page server for a test of this folder. Each test module is marked
    ``django_db(transaction=True)``: on PostgreSQL what the server commits is flushed after
    the test (and the marker is what makes pytest-django create the test database)."""
    return page_server


@pytest.fixture
def site(play_server, request) -> OperatorApi:
    """A fresh operator on the live server, with its API key: what the test builds, it
    builds over the operator API."""
    slug = f"browser-{request.node.name[:30].lower().replace('_', '-')}-{time.time_ns() % 10**9}"
    slug = "".join(ch if ch.isalnum() or ch == "-" else "-" for ch in slug)
    key = play_server.manage("create_operator", slug, "--currency", "EUR", "--key-only").strip()
    return OperatorApi(play_server.url, key)


@pytest.fixture
def browser(play_server) -> Iterator:
    """Debian's chromium (never a downloaded one: no `playwright install`), started for each
    test after its database fixtures and stopped before their teardown: Playwright's sync
    API keeps an event loop running while it is open, and Django refuses database calls
    (the transactional flush) from a thread with a running loop."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield browser
        browser.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Keep each phase's report on the test, so fixtures can tell a failed test apart."""
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"report_{report.when}", report)


@pytest.fixture
def contexts(browser, request, page_server) -> Iterator:
    """Browser contexts (one per person: their own sessionStorage), closed after the test;
    any script error or console error on any page of them fails the test (Chromium logs a
    fetch answered 4xx/5xx, a resource missing and a CSP violation as console errors). A
    test that provokes one on purpose declares it, narrowly: ``@pytest.mark.console_errors(
    r"regex", ...)``, each matched in full against ``"<message text> [<resource URL>]"``.
    When the test fails, every open
    page is kept as a screenshot (``failed-<test>-<n>.png``) and its console messages and
    the server log's tail are printed, so a failure that happens only on a loaded CI
    machine can be read afterwards."""
    opened: list = []
    errors: list[str] = []
    console: list[str] = []
    console_errors: list[str] = []

    def on_console(message) -> None:
        console.append(f"{message.type}: {message.text}")
        if message.type == "error":
            console_errors.append(f"{message.text} [{message.location.get('url', '')}]")

    def watch(page) -> None:
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", on_console)

    def new_context(**options):
        context = browser.new_context(**({"viewport": {"width": 1100, "height": 900}} | options))
        context.on("page", watch)
        opened.append(context)
        return context

    yield new_context
    report = getattr(request.node, "report_call", None)
    if report is not None and report.failed:
        _keep_failure(request.node.name, opened, console, page_server)
    for context in opened:
        context.close()
    assert errors == [], f"script errors on the page: {errors}"
    expected = [
        re.compile(pattern)
        for marker in request.node.iter_markers("console_errors")
        for pattern in marker.args
    ]
    unexpected = [text for text in console_errors if not any(p.fullmatch(text) for p in expected)]
    assert unexpected == [], f"console errors on the page: {unexpected}"


def _keep_failure(name: str, contexts: list, console: list[str], server: LiveServer) -> None:
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", name)[:80]
    pages = [page for context in contexts for page in context.pages]
    for number, page in enumerate(pages):
        with contextlib.suppress(Exception):  # a crashed page must not hide the failure
            page.screenshot(path=str(ARTIFACTS / f"failed-{safe}-{number}.png"), full_page=True)
    for number, page in enumerate(pages):
        # What the player saw (an alert's problem, the screen it stopped on) tells a refused
        # request from a push that never came.
        with contextlib.suppress(Exception):
            text = page.locator("main").inner_text(timeout=2000)
            alerts = page.get_by_role("alert").all_inner_texts()
            print(f"\n--- page {number} at {page.url} ---\nalerts: {alerts}\n{text[:1500]}")
    print(f"\n--- console of the pages of {name} ---")
    print("\n".join(console[-80:]) or "(nothing)")
    if server.log is not None and server.log.exists():
        print(f"--- the page server's log, last lines ---\n{server.log.read_text()[-6000:]}")


@pytest.fixture(scope="session", autouse=True)
def _artifacts_dir() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
