"""Operator API-key and player-token authentication, with optional request signing.

Both credentials travel as ``Authorization: Bearer <value>``; the value's prefix says which
kind it is (``gop_`` operator key, ``gps_`` player session token), so each class handles
only its own kind and leaves the rest to the next class.
"""

from __future__ import annotations

import hmac
from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.request import Request

from gin_platform.models import OperatorApiKey, PlayerSession
from gin_platform.principals import OperatorPrincipal, PlayerPrincipal
from gin_platform.problems import AuthenticationFailedProblem, SignatureInvalidProblem
from gin_platform.signing import SignatureError, verify_signature
from gin_platform.tokens import PLAYER_TOKEN_PREFIX, hash_secret, split_api_key

SIGNATURE_HEADER = "HTTP_X_SIGNATURE"
LAST_USED_GRANULARITY = timedelta(seconds=60)


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
        prefix = split_api_key(value)
        api_key = (
            _first(OperatorApiKey.objects.select_related("operator").filter(prefix=prefix))
            if prefix
            else None
        )
        # One generic message for unknown, wrong and revoked keys: no oracle for attackers.
        if (
            api_key is None
            or not _same_hash(api_key.key_hash, hash_secret(value))
            or api_key.is_revoked
            or not api_key.operator.is_active
        ):
            raise AuthenticationFailedProblem("The API key is not valid")
        self._check_signature(request, api_key)
        _touch(OperatorApiKey, api_key)
        return OperatorPrincipal(operator=api_key.operator, api_key=api_key), api_key

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
        try:
            verify_signature(
                header=header,
                body=request._request.body,
                secrets=secrets,
                tolerance_seconds=settings.REQUEST_SIGNATURE_TOLERANCE_SECONDS,
            )
        except SignatureError as exc:
            raise SignatureInvalidProblem(str(exc)) from exc

    def authenticate_header(self, request: Request) -> str:
        return 'Bearer realm="api"'


class PlayerTokenAuthentication(BaseAuthentication):
    keyword = "Bearer"

    def authenticate(self, request: Request):
        value = bearer_value(request)
        if value is None or not value.startswith(PLAYER_TOKEN_PREFIX + "_"):
            return None
        session = _first(
            PlayerSession.objects.select_related("player__operator").filter(
                token_hash=hash_secret(value)
            )
        )
        now = timezone.now()
        if (
            session is None
            or not session.is_valid_at(now)
            or not session.player.is_active
            or not session.player.operator.is_active
        ):
            raise AuthenticationFailedProblem("The session token is not valid or has expired")
        _touch(PlayerSession, session)
        return PlayerPrincipal(player=session.player, session=session), session

    def authenticate_header(self, request: Request) -> str:
        return 'Bearer realm="api"'


def _first(queryset):
    """The row a unique lookup finds, or None. Not ``.first()``: that adds an ORDER BY whose
    compilation costs more than the query on every authenticated request."""
    return next(iter(queryset[:1]), None)


def _same_hash(stored: str, computed: str) -> bool:
    return hmac.compare_digest(stored, computed)


def _touch(model, row) -> None:
    """Record last use, at most once a minute per credential (no write per request)."""
    now = timezone.now()
    if row.last_used_at is None or now - row.last_used_at > LAST_USED_GRANULARITY:
        model.objects.filter(pk=row.pk).update(last_used_at=now)
        row.last_used_at = now
