"""Operator API-key, player-token and staff authentication; optional request signing.

Operator and player credentials travel as ``Authorization: Bearer <value>``; the value's
prefix says which kind it is (``gop_`` operator key, ``gop_test_`` a sandbox operator's key,
``gps_`` player session token), so each class handles only its own kind and leaves the rest
to the next class. Staff use Django
sessions (the admin login) or HTTP Basic.

A browser request (one with an ``Origin``) authenticated as an operator or a player must
come from the platform itself or from an origin that operator registered: anything else is
403 ``/problems/origin-not-allowed`` (gin_platform/http/cors.py).

Failed attempts are throttled before the expensive check (``AuthFailureGuard``: per client
address and per credential, 429 ``/problems/throttled``), and staff passwords are locked out
by django-axes after repeated failures (429 ``/problems/login-locked-out``), concurrent
attempts included (gin_platform/staff/login_attempts.py).
"""

from __future__ import annotations

import hmac
import json
import math
from collections.abc import Callable, Iterable
from datetime import timedelta
from typing import TypeGuard, TypeVar

from django.conf import settings
from django.core.cache import cache
from django.http import HttpResponse
from django.utils import timezone, translation
from django.utils.translation import gettext
from rest_framework import exceptions
from rest_framework.authentication import (
    BaseAuthentication,
    BasicAuthentication,
    get_authorization_header,
)
from rest_framework.request import Request

from gin_platform.http.problems import (
    PROBLEM_CONTENT_TYPE,
    AuthenticationFailedProblem,
    OriginNotAllowedProblem,
    SignatureInvalidProblem,
    SignatureReplayedProblem,
)
from gin_platform.http.throttling import (
    ADMISSION_ATTRIBUTE,
    AuthFailureGuard,
    PrincipalRateThrottle,
)
from gin_platform.i18n.languages import request_language
from gin_platform.models import Operator, OperatorApiKey, PlayerSession
from gin_platform.request_path.cache import CACHE_ERRORS, warn_cache_unreachable
from gin_platform.request_path.gate import authenticated_player, pass_gate, prefetch_keys
from gin_platform.request_path.precompiled import PrecompiledQuery
from gin_platform.request_path.remembered_credentials import (
    API_KEY,
    EPOCH_KEY,
    SESSION,
    Kind,
    Remembered,
    new_epoch,
    remember,
    remembered,
)
from gin_platform.request_path.seen import player_seen, seen_key
from gin_platform.signing import SignatureError, VerifiedSignature, verify_request_signature
from gin_platform.staff.login_attempts import locked_out_problem, staff_secret_check
from gin_platform.tenancy.principals import OperatorPrincipal, PlayerPrincipal
from gin_platform.tenancy.selectors import origin_allowed
from gin_platform.tenancy.tokens import PLAYER_TOKEN_PREFIX, hash_secret, parse_api_key

SIGNATURE_HEADER = "HTTP_X_SIGNATURE"
IDEMPOTENCY_HEADER = "HTTP_IDEMPOTENCY_KEY"
LAST_USED_GRANULARITY = timedelta(seconds=60)
# The rows a credential is read as: an operator's API key, a player's session.
Credential = TypeVar("Credential", OperatorApiKey, PlayerSession)


def bearer_value(request: Request) -> str | None:
    parts = get_authorization_header(request).split()
    if len(parts) != 2 or parts[0].lower() != b"bearer":
        return None
    try:
        return parts[1].decode("ascii")
    except UnicodeDecodeError:
        return None


class OperatorApiKeyAuthentication(BaseAuthentication):
    keyword = "Bearer"

    def authenticate(self, request: Request):
        value = bearer_value(request)
        if value is None or not value.startswith("gop_"):
            return None
        prefix, test = parse_api_key(value)
        guard = AuthFailureGuard(request, credential=f"api-key:{prefix}" if prefix else None)
        value_hash = hash_secret(value)
        known = remembered(API_KEY, prefix) if prefix else None
        admission = (
            _admission(request, OperatorPrincipal(known.row.operator, known.row))
            if known and _valid(known.row, value_hash=value_hash, test=test)
            else None
        )
        epoch = _pass_gate(guard, known, admission)
        try:
            known, api_key = _current_row(
                API_KEY, prefix, known, epoch=epoch, read=_API_KEY_BY_PREFIX.fetch
            )
            api_key = self._refuse_invalid(api_key, value_hash=value_hash, test=test)
            self._check_signature(request, api_key)
        except (AuthenticationFailedProblem, SignatureInvalidProblem, SignatureReplayedProblem):
            guard.failed()  # a wrong signature or a replay is a failed authentication too
            raise
        _refuse_foreign_origin(request, api_key.operator)
        _touch(OperatorApiKey, api_key, known=known)
        principal = OperatorPrincipal(operator=api_key.operator, api_key=api_key)
        _admit_now(request, admission, principal)
        return principal, api_key

    @staticmethod
    def _refuse_invalid(
        api_key: OperatorApiKey | None, *, value_hash: str, test: bool
    ) -> OperatorApiKey:
        # One generic message for unknown, wrong and revoked keys: no oracle for attackers.
        if not _valid(api_key, value_hash=value_hash, test=test):
            raise AuthenticationFailedProblem("The API key is not valid")
        return api_key

    def _check_signature(self, request: Request, api_key: OperatorApiKey) -> None:
        header = request.META.get(SIGNATURE_HEADER)
        operator = api_key.operator
        if header is None and not operator.require_signed_requests:
            return
        secrets = list(
            operator.signing_secrets.filter(revoked_at__isnull=True).values_list(
                "secret", flat=True
            )
        )
        django_request = request._request
        assert django_request.method is not None  # set by Django's handler for every request
        try:
            verified = verify_request_signature(
                header=header,
                method=django_request.method,
                path=django_request.get_full_path(),
                # As the idempotency layer reads it (surrounding whitespace is not part of it).
                idempotency_key=django_request.META.get(IDEMPOTENCY_HEADER, "").strip(),
                body=django_request.body,
                secrets=secrets,
                tolerance_seconds=settings.REQUEST_SIGNATURE_TOLERANCE_SECONDS,
            )
        except SignatureError as exc:
            raise SignatureInvalidProblem(str(exc)) from exc
        refuse_replay(operator_id=operator.pk, verified=verified)

    def authenticate_header(self, request: Request) -> str:
        return 'Bearer realm="api"'


def _refuse_foreign_origin(request: Request, operator: Operator) -> None:
    """403 origin-not-allowed for a browser page the caller's operator did not register
    (nor the platform's own pages). Valid credentials: not an authentication failure."""
    origin = request.META.get("HTTP_ORIGIN")
    if not origin_allowed(operator=operator, origin=origin, host=request.get_host()):
        raise OriginNotAllowedProblem(
            f"Origin {origin} is not registered by the operator (POST /api/v1/operators/me/origins)"
        )


def refuse_replay(*, operator_id: object, verified: VerifiedSignature) -> None:
    """Accept each signed request once: remember its digest until its timestamp leaves the
    tolerance (after that the clock check refuses it anyway). ``cache.add`` is atomic (SET NX
    on Redis), so of two racing copies exactly one gets through. If the cache cannot be
    reached the request is let through and a warning logged, like the throttles: the
    signature still binds it to its Idempotency-Key, so a copy can only replay the first
    response, never repeat the effect."""
    tolerance = settings.REQUEST_SIGNATURE_TOLERANCE_SECONDS
    remaining = verified.timestamp + tolerance - timezone.now().timestamp()
    key = f"signature-seen:{operator_id}:{verified.digest}"
    try:
        first = cache.add(key, 1, timeout=max(1, math.ceil(remaining) + 1))
    except CACHE_ERRORS:
        warn_cache_unreachable(key)
        return
    if not first:
        raise SignatureReplayedProblem(
            "This signed request was accepted before; sign every request afresh"
        )


class PlayerTokenAuthentication(BaseAuthentication):
    keyword = "Bearer"

    def authenticate(self, request: Request):
        value = bearer_value(request)
        if value is None or not value.startswith(PLAYER_TOKEN_PREFIX + "_"):
            return None
        # Tokens have no public part: failures are counted per client address only.
        guard = AuthFailureGuard(request)
        token_hash = hash_secret(value)
        now = timezone.now()
        known = remembered(SESSION, token_hash)
        admission = (
            _admission(request, PlayerPrincipal(known.row.player, known.row))
            if known and _session_valid(known.row, now)
            else None
        )
        seen = seen_key(known.row.player_id) if known else None
        prefetch = prefetch_keys(request, known.row.player_id) if known else []
        epoch = _pass_gate(guard, known, admission, seen_key=seen, prefetch=prefetch)
        marked = seen is not None and epoch is not None
        known, session = _current_row(
            SESSION, token_hash, known, epoch=epoch, read=_SESSION_BY_TOKEN_HASH.fetch
        )
        if not _session_valid(session, now):
            guard.failed()
            raise AuthenticationFailedProblem(
                gettext("Your session is not valid or has expired: open the game again.")
            )
        _refuse_foreign_origin(request, session.player.operator)
        _touch(PlayerSession, session, known=known)
        if not marked:
            player_seen(session.player_id)  # R13 presence, when the gate did not mark it
        principal = PlayerPrincipal(player=session.player, session=session)
        authenticated_player.set(session.player_id)
        _admit_now(request, admission, principal)
        translation.activate(
            request_language(
                session=session,
                player=session.player,
                accept_language=request.META.get("HTTP_ACCEPT_LANGUAGE"),
            )
        )
        return principal, session

    def authenticate_header(self, request: Request) -> str:
        return 'Bearer realm="api"'


class StaffBasicAuthentication(BasicAuthentication):
    """HTTP Basic for back-office staff, guarded before the password hash is computed.

    In order, each cheaper than the next: the failure throttle (cache), one of the
    address's attempt slots with the django-axes lockout (a few cache calls and indexed
    queries; gin_platform/staff/login_attempts.py: attempts sent at once are checked only within
    the failures the address has left), then the password (PBKDF2, about a quarter of a
    second) through ``django.contrib.auth.authenticate``, whose failures axes records
    (``AUTHENTICATION_BACKENDS`` starts with axes' backend) before the slot is given back.
    """

    def authenticate_credentials(self, userid, password, request=None):
        guard = AuthFailureGuard(request, credential=f"staff:{userid}")
        guard.check()
        django_request = request._request if isinstance(request, Request) else request
        with staff_secret_check(django_request, username=userid):
            try:
                # The Django request, not DRF's: axes marks it, and its middleware answers
                # the attempt that reaches the limit with lockout_response().
                return super().authenticate_credentials(userid, password, django_request)
            except exceptions.AuthenticationFailed:
                guard.failed()
                raise


def lockout_response(request, original_response=None, credentials=None) -> HttpResponse:
    """``AXES_LOCKOUT_CALLABLE``: what the login attempt that reaches the limit gets, on the
    admin login form as on the staff API: problem+json 429 ``/problems/login-locked-out``
    with Retry-After. A Django response, not DRF's: axes answers outside DRF's views (and
    this module cannot import the problem handler, which imports rest_framework.views,
    which imports this module from the settings)."""
    problem = locked_out_problem(request)
    response = HttpResponse(
        json.dumps(problem.body(request.get_full_path())),
        status=problem.status,
        content_type=PROBLEM_CONTENT_TYPE,
    )
    for name, value in problem.headers().items():
        response[name] = value
    return response


# Every authenticated request runs one of these: compiled once per process thread
# (gin_platform/request_path/precompiled.py). Unique lookups, so no ORDER BY.
# The operators' webhook secrets are left out (deferred): decrypting them (Fernet) cost more
# than the lookup, and no request path reads them (webhooks are signed by the workers).
_API_KEY_BY_PREFIX = PrecompiledQuery(
    lambda prefix: (
        OperatorApiKey.objects.select_related("operator__live_operator")
        .defer("operator__webhook_secret", "operator__live_operator__webhook_secret")
        .filter(prefix=prefix)[:1]
    )
)
_SESSION_BY_TOKEN_HASH = PrecompiledQuery(
    lambda token_hash: (
        PlayerSession.objects.select_related("player__operator__live_operator")
        .defer(
            "player__operator__webhook_secret", "player__operator__live_operator__webhook_secret"
        )
        .filter(token_hash=token_hash)[:1]
    )
)


def _valid(
    api_key: OperatorApiKey | None, *, value_hash: str, test: bool
) -> TypeGuard[OperatorApiKey]:
    """The presented key's hash matches, the key is in force and its operator active, and
    a gop_test_ key authenticates as a sandbox operator only, a live key as a live one only
    (the hash already binds the mode; this keeps it explicit)."""
    return (
        api_key is not None
        and _same_hash(api_key.key_hash, value_hash)
        and _in_force(api_key)
        and api_key.operator.is_active
        and api_key.operator.is_sandbox == test
    )


def _session_valid(session: PlayerSession | None, now) -> TypeGuard[PlayerSession]:
    return (
        session is not None
        and session.is_valid_at(now)
        and session.player.is_active
        and session.player.operator.is_active
    )


def _pass_gate(
    guard: AuthFailureGuard,
    known: Remembered[Credential] | None,
    admission: PrincipalRateThrottle | None,
    *,
    seen_key: str | None = None,
    prefetch: list[str] | None = None,
) -> str | None:
    """The guard, the epoch and (for a credential remembered and valid) the throttle: one
    Redis round trip (gin_platform/request_path/remembered_credentials.py)."""
    return pass_gate(
        guard,
        epoch_key=EPOCH_KEY,
        remembered_epoch=known.epoch if known else None,
        fresh_epoch=new_epoch(),
        throttle=admission,
        seen_key=seen_key,
        prefetch=prefetch or (),
    )


def _current_row(
    kind: Kind[Credential],
    ident: str | None,
    known: Remembered[Credential] | None,
    *,
    epoch: str | None,
    read: Callable[[str], Iterable[Credential]],
) -> tuple[Remembered[Credential] | None, Credential | None]:
    """(what is remembered, this request's copy of the row): the remembered row while the
    epoch it was read under holds; else the database's, remembered from now on when the
    epoch could be read (before this read: gin_platform/request_path/remembered_credentials.py)."""
    if known is not None and epoch == known.epoch:
        return known, known.copy()
    if not ident:
        return None, None
    found = next(iter(read(ident)), None)
    if found is None or epoch is None:
        return None, found
    known = remember(kind, ident, found, epoch=epoch)
    return known, known.copy()


def _admission(
    request: Request, principal: OperatorPrincipal | PlayerPrincipal
) -> PrincipalRateThrottle | None:
    """The request throttle to decide at authentication, for a view it guards."""
    view = (request.parser_context or {}).get("view")
    if PrincipalRateThrottle not in getattr(view, "throttle_classes", ()):
        return None
    return PrincipalRateThrottle.for_principal(principal)


def _admit_now(
    request: Request,
    admission: PrincipalRateThrottle | None,
    principal: OperatorPrincipal | PlayerPrincipal,
) -> None:
    """Decide the request throttle once the credential is accepted: in the gate's round
    trip for a remembered one, else now. The view's throttle then takes the decision as it
    is (``ADMISSION_ATTRIBUTE``), so every request of an accepted credential is counted,
    whatever the permissions decide next, and its answer says so in its headers."""
    if admission is None or admission.admitted is None:
        admission = _admission(request, principal)
        if admission is None:
            return
        admission.admit_now()
    admission.answer_status(request.parser_context["view"])
    setattr(request, ADMISSION_ATTRIBUTE, admission)


def _same_hash(stored: str, computed: str) -> bool:
    return hmac.compare_digest(stored, computed)


def _in_force(api_key: OperatorApiKey) -> bool:
    """Not revoked yet. A rotation with a grace period sets ``revoked_at`` in the future:
    the old key works until then."""
    return api_key.revoked_at is None or api_key.revoked_at > timezone.now()


def _touch(
    model: type[Credential], row: Credential, *, known: Remembered[Credential] | None
) -> None:
    """Record last use, at most once a minute per credential (no write per request), on the
    remembered row too. The one update that keeps the epoch (models.CredentialQuerySet)."""
    now = timezone.now()
    if row.last_used_at is None or now - row.last_used_at > LAST_USED_GRANULARITY:
        model.objects.filter(pk=row.pk).update(last_used_at=now)
        row.last_used_at = now
        if known is not None:
            known.row.last_used_at = now
