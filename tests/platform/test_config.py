"""Settings from the environment; production refuses unsafe starts and runs HTTPS-only."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gin_platform.project.celery import app
from gin_platform.project.config import (
    broker_url,
    env_bool,
    env_list,
    idempotency_retention_seconds,
    production_problems,
)

ROOT = Path(__file__).resolve().parents[2]
GOOD_PRODUCTION = {
    "SECRET_KEY": "Jq3v9Xk2LrT8mWc5Yp1Zs7Nd4Hf6Gb0Ea-Ru_Ko2Vi8Tx3Ly9Pw5Qe1Mz7Cj4Bn",
    "ALLOWED_HOSTS": "api.example.com",
    "REDIS_URL": "redis://127.0.0.1:6379/0",
    "SECRETS_ENCRYPTION_KEY": "x3k0vJtHq0yWm3c6dQ3v6g6Zl7z8Hk1o2Jw9nY5pR4s=",
}
PRODUCTION_DATABASE = {"DATABASE_URL": "postgres://postgres@127.0.0.1:5432/x"}
PG = "django.db.backends.postgresql"


def test_env_bool_accepts_common_words_and_refuses_others():
    assert env_bool({"X": "yes"}, "X", default=False) is True
    assert env_bool({"X": "0"}, "X", default=True) is False
    assert env_bool({}, "X", default=True) is True
    with pytest.raises(ValueError, match="X='maybe'"):
        env_bool({"X": "maybe"}, "X", default=False)


def test_env_list_splits_on_commas():
    assert env_list({"H": "a.com, b.com,"}, "H", default=[]) == ["a.com", "b.com"]


def test_broker_defaults_to_the_redis_url():
    assert broker_url({"REDIS_URL": "redis://r/0"}) == "redis://r/0"
    assert broker_url({"REDIS_URL": "redis://r/0", "CELERY_BROKER_URL": "redis://b/1"}) == (
        "redis://b/1"
    )
    assert broker_url({}) is None


def test_a_complete_production_configuration_has_no_problems():
    assert (
        production_problems(
            env=GOOD_PRODUCTION, debug=False, database_engine="django.db.backends.postgresql"
        )
        == []
    )


@pytest.mark.parametrize(
    ("change", "debug", "engine", "expected"),
    [
        ({}, True, "django.db.backends.postgresql", "DEBUG is on"),
        ({}, False, "django.db.backends.sqlite3", "not PostgreSQL"),
        ({"REDIS_URL": ""}, False, "django.db.backends.postgresql", "Redis is not configured"),
        ({"SECRET_KEY": ""}, False, "django.db.backends.postgresql", "SECRET_KEY is not set"),
        ({"SECRET_KEY": "short"}, False, "django.db.backends.postgresql", "SECRET_KEY is weak"),
        (
            {"SECRET_KEY": "django-insecure-" + "x" * 50},
            False,
            "django.db.backends.postgresql",
            "SECRET_KEY is weak",
        ),
        ({"SECRET_KEY": "a" * 50}, False, PG, "SECRET_KEY is weak"),
        ({"SECRET_KEY": "abcd" * 20}, False, PG, "SECRET_KEY is weak"),
        ({"ALLOWED_HOSTS": "*"}, False, PG, "ALLOWED_HOSTS contains '*'"),
        ({"ALLOWED_HOSTS": "api.example.com,*"}, False, PG, "ALLOWED_HOSTS contains '*'"),
        ({"SECRETS_ENCRYPTION_KEY": ""}, False, PG, "SECRETS_ENCRYPTION_KEY is not set"),
        ({"SECRETS_ENCRYPTION_KEY": "not-a-key"}, False, PG, "key 1 is not a Fernet key"),
        (
            {"SECRETS_ENCRYPTION_KEY": GOOD_PRODUCTION["SECRETS_ENCRYPTION_KEY"] + ",short"},
            False,
            PG,
            "key 2 is not a Fernet key",
        ),
        ({"WEBHOOK_ALLOW_PRIVATE_TARGETS": "1"}, False, PG, "WEBHOOK_ALLOW_PRIVATE_TARGETS"),
    ],
)
def test_each_production_problem_is_named(change, debug, engine, expected):
    env = GOOD_PRODUCTION | change
    problems = production_problems(env=env, debug=debug, database_engine=engine)
    assert any(expected in problem for problem in problems), problems


def run_django_setup(extra_env: dict[str, str]) -> subprocess.CompletedProcess:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "DEBUG"}
    }
    env.update(extra_env)
    return subprocess.run(
        [sys.executable, "-c", "import django; django.setup(); print('started')"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_mode_refuses_to_start_on_sqlite_without_redis_with_debug():
    result = run_django_setup({"GIN_ENV": "production", "DEBUG": "1"})
    assert result.returncode != 0
    assert "refusing to start in production mode" in result.stderr
    assert "DEBUG is on" in result.stderr
    assert "not PostgreSQL" in result.stderr
    assert "Redis is not configured" in result.stderr


def test_production_mode_starts_when_everything_is_configured():
    result = run_django_setup(GOOD_PRODUCTION | PRODUCTION_DATABASE | {"GIN_ENV": "production"})
    assert result.returncode == 0, result.stderr
    assert "started" in result.stdout


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"SECRET_KEY": "a" * 50}, "SECRET_KEY is weak"),
        ({"ALLOWED_HOSTS": "*"}, "ALLOWED_HOSTS contains '*'"),
        ({"SECRETS_ENCRYPTION_KEY": ""}, "SECRETS_ENCRYPTION_KEY is not set"),
        ({"WEBHOOK_ALLOW_PRIVATE_TARGETS": "1"}, "WEBHOOK_ALLOW_PRIVATE_TARGETS is on"),
    ],
)
def test_production_mode_refuses_a_weak_key_any_host_and_no_encryption_key(change, named):
    result = run_django_setup(
        GOOD_PRODUCTION | PRODUCTION_DATABASE | {"GIN_ENV": "production"} | change
    )
    assert result.returncode != 0
    assert "refusing to start in production mode" in result.stderr
    assert named in result.stderr


def production_settings(extra: dict[str, str]) -> dict:
    code = (
        "import django, json; django.setup(); from django.conf import settings as s; "
        "print(json.dumps({name: getattr(s, name, None) for name in ("
        "'SECURE_SSL_REDIRECT', 'SECURE_REDIRECT_EXEMPT', 'SECURE_HSTS_SECONDS', "
        "'SECURE_HSTS_INCLUDE_SUBDOMAINS', 'SECURE_HSTS_PRELOAD', 'SESSION_COOKIE_SECURE', "
        "'CSRF_COOKIE_SECURE', 'SECURE_PROXY_SSL_HEADER', 'WEBHOOK_ALLOW_PRIVATE_TARGETS', "
        "'WEBHOOK_ALLOW_HTTP', 'IDEMPOTENCY_RETENTION_SECONDS', "
        "'OPERATOR_ORIGINS_ALLOW_HTTP_LOCALHOST')}))"
    )
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "DEBUG"}
    }
    env.update(GOOD_PRODUCTION | PRODUCTION_DATABASE | {"GIN_ENV": "production"} | extra)
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_production_is_https_only_with_a_year_of_hsts():
    values = production_settings({})
    assert values["SECURE_SSL_REDIRECT"] is True
    assert values["SECURE_HSTS_SECONDS"] == 365 * 24 * 3600
    assert values["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is True
    assert values["SECURE_HSTS_PRELOAD"] is True
    assert values["SESSION_COOKIE_SECURE"] is True
    assert values["CSRF_COOKIE_SECURE"] is True
    assert values["WEBHOOK_ALLOW_PRIVATE_TARGETS"] is False
    assert values["OPERATOR_ORIGINS_ALLOW_HTTP_LOCALHOST"] is False  # https:// origins only
    assert values["WEBHOOK_ALLOW_HTTP"] is False
    assert values["IDEMPOTENCY_RETENTION_SECONDS"] == 24 * 3600
    # X-Forwarded-Proto is trusted only when the deployment says a proxy sets it.
    assert values["SECURE_PROXY_SSL_HEADER"] is None
    behind_proxy = production_settings({"TRUSTED_PROXY_HEADERS": "1"})
    assert behind_proxy["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]


def test_check_deploy_prints_no_warning_for_a_good_production_environment():
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "DEBUG"}
    }
    env.update(GOOD_PRODUCTION | PRODUCTION_DATABASE | {"GIN_ENV": "production"})
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "System check identified no issues" in result.stdout, result.stdout + result.stderr
    assert "WARNINGS" not in result.stdout + result.stderr


def test_the_health_probes_are_not_redirected_to_https(client, settings):
    """k8s probes and the image's HEALTHCHECK speak plain HTTP to the process."""
    values = production_settings({})
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_REDIRECT_EXEMPT = values["SECURE_REDIRECT_EXEMPT"]
    assert client.get("/api/v1/health/live").status_code == 200
    assert client.get("/api/v1/health").status_code in {200, 503}
    redirected = client.get("/api/v1/players")
    assert redirected.status_code == 301
    assert redirected["Location"].startswith("https://")


def test_idempotency_retention_is_read_and_bounded():
    assert idempotency_retention_seconds({}) == 86400
    assert idempotency_retention_seconds({"IDEMPOTENCY_RETENTION_SECONDS": "7200"}) == 7200
    with pytest.raises(ValueError, match="at least 3600"):
        idempotency_retention_seconds({"IDEMPOTENCY_RETENTION_SECONDS": "60"})


def test_development_default_is_sqlite_and_eager_celery():
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import django; django.setup(); from django.conf import settings as s; "
            "print(s.DATABASES['default']['ENGINE'], s.CELERY_TASK_ALWAYS_EAGER, "
            "s.CACHES['default']['BACKEND'])",
        ],
        cwd=ROOT,
        env={
            k: v
            for k, v in os.environ.items()
            if k not in {"DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL"}
        },
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [
        "django.db.backends.sqlite3",
        "True",
        "django.core.cache.backends.locmem.LocMemCache",
    ]


def test_celery_app_autodiscovers_and_reads_django_settings():
    assert app.main == "gin_platform"
    assert app.conf.task_acks_late is True
    assert app.conf.task_reject_on_worker_lost is True
