"""Reading the environment into settings, and the production start-up checks (README
"Configuration").

Kept apart from ``settings.py`` so the rules are plain functions that tests can call.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable, Mapping

from cryptography.fernet import Fernet

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


def secret_key_is_weak(secret: str) -> bool:
    """Django's own rule (``check --deploy``, security.W009): at least 50 characters, at
    least 5 distinct ones, not the ``django-insecure-`` key startproject writes."""
    return len(secret) < 50 or len(set(secret)) < 5 or secret.startswith("django-insecure-")


def encryption_keys(raw: str) -> list[str]:
    """The comma-separated Fernet keys of ``SECRETS_ENCRYPTION_KEY``; the first encrypts,
    every one decrypts (rotation: put the new key first, re-encrypt, drop the old one)."""
    return [key.strip() for key in raw.split(",") if key.strip()]


def invalid_encryption_keys(keys: Iterable[str]) -> list[int]:
    """Positions (1-based) of the keys that are not Fernet keys (32 url-safe base64 bytes)."""
    bad = []
    for position, key in enumerate(keys, start=1):
        try:
            Fernet(key)
        except (ValueError, TypeError):
            bad.append(position)
    return bad


def derived_encryption_key(secret_key: str) -> str:
    """A Fernet key derived from SECRET_KEY: development and tests only (production must
    set SECRETS_ENCRYPTION_KEY, so rotating SECRET_KEY never makes stored secrets unreadable)."""
    digest = hashlib.sha256(b"gin-platform secrets at rest\x00" + secret_key.encode()).digest()
    return base64.urlsafe_b64encode(digest).decode()


MIN_IDEMPOTENCY_RETENTION_SECONDS = 3600


def idempotency_retention_seconds(env: Mapping[str, str]) -> int:
    """How long an Idempotency-Key is remembered (``IDEMPOTENCY_RETENTION_SECONDS``,
    default 24 h as Stripe; at least an hour, so a slow retry is still recognised)."""
    raw = env.get("IDEMPOTENCY_RETENTION_SECONDS", "86400")
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(
            f"IDEMPOTENCY_RETENTION_SECONDS={raw!r} is not a number of seconds"
        ) from None
    if value < MIN_IDEMPOTENCY_RETENTION_SECONDS:
        raise ValueError(
            f"IDEMPOTENCY_RETENTION_SECONDS={raw!r}: use at least "
            f"{MIN_IDEMPOTENCY_RETENTION_SECONDS} seconds"
        )
    return value


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
    broker = broker_url(env)
    if not broker or not broker.startswith(("redis://", "rediss://")):
        problems.append("the Celery broker is not Redis: set REDIS_URL or CELERY_BROKER_URL")
    secret = env.get("SECRET_KEY", "")
    if not secret:
        problems.append("SECRET_KEY is not set")
    elif secret_key_is_weak(secret):
        problems.append("SECRET_KEY is weak: use at least 50 random characters")
    hosts = env_list(env, "ALLOWED_HOSTS", default=[])
    if not hosts:
        problems.append("ALLOWED_HOSTS is not set")
    elif "*" in hosts:
        problems.append("ALLOWED_HOSTS contains '*': list the host names clients and probes send")
    keys = encryption_keys(env.get("SECRETS_ENCRYPTION_KEY", ""))
    if not keys:
        problems.append(
            "SECRETS_ENCRYPTION_KEY is not set: it encrypts webhook and signing secrets at rest "
            "(python -c 'from cryptography.fernet import Fernet; print(Fernet.generate_key()"
            ".decode())')"
        )
    for position in invalid_encryption_keys(keys):
        problems.append(
            f"SECRETS_ENCRYPTION_KEY key {position} is not a Fernet key "
            "(32 url-safe base64-encoded bytes)"
        )
    try:
        private_targets = env_bool(env, "WEBHOOK_ALLOW_PRIVATE_TARGETS", default=False)
    except ValueError as exc:
        problems.append(str(exc))
    else:
        if private_targets:
            problems.append(
                "WEBHOOK_ALLOW_PRIVATE_TARGETS is on: webhooks could reach the internal "
                "network; it is for development and test only"
            )
    return problems


def logging_settings(*, level: str, eager: bool) -> dict:
    """Django's LOGGING: one console handler that withholds secrets."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
        # No secret (API key, session token, signing secret) is ever written to a log.
        "filters": {"withhold_secrets": {"()": "gin_platform.redaction.WithholdSecretsFilter"}},
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "formatter": "plain",
                "filters": ["withhold_secrets"],
            }
        },
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            "django.db.backends": {"level": "WARNING"},
            # The ASGI server logs request lines itself, query strings included (a socket's
            # ticket travels there): its loggers withhold secrets too, whatever handler they use.
            "uvicorn.access": {"filters": ["withhold_secrets"]},
            "uvicorn.error": {"filters": ["withhold_secrets"]},
            # Eager mode has no broker; kombu's "no hostname" warning says only that.
            **({"kombu": {"level": "ERROR"}} if eager else {}),
        },
    }
