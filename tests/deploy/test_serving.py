"""How the web processes serve (deploy/gunicorn.conf.py, docs/deploy.md "The web server"): one
process only with the in-memory channel layer, Django requests capped per process, database
connections handed back to a pool after each request; and the API docs page that works offline."""

from __future__ import annotations

import copy
import gc
import os
import re
import runpy
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlsplit

import pytest
import requests
from django.conf import settings as django_settings
from django.contrib.staticfiles import finders
from django.db import connection
from playwright.sync_api import sync_playwright
from rest_framework.test import APIClient

from gin_platform.api.docs import REDOC_BUNDLE
from tests.browser.pages import CHROMIUM
from tests.processes import stop
from tests.servers import database_url, free_port, wait_until_serving

ROOT = Path(__file__).resolve().parents[2]
CONF = ROOT / "deploy" / "gunicorn.conf.py"
IN_MEMORY = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
REDIS = {
    "default": {
        "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
        "CONFIG": {"hosts": ["redis://127.0.0.1:6379/0"]},
    }
}


@pytest.fixture
def conf(monkeypatch) -> Iterator[dict]:
    monkeypatch.delenv("ASGI_THREADS", raising=False)
    yield runpy.run_path(str(CONF))
    # post_worker_init froze this process's heap (gin_platform/request_path/collector.py)
    gc.unfreeze()


class Log:
    def __init__(self) -> None:
        self.errors: list[str] = []

    def error(self, message: str, *args) -> None:
        self.errors.append(message % args)


def fake_worker(workers: int) -> SimpleNamespace:
    async def app(scope, receive, send):
        pass

    return SimpleNamespace(cfg=SimpleNamespace(workers=workers), log=Log(), wsgi=app)


# --- one process with the in-memory channel layer --------------------------------------------
def test_the_server_refuses_two_workers_without_redis(tmp_path):
    """Before any worker starts, with a message naming the reason and the ways out."""
    env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "GUNICORN_WORKERS"}}
    command = [sys.executable, "-m", "gunicorn", "gin_platform.project.asgi:application"]
    result = subprocess.run(
        [*command, "--config", str(CONF), "--bind", "127.0.0.1:0", "--workers", "2"],
        cwd=ROOT,
        env=env | {"GIN_VAR_DIR": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert "refusing to start 2 workers: the channel layer is in memory" in result.stderr
    assert "GUNICORN_WORKERS=1" in result.stderr and "set REDIS_URL" in result.stderr


def test_a_worker_refuses_to_serve_beside_others_with_the_in_memory_layer(conf, settings):
    """The check in each worker reads the real settings, whatever the environment said."""
    settings.CHANNEL_LAYERS = IN_MEMORY
    worker = fake_worker(workers=3)
    with pytest.raises(SystemExit) as stopped:
        conf["post_worker_init"](worker)
    assert stopped.value.code == 4  # APP_LOAD_ERROR: the arbiter halts instead of respawning
    assert worker.log.errors[0].startswith("refusing to start 3 workers: the channel layer")


@pytest.fixture
def worker_databases(monkeypatch) -> dict:
    """The databases post_worker_init changes: a copy of the settings' own, so the pool and
    CONN_MAX_AGE it sets never reach this test process's connections (a pool option left on
    them breaks the test database's teardown)."""
    databases = copy.deepcopy(django_settings.DATABASES)
    monkeypatch.setattr(django_settings, "DATABASES", databases)
    return databases


@pytest.mark.parametrize(("layers", "workers"), [(IN_MEMORY, 1), (REDIS, 4)])
def test_a_worker_serves_when_the_layer_allows_it(
    conf, settings, worker_databases, layers, workers
):
    settings.CHANNEL_LAYERS = layers
    worker_databases["default"]["CONN_MAX_AGE"] = 60
    worker = fake_worker(workers=workers)
    app = worker.wsgi
    conf["post_worker_init"](worker)
    assert worker.log.errors == []
    assert gc.get_freeze_count() > 0  # the loaded application is out of later collections
    assert worker.wsgi is app  # HTTP is capped by the application's thread pool
    pooled = "pool" in worker_databases["default"].get("OPTIONS", {})
    # The pool refuses persistent connections; without one each HTTP thread keeps its own.
    assert worker_databases["default"]["CONN_MAX_AGE"] == (0 if pooled else 60)


@pytest.mark.parametrize(("redis_url", "kept"), [("", 1), ("redis://redis:6379/0", 2)])
def test_ttin_never_adds_a_second_worker_without_redis(conf, monkeypatch, redis_url, kept):
    monkeypatch.setenv("REDIS_URL", redis_url)
    server = SimpleNamespace(_num_workers=2, log=Log())
    conf["nworkers_changed"](server, 2, 1)
    assert server._num_workers == kept
    assert bool(server.log.errors) == (kept == 1)


# --- the database pool -----------------------------------------------------------------------
POSTGRES = {"ENGINE": "django.db.backends.postgresql", "NAME": "gin", "OPTIONS": {}}
SQLITE = {"ENGINE": "django.db.backends.sqlite3", "NAME": "gin.sqlite3", "OPTIONS": {}}


def test_a_postgresql_worker_hands_connections_back_to_a_pool_sized_to_its_threads(
    conf, worker_databases
):
    worker_databases["default"] = dict(POSTGRES, OPTIONS={}, CONN_MAX_AGE=60)
    conf["post_worker_init"](fake_worker(workers=1))
    database = worker_databases["default"]
    assert database["CONN_MAX_AGE"] == 0  # the pool refuses persistent connections
    assert database["OPTIONS"]["pool"] == {
        "min_size": 2,
        "max_size": conf["asgi_threads"] + 8,
        "timeout": 10.0,
        "max_idle": 300,
    }


def test_sqlite_has_no_pool_and_postgresql_can_do_without(conf, monkeypatch):
    assert conf["database_pool_options"](SQLITE, {}) is None
    assert conf["database_pool_options"](POSTGRES, {"DATABASE_POOL": "0"}) is None
    sized = {"DATABASE_POOL_MIN_SIZE": "1", "DATABASE_POOL_MAX_SIZE": "5"}
    assert conf["database_pool_options"](POSTGRES, sized)["max_size"] == 5


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_server_reuses_pooled_connections_across_requests(tmp_path):
    """A real server on PostgreSQL: 30 requests that each read the database are served by the
    same few connections, which stay open between requests (before the pool, each request
    opened and closed one)."""
    name = f"gin-pool-test-{os.getpid()}"
    env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "GUNICORN_WORKERS"}}
    env |= {
        "DATABASE_URL": f"{database_url(connection.settings_dict)}?application_name={name}",
        "GIN_VAR_DIR": str(tmp_path),
        "GIN_ENV": "development",
        "DEBUG": "0",
        "GUNICORN_ACCESSLOG": "",
    }
    port = free_port()
    log = tmp_path / "server.log"
    command = [sys.executable, "-m", "gunicorn", "gin_platform.project.asgi:application"]
    with log.open("w") as output:
        server = subprocess.Popen(
            [*command, "--config", str(CONF), "--bind", f"127.0.0.1:{port}", "--workers", "1"],
            cwd=ROOT,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"

    def backends() -> set[tuple[int, object]]:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pid, backend_start FROM pg_stat_activity WHERE application_name = %s",
                [name],
            )
            return set(cursor.fetchall())

    try:
        wait_until_serving(url, server, log)
        for _ in range(5):
            assert requests.get(f"{url}/api/v1/health", timeout=10).status_code == 200
        first = backends()
        for _ in range(25):
            assert requests.get(f"{url}/api/v1/health", timeout=10).status_code == 200
        # The same connections served all 25 (the pool may grow by one while it fills at start).
        assert first and backends() == first
        assert len(first) < 5
    finally:
        stop(server)


# --- the API docs work offline ---------------------------------------------------------------
def _requests_of_the_rendered_page(url: str) -> tuple[list[str], list[str]]:
    """Every URL the page at ``url`` asks for in Debian's chromium until it is rendered and
    the network is idle (scripts, styles, images, fetches, workers), and its console errors.
    Nothing leaves the machine: requests to another host are recorded, then aborted."""
    own = urlsplit(url).netloc
    requested: list[str] = []
    errors: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page()
            page.on("request", lambda request: requested.append(request.url))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.route(
                "**/*",
                lambda route: (
                    route.continue_()
                    if urlsplit(route.request.url).netloc == own
                    else route.abort()
                ),
            )
            page.goto(url, wait_until="load", timeout=60_000)
            # Rendered: the document's title is on the page (then its images are asked for).
            page.get_by_text("Gin Rummy wagering platform API").first.wait_for(timeout=60_000)
            page.wait_for_load_state("networkidle", timeout=60_000)
            page.wait_for_timeout(500)
        finally:
            browser.close()
    return requested, errors


@pytest.mark.parametrize(
    ("path", "assets"),
    [
        ("/api/v1/docs/", 3),  # Swagger UI's script, preset and stylesheet
        ("/api/v1/redoc/", 1),  # Redoc's standalone script (its Google Fonts links left out)
    ],
)
def test_the_api_docs_pages_load_nothing_from_another_host(live_server, path, assets):
    response = APIClient().get(path)
    assert response.status_code == 200
    page = response.content.decode()
    references = re.findall(r"""(?:src|href)\s*=\s*["']([^"']+)["']""", page)
    assert len(references) >= assets
    for reference in references:
        parts = urlsplit(reference)
        if parts.scheme == "data":  # Redoc's empty icon: loads nothing
            continue
        assert not parts.scheme and not parts.netloc, reference
        # Served by the app itself (WhiteNoise, or the app's copy of Redoc), not a CDN.
        assert APIClient().get(reference).status_code == 200, reference
    assert not re.search(r"(?:https?:)?//[a-z0-9.-]+\.[a-z]{2,}", page, re.IGNORECASE)
    if path == "/api/v1/docs/":
        assert '"validatorUrl": null' in page  # no schema sent to validator.swagger.io

    # What the page's scripts ask for once it runs: Redoc's bundle hard-codes its logo
    # (https://cdn.redoc.ly/redoc/logo-mini.svg), which no reference in the HTML shows.
    requested, errors = _requests_of_the_rendered_page(live_server.url + path)
    own = urlsplit(live_server.url).netloc
    assert any(url.endswith("/api/v1/schema/") for url in requested), requested
    elsewhere = [
        url
        for url in requested
        if urlsplit(url).scheme not in ("data", "blob") and urlsplit(url).netloc != own
    ]
    assert elsewhere == []
    assert errors == []


@pytest.mark.django_db
def test_the_redoc_page_runs_the_sidecars_bundle_without_redoclys_logo():
    client = APIClient()
    page = client.get("/api/v1/redoc/")
    assert '<script src="/api/v1/redoc/redoc.standalone.js">' in page.content.decode()
    # Should a later bundle name another host's asset, the browser would not load it.
    policy = page["Content-Security-Policy"]
    assert "default-src 'none'" in policy and "img-src 'self' data:" in policy
    assert "connect-src 'self'" in policy

    bundle = client.get("/api/v1/redoc/redoc.standalone.js")
    assert bundle.status_code == 200
    assert bundle["Content-Type"] == "text/javascript; charset=utf-8"
    sidecar = Path(finders.find(REDOC_BUNDLE)).read_bytes()
    logo = b"https://cdn.redoc.ly/redoc/logo-mini.svg"
    assert logo in sidecar and b"cdn.redoc.ly" not in bundle.content
    assert bundle.content == sidecar.replace(logo, b"")  # nothing else changed
    assert (
        client.get(bundle.wsgi_request.path, HTTP_IF_NONE_MATCH=bundle["ETag"]).status_code == 304
    )
