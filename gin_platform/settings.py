"""Django settings, all read from the environment (README: Configuration).

Embedded default: no ``DATABASE_URL`` means a SQLite file under ``var/``; no ``REDIS_URL``
means Celery runs tasks eagerly and the cache is local memory. ``GIN_ENV=production``
refuses to start unless PostgreSQL, Redis, a secret key and allowed hosts are configured and
DEBUG is off.
"""

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from gin_platform.config import (
    ENVIRONMENTS,
    broker_url,
    env_bool,
    env_list,
    production_problems,
    redis_url,
)

BASE_DIR = Path(__file__).resolve().parent.parent
ENV = os.environ

GIN_ENV = ENV.get("GIN_ENV", "development")
if GIN_ENV not in ENVIRONMENTS:
    raise ImproperlyConfigured(f"GIN_ENV={GIN_ENV!r}: expected one of {', '.join(ENVIRONMENTS)}")

DEBUG = env_bool(ENV, "DEBUG", default=GIN_ENV == "development")
SECRET_KEY = ENV.get("SECRET_KEY") or "insecure-development-key-never-use-in-production"
ALLOWED_HOSTS = env_list(ENV, "ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "gin_platform.apps.PlatformConfig",
    "wallet.apps.WalletConfig",
    "games.apps.GamesConfig",
    "settlement.apps.SettlementConfig",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "gin_platform.urls"
WSGI_APPLICATION = "gin_platform.wsgi.application"
ASGI_APPLICATION = "gin_platform.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database -----------------------------------------------------------------------------
VAR_DIR = Path(ENV.get("GIN_VAR_DIR", BASE_DIR / "var"))
if ENV.get("DATABASE_URL"):
    DATABASES = {
        "default": dj_database_url.parse(
            ENV["DATABASE_URL"], conn_max_age=60, conn_health_checks=True
        )
    }
else:
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": VAR_DIR / "gin.sqlite3",
            # Serialise writers instead of failing with "database is locked" in the demo.
            "OPTIONS": {"timeout": 20, "transaction_mode": "IMMEDIATE"},
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis: cache, throttling, Celery -------------------------------------------------------
REDIS_URL = redis_url(ENV)
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": ENV.get("CACHE_KEY_PREFIX", "gin"),
            # A Redis that stops answering must fail fast (the throttle then fails open),
            # not hang every request until gunicorn kills the worker.
            "OPTIONS": {"socket_connect_timeout": 1.0, "socket_timeout": 1.0},
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

CELERY_BROKER_URL = broker_url(ENV) or "memory://"
CELERY_TASK_ALWAYS_EAGER = broker_url(ENV) is None
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULE: dict = {
    "redeliver-due-webhooks": {
        "task": "gin_platform.tasks.redeliver_due_webhooks",
        "schedule": 60.0,
    },
    "settle-stragglers": {"task": "settlement.tasks.settle_stragglers", "schedule": 60.0},
    "reconcile-ledger": {"task": "settlement.tasks.reconcile_ledger", "schedule": 3600.0},
    # Turn timers (games, issue 7): forfeit turns past their deadline; re-queue bot turns.
    "expire-turns": {"task": "games.tasks.expire_turns", "schedule": 5.0},
}

# --- Security ----------------------------------------------------------------------------
if GIN_ENV == "production":
    problems = production_problems(
        env=ENV, debug=DEBUG, database_engine=DATABASES["default"]["ENGINE"]
    )
    if problems:
        raise ImproperlyConfigured("refusing to start in production mode: " + "; ".join(problems))
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_CONTENT_TYPE_NOSNIFF = True

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"

# --- API ---------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "gin_platform.authentication.OperatorApiKeyAuthentication",
        "gin_platform.authentication.PlayerTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.BasicAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_PAGINATION_CLASS": "gin_platform.pagination.CreatedCursorPagination",
    "DEFAULT_THROTTLE_CLASSES": ["gin_platform.throttling.PrincipalRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {
        "operator": ENV.get("THROTTLE_OPERATOR", "6000/min"),
        "player": ENV.get("THROTTLE_PLAYER", "1200/min"),
        "anon": ENV.get("THROTTLE_ANON", "120/min"),
    },
    "EXCEPTION_HANDLER": "gin_platform.problem_handler.problem_exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "UNAUTHENTICATED_USER": None,
    # Proxies in front of the web processes; X-Forwarded-For is trusted only that deep
    # (anonymous throttling keys on the client address).
    "NUM_PROXIES": int(ENV["NUM_PROXIES"]) if ENV.get("NUM_PROXIES") else None,
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Gin Rummy wagering platform API",
    "DESCRIPTION": (
        "Operators manage players, wallets and sessions with an API key; players use a "
        "short-lived session token for the lobby, seats and game actions. Every error is "
        "RFC 9457 problem+json with a stable `type`."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "COMPONENT_SPLIT_REQUEST": True,
    # The default enum hook, then ours: problem+json error responses, per-operation security
    # and the Idempotency-Key header (gin_platform/openapi.py).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "gin_platform.openapi.postprocess_schema",
    ],
    "ENUM_NAME_OVERRIDES": {
        "OperatorStatusEnum": "gin_platform.models.Operator.Status",
        "PlayerStatusEnum": "gin_platform.models.Player.Status",
        "HealthStatusEnum": [("ok", "ok"), ("degraded", "degraded")],
        "LedgerTransactionKindEnum": "wallet.models.LedgerTransaction.Kind",
        "WalletLimitKindEnum": "wallet.models.LimitKind",
    },
}

# Player session tokens (issue 2 item 5): short-lived by default, capped.
PLAYER_SESSION_DEFAULT_TTL_SECONDS = int(ENV.get("PLAYER_SESSION_TTL", "3600"))
PLAYER_SESSION_MAX_TTL_SECONDS = 24 * 3600
# Request signing (issue 2 item 6): accepted clock skew.
REQUEST_SIGNATURE_TOLERANCE_SECONDS = 300
# Idempotency: an in-flight record older than this is taken to be from a dead request.
IDEMPOTENCY_STALE_AFTER_SECONDS = 120
# Practice chips (docs/wallet.md): granted on a player's first practice buy-in; a player may
# top back up to the grant at most once per period of this many seconds (UTC clock hours).
WALLET_PRACTICE_GRANT = 10_000
WALLET_PRACTICE_TOP_UP_SECONDS = 3600
# House accounts are split into this many shards per kind and currency, so postings of
# different players do not queue on one hot row (docs/wallet.md). A player's shard is fixed
# by their id: change it only with the ledger quiet.
WALLET_HOUSE_SHARDS = 8
# The oldest exchange rate money may move at (display amounts use any age).
WALLET_FX_MAX_AGE_SECONDS = 7 * 86400
# Seconds past a turn's deadline before the beat job forfeits the game (network slack).
GAMES_TURN_GRACE_SECONDS = 2
# Practice: seconds between the house bot's turn coming up and its move (eager Celery, as in
# tests and the demo, does not wait).
BOT_MOVE_DELAY_SECONDS = 1

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": ENV.get("LOG_LEVEL", "INFO")},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        # Eager mode has no broker; kombu's "no hostname" warning says only that.
        **({"kombu": {"level": "ERROR"}} if CELERY_TASK_ALWAYS_EAGER else {}),
    },
}
