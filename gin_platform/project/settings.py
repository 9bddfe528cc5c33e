"""Django settings, all read from the environment (README: Configuration).

Embedded default: no ``DATABASE_URL`` means a SQLite file under ``var/``; no ``REDIS_URL``
means Celery runs tasks eagerly and the cache is local memory. ``GIN_ENV=production``
refuses to start unless PostgreSQL, Redis, a strong secret key, allowed hosts (not ``*``)
and a secrets encryption key are configured and DEBUG is off (gin_platform/project/config.py), and
then serves HTTPS only.
"""

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from gin_platform.project.config import (
    ENVIRONMENTS,
    broker_url,
    derived_encryption_key,
    encryption_keys,
    env_bool,
    env_list,
    idempotency_retention_seconds,
    invalid_encryption_keys,
    logging_settings,
    production_problems,
    redis_url,
)
from integrity.schedule import detection_beat_schedule
from protection.schedule import harm_beat_schedule

BASE_DIR = Path(__file__).resolve().parents[2]
ENV = os.environ

GIN_ENV = ENV.get("GIN_ENV", "development")
if GIN_ENV not in ENVIRONMENTS:
    raise ImproperlyConfigured(f"GIN_ENV={GIN_ENV!r}: expected one of {', '.join(ENVIRONMENTS)}")

DEBUG = env_bool(ENV, "DEBUG", default=GIN_ENV == "development")
SECRET_KEY = ENV.get("SECRET_KEY") or "insecure-development-key-never-use-in-production"
ALLOWED_HOSTS = env_list(ENV, "ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])

INSTALLED_APPS = [
    # The admin site asks money-moving roles for a TOTP token (gin_platform/staff/admin_site.py).
    "gin_platform.apps.StaffAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "corsheaders",
    "channels",
    "gin_platform.apps.PlatformConfig",
    "wallet.apps.WalletConfig",
    "games.apps.GamesConfig",
    "settlement.apps.SettlementConfig",
    "integrity.apps.IntegrityConfig",
    "protection.apps.ProtectionConfig",
    "tournaments.apps.TournamentsConfig",
    "ratings.apps.RatingsConfig",
    "matchmaking.apps.MatchmakingConfig",
    "leaderboards.apps.LeaderboardsConfig",
    # Staff login lockout (README: Configuration, AXES_*): the admin and the staff API.
    "axes",
    # Staff second factor (TOTP) for the roles that move money (docs/backoffice.md).
    "django_otp",
    "django_otp.plugins.otp_totp",
]

MIDDLEWARE = [
    # First: refuses a Host outside ALLOWED_HOSTS; API errors problem+json whatever DEBUG says.
    "gin_platform.http.api_errors.ApiErrorsMiddleware",
    # Before anything that may answer: the request's Accept-Language (docs/api-errors.md).
    "gin_platform.i18n.middleware.LanguageMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Static files (the table page, the API docs) from the app itself, before anything else.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Preflights and CORS headers for the origins each operator registered (README: CORS).
    "corsheaders.middleware.CorsMiddleware",
    # 413 for an over-long body, 400 for a NUL in the query or a header (before any view).
    "gin_platform.http.middleware.RequestHygieneMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Staff sessions end after STAFF_SESSION_IDLE_SECONDS idle, 8 h at most (staff/sessions.py).
    "gin_platform.staff.sessions.StaffSessionTimeoutMiddleware",
    # request.user.otp_device: the TOTP device the session was verified with, if any.
    "django_otp.middleware.OTPMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # Amounts in the display currency read each exchange rate once per request.
    "wallet.middleware.DisplayRatesMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last: turns an admin login that reaches the lockout into the login-locked-out answer.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "gin_platform.project.urls"
WSGI_APPLICATION = "gin_platform.project.wsgi.application"
ASGI_APPLICATION = "gin_platform.project.asgi.application"

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
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        # Django's backend, with timestamps parsed in C (gin_platform/request_path/postgresql).
        DATABASES["default"]["ENGINE"] = "gin_platform.request_path.postgresql"
    if DATABASES["default"]["ENGINE"].endswith("postgresql") and env_bool(
        ENV, "DATABASE_SERVER_SIDE_BINDING", default=True
    ):
        # Server-side parameter binding and prepared statements: psycopg prepares a
        # statement once a connection has run it 5 times, so PostgreSQL parses and plans
        # each hot statement once per connection instead of per execution (the API-key
        # lookup's bind, which plans: 0.25 -> 0.03 ms; docs/benchmarks.md). Both options
        # are needed: Django passes prepare_threshold=None to psycopg unless OPTIONS names
        # one, and then nothing is prepared, only bound. Off with
        # DATABASE_SERVER_SIDE_BINDING=0, e.g. behind a PgBouncer in transaction mode older
        # than 1.21 (which cannot carry prepared statements; docs/deploy.md).
        DATABASES["default"].setdefault("OPTIONS", {}).update(
            server_side_binding=True, prepare_threshold=5
        )
else:
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(VAR_DIR / "gin.sqlite3"),
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
            "BACKEND": "gin_platform.request_path.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": ENV.get("CACHE_KEY_PREFIX", "gin"),
            # A Redis that stops answering must fail fast (the throttle then fails open),
            # not hang every request until gunicorn kills the worker.
            "OPTIONS": {"socket_connect_timeout": 1.0, "socket_timeout": 1.0},
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# The channel layer carries pushes from the process that commits a move to the processes
# holding the sockets (docs/realtime.md): Redis groups across processes; in memory on the
# embedded default, where one server process serves everything. Redis pub/sub, not
# channels_redis's list-based layer: that one receives every message of a process through
# one serialised loop of blocking pops (two or three Redis round trips per message), which
# at 50 moves a second on two cores queued pushes for seconds (docs/benchmarks.md, "Push
# latency"). Pub/sub delivers at most once, like the list layer past its capacity: a
# socket repairs any gap from the database (its next push or heartbeat).
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "games.realtime.layer.PubSubChannelLayer",  # channels_redis's, see there
            "CONFIG": {
                "hosts": [ENV.get("CHANNEL_LAYER_URL", REDIS_URL)],
                "prefix": ENV.get("CHANNEL_LAYER_PREFIX", "gin:ws"),
            },
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# Sockets (docs/realtime.md): the heartbeat, and the limits that keep one client from
# holding the others up.
# How long a player stays on a room's waiting list without an opponent (docs/network.md).
WAITING_LIST_SECONDS = 600
REALTIME_HEARTBEAT_SECONDS = int(ENV.get("REALTIME_HEARTBEAT_SECONDS", "20"))
REALTIME_MAX_SOCKETS_PER_PLAYER = int(ENV.get("REALTIME_MAX_SOCKETS_PER_PLAYER", "5"))
# As many as the REST API allows a player (1,200 a minute).
REALTIME_MAX_MESSAGES_PER_10S = 200
REALTIME_SEND_TIMEOUT_SECONDS = 10
# Long polls (GET .../events?wait=S) hold a server thread each: at most this many at once in
# a process (a quarter of ASGI_THREADS' default 32) and per player; more answer at once.
REALTIME_LONG_POLLS_PER_PROCESS = int(ENV.get("REALTIME_LONG_POLLS_PER_PROCESS", "8"))
REALTIME_LONG_POLLS_PER_PLAYER = 2

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
# Database connections in a worker live as in a web process: kept across tasks up to
# CONN_MAX_AGE and health-checked before use (gin_platform.project.celery closes them after a task
# that raised). Celery's Django fixup would otherwise close them around EVERY task (a new
# connection, its set-up and its prepared statements each time: a settlement cost twice as
# much); with this set it only recycles them every CELERY_DB_REUSE_MAX tasks.
CELERY_DB_REUSE_MAX = 1000
# Recovery after a worker dies (docs/settlement.md "Recovery times"). A message a worker took
# but never acknowledged (acks_late: it died mid-task) goes back to its queue once it is
# older than the visibility timeout; the broker looks for such messages every
# BROKER_RESTORE_INTERVAL_SECONDS. 300 s is far above the longest acks_late task (a webhook
# attempt: 10 s HTTP timeout), so a slow task is never handed out twice while it runs, and it
# also caps countdowns (gin_platform.tasks). Finished games do not wait for it: the
# settle-stragglers sweep below queues them again after SETTLEMENT_STRAGGLER_AGE_SECONDS.
BROKER_VISIBILITY_TIMEOUT_SECONDS = int(ENV.get("CELERY_VISIBILITY_TIMEOUT", "300"))
BROKER_RESTORE_INTERVAL_SECONDS = 10
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": BROKER_VISIBILITY_TIMEOUT_SECONDS,
    "unacked_restore_interval": BROKER_RESTORE_INTERVAL_SECONDS,
    "unacked_restore_throttle": 1,
    # A Redis that stops answering fails a publish within seconds (the caller logs it and
    # the sweepers catch up) instead of hanging the request that just committed.
    "socket_connect_timeout": 1.0,
    "socket_timeout": 5.0,
}
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 2,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.2,
}
# The straggler sweep: every SETTLEMENT_SWEEP_INTERVAL_SECONDS, queue again every game
# finished more than SETTLEMENT_STRAGGLER_AGE_SECONDS ago and still unsettled. A finished
# game whose message was lost (broker down at the commit) or is held by a dead worker is
# settled at most their sum (45 s by default) after it finished, given a live worker.
SETTLEMENT_SWEEP_INTERVAL_SECONDS = int(ENV.get("SETTLEMENT_SWEEP_INTERVAL", "15"))
SETTLEMENT_STRAGGLER_AGE_SECONDS = int(ENV.get("SETTLEMENT_STRAGGLER_AGE", "30"))
# Player protection (docs/player-protection.md): the longest a turn clock stays paused while
# a reality check waits; a session with no seat and no buy-in for this long ends (idle).
PROTECTION_PAUSE_SECONDS = int(ENV.get("PROTECTION_PAUSE_SECONDS", "120"))
PROTECTION_SESSION_IDLE_MINUTES = int(ENV.get("PROTECTION_SESSION_IDLE_MINUTES", "30"))
PROTECTION_SWEEP_SECONDS = float(ENV.get("PROTECTION_SWEEP_SECONDS", "30"))
# A recovery sweep's message expires after RECOVERY_SWEEP_EXPIRY_RUNS of its intervals, not
# one: a worker SIGKILLed with a backlog leaves the queue long, and sweeps that expired within
# their interval behind it never ran, just when they were the only way to finish what the
# dead worker held (a chaos run with 1,024 tournament entries). Each sweep is idempotent and
# cheap with nothing to do, so a few run back to back once the backlog clears; a message
# older than that is still dropped, as the next one is due.
RECOVERY_SWEEP_EXPIRY_RUNS = 12


def recovery_sweep(task: str, every: float) -> dict:
    return {
        "task": task,
        "schedule": float(every),
        "options": {"expires": RECOVERY_SWEEP_EXPIRY_RUNS * float(every)},
    }


CELERY_BEAT_SCHEDULE: dict = {
    "redeliver-due-webhooks": recovery_sweep("gin_platform.tasks.redeliver_due_webhooks", 60),
    "settle-stragglers": recovery_sweep(
        "settlement.tasks.settle_stragglers", SETTLEMENT_SWEEP_INTERVAL_SECONDS
    ),
    "reconcile-ledger": {"task": "settlement.tasks.reconcile_ledger", "schedule": 3600.0},
    # Seamless wallet (docs/wallet.md): retry due credits and rollbacks, roll back debits
    # left pending by a dead request.
    "seamless-wallet-calls": recovery_sweep("wallet.tasks.seamless_calls_sweep", 15),
    # Turn timers (R10 "Leaving, timing out"): forfeit turns past their deadline; re-queue
    # bot turns.
    "expire-turns": {"task": "games.tasks.expire_turns", "schedule": 5.0},
    # R14 "Absence": a tournament's match goes on without the players who did not sit down.
    "tournament-no-shows": recovery_sweep("games.tasks.tournament_no_shows", 5),
    # R13: the beat's own heartbeat (gin_platform/heartbeat.py).
    "platform-heartbeat": {
        "task": "gin_platform.tasks.platform_heartbeat",
        "schedule": 5.0,
        "options": {"expires": 5.0},
    },
    # The lobby's waiting list (docs/network.md): end the entries whose time is up.
    "expire-waiting-list": {
        "task": "games.tasks.expire_waiting_list",
        "schedule": 30.0,
        "options": {"expires": 30.0},
    },
    # Forget Idempotency-Keys older than IDEMPOTENCY_RETENTION_SECONDS; delete socket
    # tickets used or expired and launch tokens expired.
    "prune-expired-records": {
        "task": "gin_platform.tasks.prune_expired_records",
        "schedule": 3600.0,
        "options": {"expires": 3600.0},
    },
    # Delete operator events older than WEBHOOK_EVENT_RETENTION_DAYS, and done deliveries.
    "prune-operator-events": {
        "task": "gin_platform.tasks.prune_operator_events",
        "schedule": 3600.0,
        "options": {"expires": 3600.0},
    },
    "derive-player-links": {"task": "integrity.tasks.links_derive_pending", "schedule": 300.0},
}

INTEGRITY_DETECTION_INTERVAL_SECONDS = int(ENV.get("INTEGRITY_DETECTION_INTERVAL", "300"))
CELERY_BEAT_SCHEDULE.update(detection_beat_schedule(INTEGRITY_DETECTION_INTERVAL_SECONDS))
# Player protection: reached duration and loss limits, reality checks of players not at a
# table, idle sessions, matches stopped after their hand and not voided yet.
CELERY_BEAT_SCHEDULE["play-sessions-sweep"] = recovery_sweep(
    "protection.tasks.play_sessions_sweep", PROTECTION_SWEEP_SECONDS
)
# Player protection's markers of harm: daily at 00:15 UTC (docs/player-protection.md).
CELERY_BEAT_SCHEDULE.update(harm_beat_schedule())
# Tournaments (R14): open registration and start when due, take any match result no task
# took (a lost message, a killed worker), so a tournament never waits for a human.
# Every 2 s: a result whose taker was killed waits for it, and a round's next tables with it.
TOURNAMENTS_SWEEP_SECONDS = float(ENV.get("TOURNAMENTS_SWEEP_SECONDS", "2"))
CELERY_BEAT_SCHEDULE["tournaments-sweep"] = recovery_sweep(
    "tournaments.tasks.tournaments_sweep", TOURNAMENTS_SWEEP_SECONDS
)
# Ratings (R15): rate any finished match no task rated (a lost message, a killed worker).
CELERY_BEAT_SCHEDULE["ratings-sweep"] = recovery_sweep("ratings.tasks.ratings_sweep", 15)
# R15's quick seat (docs/matchmaking.md): bands widen with time, so the waiting tickets are
# matched again every 2 s (and the expired ones end).
CELERY_BEAT_SCHEDULE["quick-seat-tick"] = {
    "task": "matchmaking.tasks.quick_seat_tick",
    "schedule": 2.0,
    "options": {"expires": 2.0},
}

# --- Security ----------------------------------------------------------------------------
if GIN_ENV == "production":
    problems = production_problems(
        env=ENV, debug=DEBUG, database_engine=DATABASES["default"]["ENGINE"]
    )
    if problems:
        raise ImproperlyConfigured("refusing to start in production mode: " + "; ".join(problems))
    # HTTPS only (README: Configuration). The health probes are exempt from the redirect:
    # orchestrators and the image's HEALTHCHECK speak plain HTTP to the process.
    SECURE_SSL_REDIRECT = env_bool(ENV, "SECURE_SSL_REDIRECT", default=True)
    SECURE_REDIRECT_EXEMPT = [r"^api/v1/health(/live)?/?$"]
    SECURE_HSTS_SECONDS = int(ENV.get("SECURE_HSTS_SECONDS", str(365 * 24 * 3600)))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool(ENV, "SECURE_HSTS_INCLUDE_SUBDOMAINS", default=True)
    SECURE_HSTS_PRELOAD = env_bool(ENV, "SECURE_HSTS_PRELOAD", default=True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_CONTENT_TYPE_NOSNIFF = True
# Behind a TLS-terminating proxy that always sets X-Forwarded-Proto (and strips the client's),
# TRUSTED_PROXY_HEADERS=1 makes a request that reached the proxy over HTTPS count as secure.
# Never set it when clients can reach the process directly: they could claim HTTPS.
if env_bool(ENV, "TRUSTED_PROXY_HEADERS", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# Secrets kept encrypted at rest (gin_platform/encryption.py): SECRETS_ENCRYPTION_KEY holds
# comma-separated Fernet keys, the first one encrypting. Production requires it; elsewhere a
# key derived from SECRET_KEY is used when it is unset.
SECRETS_ENCRYPTION_KEYS = encryption_keys(ENV.get("SECRETS_ENCRYPTION_KEY", "")) or [
    derived_encryption_key(SECRET_KEY)
]
if invalid_encryption_keys(SECRETS_ENCRYPTION_KEYS):
    raise ImproperlyConfigured("SECRETS_ENCRYPTION_KEY: every key must be a Fernet key")

# Webhook targets (docs/webhooks.md): private, loopback and link-local addresses and plain
# http are for development and test only; production refuses to start with them allowed.
WEBHOOK_ALLOW_PRIVATE_TARGETS = env_bool(
    ENV, "WEBHOOK_ALLOW_PRIVATE_TARGETS", default=GIN_ENV != "production"
)
WEBHOOK_ALLOW_HTTP = GIN_ENV != "production"
# The operator event log (docs/webhooks.md "Events API"): events older than this are not
# listed and the prune-operator-events beat job deletes them (and deliveries as old, done).
WEBHOOK_EVENT_RETENTION_DAYS = int(ENV.get("WEBHOOK_EVENT_RETENTION_DAYS", "30"))
# The events feed waits for transactions still running, but never for one older than this.
WEBHOOK_EVENT_FEED_MAX_LAG_SECONDS = int(ENV.get("WEBHOOK_EVENT_FEED_MAX_LAG", "60"))

# Staff passwords (admin login, HTTP Basic on the staff API) go through django-axes first:
# after AXES_FAILURE_LIMIT failures from one address, no password is checked from there for
# AXES_COOLOFF_MINUTES; a success resets the count. Only the address is locked (never the
# account everywhere), so nobody can lock a staff member out from elsewhere. Attempts sent at
# once are checked only within the failures left (gin_platform/staff/login_attempts.py).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = int(ENV.get("AXES_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = timedelta(minutes=int(ENV.get("AXES_COOLOFF_MINUTES", "15")))
AXES_LOCKOUT_PARAMETERS = ["ip_address"]
AXES_RESET_ON_SUCCESS = True
# Attempts refused during a lockout do not extend it, so Retry-After tells the truth.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_CLIENT_IP_CALLABLE = "gin_platform.http.throttling.client_address"
AXES_LOCKOUT_CALLABLE = "gin_platform.http.authentication.lockout_response"
# An attempt that finds no room among the address's attempts in flight waits this long at
# most for one, then gets 429 /problems/throttled (gin_platform/staff/login_attempts.py).
STAFF_LOGIN_WAIT_SECONDS = float(ENV.get("STAFF_LOGIN_WAIT_SECONDS", "10"))

# Staff sessions (the admin's, and the staff API's over its cookie) end after this long
# without a request, and this long after login whatever happens (docs/backoffice.md).
STAFF_SESSION_IDLE_SECONDS = int(ENV.get("STAFF_SESSION_IDLE_SECONDS", "1800"))
STAFF_SESSION_MAX_SECONDS = int(ENV.get("STAFF_SESSION_MAX_SECONDS", str(8 * 3600)))
# The issuer shown in authenticator apps for staff TOTP devices (manage.py staff_otp_enrol).
OTP_TOTP_ISSUER = ENV.get("OTP_TOTP_ISSUER", "Gin Rummy back office")

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
# The languages the hosted page and the player API's problems speak (docs/play.md
# "Languages"): each has complete catalogues in LOCALE_PATHS (a test checks every entry).
LANGUAGES = [
    ("en", "English"),
    ("es", "Español"),
    ("it", "Italiano"),
    ("de", "Deutsch"),
    ("fr", "Français"),
    ("pt", "Português"),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
# The pseudo-locale en-XA (every string bracketed, accented and longer: a page's layout checked
# before any translator has worked) is a language only where this allows it.
PSEUDO_LOCALE = env_bool(ENV, "PSEUDO_LOCALE", default=GIN_ENV != "production")
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
# Served by WhiteNoise. Where nothing was collected (development: no step needed to run),
# straight from the apps' static folders. Where `collectstatic` filled STATIC_ROOT (deploy/'s
# image, the browser tests' server), from there: each file beside the gzip copy collected with
# it, and WhiteNoise answers a browser that accepts gzip with that copy (the hosted page's
# first load is a quarter of its bytes on a phone's connection).
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = not STATIC_ROOT.is_dir()
WHITENOISE_AUTOREFRESH = DEBUG

# --- API ---------------------------------------------------------------------------------
# The largest request body accepted (bytes): more is 413 request-too-large. The biggest
# legitimate body (a room with its options, a deposit with 4 KB of metadata) is a few KB.
REQUEST_MAX_BODY_BYTES = int(ENV.get("REQUEST_MAX_BODY_BYTES", str(256 * 1024)))
DATA_UPLOAD_MAX_MEMORY_SIZE = REQUEST_MAX_BODY_BYTES
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "gin_platform.http.authentication.OperatorApiKeyAuthentication",
        "gin_platform.http.authentication.PlayerTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
        "gin_platform.http.authentication.StaffBasicAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # DRF's JSON, written by orjson (gin_platform/http/json_text.py).
    "DEFAULT_RENDERER_CLASSES": ["gin_platform.http.json_text.CompactJSONRenderer"],
    # Bounded size and depth, no NUL characters (gin_platform/http/parsers.py).
    "DEFAULT_PARSER_CLASSES": ["gin_platform.http.parsers.StrictJSONParser"],
    # An unknown ?format= is 406 (DRF says 404), like an Accept header nothing can satisfy.
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "gin_platform.http.negotiation.ContentNegotiation",
    "DEFAULT_PAGINATION_CLASS": "gin_platform.http.pagination.CreatedCursorPagination",
    "DEFAULT_THROTTLE_CLASSES": ["gin_platform.http.throttling.PrincipalRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {
        "operator": ENV.get("THROTTLE_OPERATOR", "6000/min"),
        "player": ENV.get("THROTTLE_PLAYER", "1200/min"),
        "anon": ENV.get("THROTTLE_ANON", "120/min"),
        # Failed authentication, counted before the expensive check (gin_platform.http.throttling
        # AuthFailureGuard): per client address, and per credential (API key prefix, staff
        # username) for addresses that failed themselves.
        "auth_failures_address": ENV.get("THROTTLE_AUTH_FAILURES_ADDRESS", "20/min"),
        "auth_failures_credential": ENV.get("THROTTLE_AUTH_FAILURES_CREDENTIAL", "10/min"),
    },
    "EXCEPTION_HANDLER": "gin_platform.http.problem_handler.problem_exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "UNAUTHENTICATED_USER": None,
    # Proxies in front of the web processes; X-Forwarded-For is trusted only that deep
    # (anonymous throttling keys on the client address).
    "NUM_PROXIES": int(ENV["NUM_PROXIES"]) if ENV.get("NUM_PROXIES") else None,
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}

# The OpenAPI document's settings (docs/api.md).
from gin_platform.project.openapi_settings import SPECTACULAR_SETTINGS  # noqa: E402, F401

# Player session tokens: short-lived by default, capped.
PLAYER_SESSION_DEFAULT_TTL_SECONDS = int(ENV.get("PLAYER_SESSION_TTL", "3600"))
PLAYER_SESSION_MAX_TTL_SECONDS = 24 * 3600
# Game launch (docs/browser-clients.md): a launch token opens the hosted table page once,
# within this many seconds; a socket ticket opens one socket (docs/realtime.md).
LAUNCH_TOKEN_TTL_SECONDS = 120
SOCKET_TICKET_TTL_SECONDS = 30
# Where players reach the platform (https://games.example.com), for the game-launch URLs.
# Unset: the host and scheme of the operator's launch request (behind a TLS proxy, set
# TRUSTED_PROXY_HEADERS so that scheme is https).
PUBLIC_BASE_URL = ENV.get("PUBLIC_BASE_URL", "").rstrip("/")
if PUBLIC_BASE_URL and not PUBLIC_BASE_URL.startswith(("https://", "http://")):
    raise ImproperlyConfigured("PUBLIC_BASE_URL: an absolute http(s) URL")

# --- CORS (docs/browser-clients.md) ----------------------------------------------------------
# Browsers on the operators' registered origins may call the API; nothing else of the site
# answers cross-origin. Which origins is decided per request (gin_platform/http/cors.py:
# allow_registered_origin, a check_request_enabled receiver), so the static list stays empty.
CORS_URLS_REGEX = r"^/api/.*$"
CORS_ALLOWED_ORIGINS: list[str] = []
# Bearer tokens only: no cookie (the admin's session) ever crosses origins.
CORS_ALLOW_CREDENTIALS = False
CORS_ALLOW_METHODS = ("DELETE", "GET", "OPTIONS", "PATCH", "POST", "PUT")
CORS_ALLOW_HEADERS = (
    "accept",
    "authorization",
    "content-type",
    "idempotency-key",
    "x-signature",
)
CORS_EXPOSE_HEADERS = (
    "Idempotent-Replayed",
    "Retry-After",
    # The rate-limit headers of every throttled answer (gin_platform/http/throttling.py).
    "RateLimit-Limit",
    "RateLimit-Remaining",
    "RateLimit-Reset",
    "Location",
    "WWW-Authenticate",
    "Content-Disposition",
)
CORS_PREFLIGHT_MAX_AGE = 600
# How long the answer "which operators registered this origin" is cached (a change made
# through the API is seen at once; one made otherwise, or an operator suspended, within this).
CORS_ORIGIN_CACHE_SECONDS = 60
# Registered origins (and launch return URLs) are https://; http:// also for localhost,
# 127.0.0.1 and [::1] outside production.
OPERATOR_ORIGINS_ALLOW_HTTP_LOCALHOST = GIN_ENV != "production"
# Request signing: accepted clock skew, and how long an accepted signature is remembered
# (a second use is refused: gin_platform/http/authentication.py).
REQUEST_SIGNATURE_TOLERANCE_SECONDS = 300
# Idempotency: an in-flight record older than this is taken to be from a dead request.
IDEMPOTENCY_STALE_AFTER_SECONDS = 120
# Idempotency-Keys are remembered this long (24 h by default, as Stripe); then they are
# pruned and a replay is a new request.
try:
    IDEMPOTENCY_RETENTION_SECONDS = idempotency_retention_seconds(ENV)
except ValueError as exc:
    raise ImproperlyConfigured(str(exc)) from None
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
# Seamless wallet (docs/wallet.md): a credit (or rollback) the operator's wallet has not
# acknowledged after this many seconds is an alert (log ERROR, webhook wallet.call_failed).
WALLET_CREDIT_ALERT_SECONDS = int(ENV.get("WALLET_CREDIT_ALERT_SECONDS", "900"))
# Seconds past a turn's deadline before the beat job acts on it (network slack).
GAMES_TURN_GRACE_SECONDS = 2
# R13 (docs/games.md "Interrupted play"): a seat with no socket and no request for this long
# is disconnected; protected turns a player may have per UTC day; an outage longer than this
# voids the matches it touched.
PRESENCE_TIMEOUT_SECONDS = int(ENV.get("PRESENCE_TIMEOUT_SECONDS", "15"))
GAMES_PROTECTIONS_PER_DAY = int(ENV.get("GAMES_PROTECTIONS_PER_DAY", "5"))
GAMES_MAX_INTERRUPTION_SECONDS = int(ENV.get("GAMES_MAX_INTERRUPTION_SECONDS", "1800"))
# The platform heartbeat (gin_platform/heartbeat.py): web processes and beat write it this
# often; a web heartbeat gap longer than PLATFORM_OUTAGE_AFTER_SECONDS is an outage.
PLATFORM_HEARTBEAT_SECONDS = float(ENV.get("PLATFORM_HEARTBEAT_SECONDS", "5"))
PLATFORM_OUTAGE_AFTER_SECONDS = float(ENV.get("PLATFORM_OUTAGE_AFTER_SECONDS", "15"))
# The network's one secret for linked accounts' keyed hashes (empty: derived, integrity/hashing.py)
INTEGRITY_LINK_SECRET = ENV.get("INTEGRITY_LINK_SECRET", "")
# Practice: seconds between the house bot's turn coming up and its move (eager Celery, as in
# tests and the demo, does not wait).
BOT_MOVE_DELAY_SECONDS = 1

LOGGING = logging_settings(level=ENV.get("LOG_LEVEL", "INFO"), eager=CELERY_TASK_ALWAYS_EAGER)
