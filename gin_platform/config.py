"""Reading the environment into settings, and the production start-up checks (issue 2 item 3).

Kept apart from ``settings.py`` so the rules are plain functions that tests can call.
"""

from __future__ import annotations

from collections.abc import Mapping

TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off", ""})
ENVIRONMENTS = ("development", "test", "production")


def env_bool(env: Mapping[str, str], name: str, *, default: bool) -> bool:
    raw = env.get(name)
    if raw is None:
        return default
    word = raw.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ValueError(f"{name}={raw!r} is not a boolean (use 1/0, true/false, yes/no, on/off)")


def env_list(env: Mapping[str, str], name: str, *, default: list[str]) -> list[str]:
    raw = env.get(name)
    if raw is None:
        return list(default)
    return [item.strip() for item in raw.split(",") if item.strip()]


def redis_url(env: Mapping[str, str]) -> str | None:
    """The Redis URL used for the cache, throttling and (unless overridden) the broker."""
    return env.get("REDIS_URL") or None


def broker_url(env: Mapping[str, str]) -> str | None:
    return env.get("CELERY_BROKER_URL") or redis_url(env)


def production_problems(*, env: Mapping[str, str], debug: bool, database_engine: str) -> list[str]:
    """Every reason production mode must refuse to start, each naming what to fix."""
    problems = []
    if debug:
        problems.append("DEBUG is on: set DEBUG=0 in production")
    if "postgresql" not in database_engine:
        problems.append(
            "the database is not PostgreSQL: set DATABASE_URL=postgres://... in production"
        )
    if not redis_url(env):
        problems.append("Redis is not configured: set REDIS_URL=redis://... in production")
    if not broker_url(env) or not broker_url(env).startswith(("redis://", "rediss://")):
        problems.append("the Celery broker is not Redis: set REDIS_URL or CELERY_BROKER_URL")
    secret = env.get("SECRET_KEY", "")
    if not secret:
        problems.append("SECRET_KEY is not set")
    elif len(secret) < 50 or secret.startswith("django-insecure-"):
        problems.append("SECRET_KEY is weak: use at least 50 random characters")
    if not env_list(env, "ALLOWED_HOSTS", default=[]):
        problems.append("ALLOWED_HOSTS is not set")
    return problems
