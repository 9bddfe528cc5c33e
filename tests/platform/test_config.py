"""Issue 2 item 3: settings from the environment; production refuses unsafe starts."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gin_platform.config import broker_url, env_bool, env_list, production_problems

ROOT = Path(__file__).resolve().parents[2]
GOOD_PRODUCTION = {
    "SECRET_KEY": "s" * 50,
    "ALLOWED_HOSTS": "api.example.com",
    "REDIS_URL": "redis://127.0.0.1:6379/0",
}


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
    result = run_django_setup(
        GOOD_PRODUCTION
        | {"GIN_ENV": "production", "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/x"}
    )
    assert result.returncode == 0, result.stderr
    assert "started" in result.stdout


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
    from gin_platform.celery import app

    assert app.main == "gin_platform"
    assert app.conf.task_acks_late is True
    assert app.conf.task_reject_on_worker_lost is True
