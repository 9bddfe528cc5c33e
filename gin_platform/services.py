"""State changes of the platform app: operators, credentials, players, player sessions.

One function per change, keyword-only and typed, atomic, each writing its audit row in the
same transaction (README "Architecture").
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from gin_platform.audit import audit_changes, audit_record
from gin_platform.locks import (
    lock_api_key,
    lock_operator,
    lock_operator_row,
    lock_player,
    lock_player_session,
    lock_signing_secret,
)
from gin_platform.models import (
    Operator,
    OperatorApiKey,
    OperatorSigningSecret,
    Player,
    PlayerSession,
)
from gin_platform.money import CurrencyError, is_real_currency, normalize_currency
from gin_platform.principals import Actor
from gin_platform.problems import Problem
from gin_platform.tokens import new_api_key, new_player_token, new_signing_secret
from gin_platform.webhook_targets import webhook_url_problem


class UnknownCurrencyProblem(Problem):
    slug = "unknown-currency"
    status = 422
    title = "Unknown currency"
    description = "The currency is not an ISO 4217 code in circulation."


class PlayerExistsProblem(Problem):
    slug = "player-exists"
    status = 409
    title = "A player with this external_ref already exists"


class PlayerInactiveProblem(Problem):
    slug = "player-inactive"
    status = 409
    title = "The player is not active"


class SigningSecretRequiredProblem(Problem):
    slug = "signing-secret-required"
    status = 409
    title = "No active signing secret"


class SessionTtlProblem(Problem):
    slug = "session-ttl-out-of-range"
    status = 422
    title = "Session lifetime out of range"


class WebhookUrlInvalidProblem(Problem):
    slug = "webhook-url-invalid"
    status = 422
    title = "The webhook URL is not allowed"
    description = (
        "https:// only in production (http:// also in development), a host name, no user name "
        "or password, no fragment, at most 200 characters, and not a loopback, private, "
        "link-local or reserved address (docs/webhooks.md)."
    )


def _webhook_url(url: str) -> str:
    problem = webhook_url_problem(url)
    if problem:
        raise WebhookUrlInvalidProblem(f"webhook_url: {problem}", field="webhook_url")
    return url


def _real_currency(code: str, *, field: str) -> str:
    try:
        normalized = normalize_currency(code)
    except CurrencyError as exc:
        raise UnknownCurrencyProblem(str(exc), field=field) from exc
    if not is_real_currency(normalized):
        raise UnknownCurrencyProblem(
            f"{normalized} is practice play money, not a wallet currency", field=field
        )
    return normalized


@dataclass(frozen=True)
class IssuedApiKey:
    api_key: OperatorApiKey
    key: str  # the full key: returned once, never stored


@dataclass(frozen=True)
class IssuedPlayerSession:
    session: PlayerSession
    token: str  # returned once, never stored


@transaction.atomic
def operator_create(
    *,
    name: str,
    slug: str,
    base_currency: str,
    webhook_url: str = "",
    actor: Actor,
) -> Operator:
    operator = Operator.objects.create(
        name=name,
        slug=slug,
        base_currency=_real_currency(base_currency, field="base_currency"),
        webhook_url=_webhook_url(webhook_url),
        webhook_secret=new_signing_secret(),
    )
    audit_record(
        actor=actor,
        action="operator.created",
        obj=operator,
        operator=operator,
        data={"slug": slug, "base_currency": operator.base_currency},
    )
    return operator


API_KEY_NAME_MAX_LENGTH = 100
API_KEY_MAX_GRACE_SECONDS = 7 * 24 * 3600


class LastApiKeyProblem(Problem):
    slug = "last-api-key"
    status = 409
    title = "The operator's last active API key cannot be revoked"
    description = (
        "Revoking it would lock the operator out of the API. Create another key first "
        "(POST /api/v1/api-keys) or rotate this one (POST /api/v1/api-keys/{id}/rotate)."
    )


class ApiKeyRevokedProblem(Problem):
    slug = "api-key-revoked"
    status = 409
    title = "The API key is revoked"
    description = "A revoked key cannot be rotated; create a new key instead."


class ApiKeyGraceProblem(Problem):
    slug = "api-key-grace-out-of-range"
    status = 422
    title = "Grace period out of range"
    description = "grace_seconds is a whole number of seconds from 0 to 604800 (7 days)."


def _locked_keys(operator: Operator) -> None:
    """Serialise key changes per operator (the operator row, then the keys), so two revokes
    racing on an operator's last two keys cannot both see the other one as still active."""
    lock_operator_row(operator.pk)


@transaction.atomic
def api_key_create(*, operator: Operator, name: str = "default", actor: Actor) -> IssuedApiKey:
    full, prefix, key_hash = new_api_key()
    api_key = OperatorApiKey.objects.create(
        operator=operator, name=name, prefix=prefix, key_hash=key_hash
    )
    audit_record(
        actor=actor,
        action="api_key.created",
        obj=api_key,
        operator=operator,
        data={"name": name, "prefix": prefix},
    )
    return IssuedApiKey(api_key=api_key, key=full)


@transaction.atomic
def api_key_revoke(
    *, api_key: OperatorApiKey, actor: Actor, allow_last: bool = False
) -> OperatorApiKey:
    """Revoke a key at once (a key scheduled to be revoked later by a rotation included).

    Refused (LastApiKeyProblem) when no other key of the operator would stay active (not
    revoked and not scheduled to be): the API never locks an operator out of itself. A key
    may revoke itself when another stays active. ``allow_last`` is for staff in a shell who
    mean to cut an operator off. Revoking a revoked key changes nothing.
    """
    _locked_keys(api_key.operator)
    locked = lock_api_key(api_key.pk)
    now = timezone.now()
    if locked.revoked_at is not None and locked.revoked_at <= now:
        return locked
    others_active = (
        OperatorApiKey.objects.filter(operator_id=locked.operator_id, revoked_at__isnull=True)
        .exclude(pk=locked.pk)
        .exists()
    )
    if not others_active and not allow_last:
        raise LastApiKeyProblem(
            f"Key {locked.prefix} is the operator's last active API key; create or rotate "
            "a key before revoking it"
        )
    scheduled = locked.revoked_at
    locked.revoked_at = now
    locked.save(update_fields=["revoked_at"])
    audit_record(
        actor=actor,
        action="api_key.revoked",
        obj=locked,
        operator=locked.operator,
        data={"prefix": locked.prefix, **({"was_scheduled_for": scheduled} if scheduled else {})},
    )
    return locked


@transaction.atomic
def api_key_rotate(
    *,
    api_key: OperatorApiKey,
    actor: Actor,
    grace_seconds: int = 0,
    name: str | None = None,
) -> IssuedApiKey:
    """Issue a new key in place of ``api_key`` and revoke the old one, at once or after a
    grace period (``grace_seconds``, 0 to 7 days) during which both work.

    The new key keeps the old one's name unless given one. Rotating a key that is already
    scheduled to be revoked brings its revocation forward if the new grace ends sooner,
    never later. A revoked key cannot be rotated (ApiKeyRevokedProblem).
    """
    if not 0 <= grace_seconds <= API_KEY_MAX_GRACE_SECONDS:
        raise ApiKeyGraceProblem(
            f"grace_seconds must be between 0 and {API_KEY_MAX_GRACE_SECONDS}",
            field="grace_seconds",
        )
    _locked_keys(api_key.operator)
    locked = lock_api_key(api_key.pk)
    now = timezone.now()
    if locked.revoked_at is not None and locked.revoked_at <= now:
        raise ApiKeyRevokedProblem(f"Key {locked.prefix} was revoked at {locked.revoked_at}")
    full, prefix, key_hash = new_api_key()
    new_name = name if name is not None else locked.name
    replacement = OperatorApiKey.objects.create(
        operator_id=locked.operator_id, name=new_name, prefix=prefix, key_hash=key_hash
    )
    revokes_at = now + timedelta(seconds=grace_seconds)
    if locked.revoked_at is not None:
        revokes_at = min(revokes_at, locked.revoked_at)
    locked.revoked_at = revokes_at
    locked.save(update_fields=["revoked_at"])
    audit_record(
        actor=actor,
        action="api_key.created",
        obj=replacement,
        operator=locked.operator,
        data={"name": new_name, "prefix": prefix, "replaces": locked.prefix},
    )
    audit_record(
        actor=actor,
        action="api_key.rotated",
        obj=locked,
        operator=locked.operator,
        data={
            "prefix": locked.prefix,
            "replaced_by": prefix,
            "grace_seconds": grace_seconds,
            "revoked_at": revokes_at,
        },
    )
    return IssuedApiKey(api_key=replacement, key=full)


@transaction.atomic
def operator_update(
    *,
    operator: Operator,
    actor: Actor,
    webhook_url: str | None = None,
    require_signed_requests: bool | None = None,
) -> Operator:
    locked = lock_operator(operator.pk)
    changes: dict[str, list] = {}
    if webhook_url is not None:
        _webhook_url(webhook_url)
    for field, value in (
        ("webhook_url", webhook_url),
        ("require_signed_requests", require_signed_requests),
    ):
        if value is not None and getattr(locked, field) != value:
            changes[field] = [getattr(locked, field), value]
            setattr(locked, field, value)
    if (
        require_signed_requests
        and not locked.signing_secrets.filter(revoked_at__isnull=True).exists()
    ):
        raise SigningSecretRequiredProblem(
            "Create a signing secret before requiring signed requests"
        )
    if changes:
        locked.save(update_fields=list(changes))
        audit_record(
            actor=actor, action="operator.updated", obj=locked, operator=locked, data=changes
        )
    return locked


@transaction.atomic
def webhook_secret_rotate(*, operator: Operator, actor: Actor) -> Operator:
    locked = lock_operator(operator.pk)
    locked.webhook_secret = new_signing_secret()
    locked.save(update_fields=["webhook_secret"])
    audit_record(actor=actor, action="operator.webhook_secret_rotated", obj=locked, operator=locked)
    return locked


@transaction.atomic
def signing_secret_create(*, operator: Operator, actor: Actor) -> OperatorSigningSecret:
    secret = OperatorSigningSecret.objects.create(operator=operator, secret=new_signing_secret())
    audit_record(actor=actor, action="signing_secret.created", obj=secret, operator=operator)
    return secret


@transaction.atomic
def signing_secret_revoke(*, secret: OperatorSigningSecret, actor: Actor) -> OperatorSigningSecret:
    locked = lock_signing_secret(secret.pk)
    if locked.revoked_at is None:
        locked.revoked_at = timezone.now()
        locked.save(update_fields=["revoked_at"])
        audit_record(
            actor=actor, action="signing_secret.revoked", obj=locked, operator=locked.operator
        )
    return locked


def player_create(
    *,
    operator: Operator,
    external_ref: str,
    wallet_currency: str | None = None,
    display_currency: str | None = None,
    locale: str = "en",
    display_name: str = "",
    kyc_status: str = Player.KycStatus.NONE,
    actor: Actor,
) -> Player:
    wallet = _real_currency(wallet_currency or operator.base_currency, field="wallet_currency")
    display = _real_currency(display_currency or wallet, field="display_currency")
    try:
        with transaction.atomic():
            player = Player.objects.create(
                operator=operator,
                external_ref=external_ref,
                wallet_currency=wallet,
                display_currency=display,
                locale=locale,
                display_name=display_name,
                kyc_status=kyc_status,
            )
            audit_record(
                actor=actor,
                action="player.created",
                obj=player,
                operator=operator,
                data={"external_ref": external_ref, "wallet_currency": wallet},
            )
    except IntegrityError as exc:
        raise PlayerExistsProblem(
            f"external_ref {external_ref!r} is already used by a player of this operator"
        ) from exc
    return player


@transaction.atomic
def player_update(
    *,
    player: Player,
    actor: Actor,
    display_currency: str | None = None,
    locale: str | None = None,
    display_name: str | None = None,
    status: str | None = None,
    kyc_status: str | None = None,
) -> Player:
    locked = lock_player(player.pk)
    new_values = {
        "display_currency": (
            _real_currency(display_currency, field="display_currency")
            if display_currency is not None
            else None
        ),
        "locale": locale,
        "display_name": display_name,
        "status": status,
        "kyc_status": kyc_status,
    }
    audit_changes(
        obj=locked,
        values=new_values,
        actor=actor,
        action="player.updated",
        operator=locked.operator,
    )
    return locked


@transaction.atomic
def player_session_create(
    *, player: Player, ttl_seconds: int | None = None, actor: Actor
) -> IssuedPlayerSession:
    ttl = ttl_seconds if ttl_seconds is not None else settings.PLAYER_SESSION_DEFAULT_TTL_SECONDS
    if not 60 <= ttl <= settings.PLAYER_SESSION_MAX_TTL_SECONDS:
        raise SessionTtlProblem(
            f"ttl_seconds must be between 60 and {settings.PLAYER_SESSION_MAX_TTL_SECONDS}"
        )
    if not player.is_active:
        raise PlayerInactiveProblem(f"player {player.external_ref} is {player.status}")
    token, token_hash = new_player_token()
    session = PlayerSession.objects.create(
        player=player,
        token_hash=token_hash,
        expires_at=timezone.now() + timedelta(seconds=ttl),
    )
    audit_record(
        actor=actor,
        action="player_session.created",
        obj=session,
        operator=player.operator,
        data={"player": str(player.pk), "ttl_seconds": ttl},
    )
    return IssuedPlayerSession(session=session, token=token)


@transaction.atomic
def player_session_revoke(*, session: PlayerSession, actor: Actor) -> PlayerSession:
    locked = lock_player_session(session.pk)
    if locked.revoked_at is None:
        locked.revoked_at = timezone.now()
        locked.save(update_fields=["revoked_at"])
        audit_record(
            actor=actor,
            action="player_session.revoked",
            obj=locked,
            operator=player_operator(locked),
        )
    return locked


def player_operator(session: PlayerSession) -> Operator:
    return session.player.operator
