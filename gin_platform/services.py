"""State changes of the platform app: operators, credentials, registered origins, players,
player sessions, game-launch tokens and socket tickets.

One function per change, keyword-only and typed, atomic, each writing its audit row in the
same transaction (README "Architecture").
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urlsplit

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from gin_platform.audit import audit_changes, audit_record
from gin_platform.events.webhook_targets import target_url_problem
from gin_platform.http.cors import OriginError, forget_origin, normalize_origin
from gin_platform.http.idempotency import idempotency_records_prune
from gin_platform.http.problems import (
    LaunchTokenInvalidProblem,
    LiveModeForbiddenProblem,
    NotFoundProblem,
    OriginNotAllowedProblem,
    Problem,
    SocketTicketInvalidProblem,
    ValidationProblem,
)
from gin_platform.locks import (
    lock_api_key,
    lock_network,
    lock_operator,
    lock_operator_row,
    lock_player,
    lock_player_session,
    lock_signing_secret,
)
from gin_platform.models import (
    AuditEvent,
    LaunchToken,
    Network,
    NetworkMembership,
    Operator,
    OperatorApiKey,
    OperatorOrigin,
    OperatorSigningSecret,
    Player,
    PlayerSession,
    SocketTicket,
)
from gin_platform.money import CurrencyError, is_real_currency, normalize_currency
from gin_platform.principals import Actor, PlayerPrincipal
from gin_platform.selectors import network_cache_forget, network_get, origin_allowed
from gin_platform.tokens import (
    LAUNCH_TOKEN_PREFIX,
    SOCKET_TICKET_PREFIX,
    hash_secret,
    new_api_key,
    new_launch_token,
    new_player_token,
    new_signing_secret,
    new_socket_ticket,
)
from gin_platform.watchable import match_watchable


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
        "https:// only in production (http:// also in development), a valid host name or IP "
        "address, no user name or password, no fragment, at most 200 characters, and a host "
        "that is not (in any spelling) and does not resolve to a loopback, private, link-local "
        "or reserved address (docs/webhooks.md). `field` is `webhook_url`."
    )


def _webhook_url(url: str) -> str:
    problem = target_url_problem(url)
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


# --- The network (docs/network.md "Rooms, membership and screen names") ---------------------
class NetworkExistsProblem(Problem):
    slug = "network-exists"
    status = 409
    title = "The network already exists"
    description = "The platform has one network; change its settings instead."


def _fee_share_bps(value: object) -> int:
    if type(value) is not int or not 0 <= value <= 10_000:
        raise ValidationProblem(
            "One or more fields are invalid",
            errors={"fee_share_bps": ["a whole number of basis points from 0 to 10000"]},
        )
    return value


@transaction.atomic
def network_create(
    *,
    name: str = "Gin Network",
    slug: str = "network",
    base_currency: str = "EUR",
    fee_share_bps: int = 2000,
    reveal_operators: bool = False,
    actor: Actor,
) -> Network:
    """The platform's network and the operator row that owns its rooms (staff, once). No
    API key is ever issued to that operator: nobody calls the API as the network."""
    if Network.objects.exists():
        raise NetworkExistsProblem("the platform already has its network")
    operator = operator_create(name=name, slug=slug, base_currency=base_currency, actor=actor)
    try:
        with transaction.atomic():
            network = Network.objects.create(
                operator=operator,
                fee_share_bps=_fee_share_bps(fee_share_bps),
                reveal_operators=bool(reveal_operators),
            )
    except IntegrityError as exc:  # a concurrent creation won (network_single_row)
        raise NetworkExistsProblem("the platform already has its network") from exc
    network_cache_forget()
    transaction.on_commit(network_cache_forget)
    audit_record(
        actor=actor,
        action="network.created",
        obj=network,
        operator=operator,
        data={"fee_share_bps": network.fee_share_bps, "reveal_operators": reveal_operators},
    )
    return network


@transaction.atomic
def network_update(
    *,
    actor: Actor,
    fee_share_bps: int | None = None,
    reveal_operators: bool | None = None,
) -> Network:
    """Staff change the network's fee share or whether opponents' operators are shown."""
    network = network_get()
    if network is None:
        raise NotFoundProblem("The platform has no network")
    locked = lock_network(network.pk)
    audit_changes(
        obj=locked,
        values={
            "fee_share_bps": None if fee_share_bps is None else _fee_share_bps(fee_share_bps),
            "reveal_operators": reveal_operators,
        },
        actor=actor,
        action="network.updated",
        operator=locked.operator,
    )
    network_cache_forget()
    transaction.on_commit(network_cache_forget)
    return locked


@transaction.atomic
def network_membership_update(
    *, operator: Operator, member: bool, all_rooms: bool | None = None, actor: Actor
) -> NetworkMembership:
    """An operator joins the network (``member``; again after leaving), leaves it, or
    chooses whether it offers every network room (``all_rooms``) or those it opts into one
    by one. Leaving takes nobody off a table: seated players play on (or leave), nobody of
    the operator sits down at a network table again until it rejoins."""
    network = network_get()
    if network is None:
        raise NotFoundProblem("The platform has no network")
    if network.operator_id == operator.pk:
        raise ValidationProblem(
            "One or more fields are invalid",
            errors={"member": ["the network's own operator is not a member"]},
        )
    lock_operator_row(operator.pk)
    membership = NetworkMembership.objects.filter(operator=operator).first()
    now = timezone.now()
    if membership is None:
        if not member:
            raise NotFoundProblem("This operator is not a member of the network")
        membership = NetworkMembership.objects.create(
            operator=operator, all_rooms=bool(all_rooms), joined_at=now
        )
        audit_record(
            actor=actor,
            action="network.joined",
            obj=membership,
            operator=operator,
            data={"all_rooms": membership.all_rooms},
        )
        return membership
    if member and not membership.is_member:
        membership.left_at = None
        membership.joined_at = now
        membership.save(update_fields=["left_at", "joined_at"])
        audit_record(actor=actor, action="network.joined", obj=membership, operator=operator)
    elif not member and membership.is_member:
        membership.left_at = now
        membership.save(update_fields=["left_at"])
        audit_record(actor=actor, action="network.left", obj=membership, operator=operator)
    audit_changes(
        obj=membership,
        values={"all_rooms": all_rooms},
        actor=actor,
        action="network.membership_updated",
        operator=operator,
    )
    return membership


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


# --- Sandbox (test mode, docs/api.md "Sandbox") ---------------------------------------------
SANDBOX_SLUG_SUFFIX = "-sandbox"


def _sandbox_slug(operator: Operator) -> str:
    """``<slug>-sandbox``, or with a random tail when a live operator already took it."""
    base = operator.slug[: 64 - len(SANDBOX_SLUG_SUFFIX) - 5] + SANDBOX_SLUG_SUFFIX
    slug = base
    while Operator.objects.filter(slug=slug).exists():
        slug = f"{base}-{secrets.token_hex(2)}"
    return slug


@transaction.atomic
def sandbox_operator_get_or_create(*, operator: Operator, actor: Actor) -> Operator:
    """The sandbox twin of the live ``operator``, created (and audited, on the live
    operator) on first use: an operator of its own, "<name> (sandbox)" with slug
    ``<slug>-sandbox``, the same base currency, its own webhook secret, no webhook URL, no
    signing secret or origin. A sandbox operator is its own sandbox."""
    if operator.is_sandbox:
        return operator
    lock_operator_row(operator.pk)  # two first uses racing create one twin
    twin = Operator.objects.filter(live_operator=operator).first()
    if twin is not None:
        return twin
    twin = Operator.objects.create(
        name=f"{operator.name} (sandbox)"[:200],
        slug=_sandbox_slug(operator),
        base_currency=operator.base_currency,
        webhook_secret=new_signing_secret(),
        is_sandbox=True,
        live_operator=operator,
    )
    audit_record(
        actor=actor,
        action="operator.sandbox_created",
        obj=twin,
        operator=operator,
        data={"sandbox": str(twin.pk), "slug": twin.slug},
    )
    return twin


def operator_for_mode(*, operator: Operator, mode: str | None, actor: Actor) -> Operator:
    """The tenant a caller authenticated as ``operator`` acts on in ``mode``: itself (no mode
    or its own), or a live operator's sandbox twin (created on first use). A sandbox
    operator never reaches live mode (LiveModeForbiddenProblem)."""
    if mode is None or mode == operator.mode:
        return operator
    if operator.is_sandbox:
        raise LiveModeForbiddenProblem("A test-mode key cannot act in live mode", field="mode")
    return sandbox_operator_get_or_create(operator=operator, actor=actor)


@transaction.atomic
def api_key_create(
    *, operator: Operator, name: str = "default", actor: Actor, mode: str | None = None
) -> IssuedApiKey:
    """A new key. ``mode`` test from a live operator issues a ``gop_test_`` key of its
    sandbox twin (created on first use); no mode, or the operator's own, a key of
    ``operator`` (``gop_test_`` when it is a sandbox). A sandbox cannot create live keys."""
    operator = operator_for_mode(operator=operator, mode=mode, actor=actor)
    full, prefix, key_hash = new_api_key(test=operator.is_sandbox)
    api_key = OperatorApiKey.objects.create(
        operator=operator, name=name, prefix=prefix, key_hash=key_hash
    )
    audit_record(
        actor=actor,
        action="api_key.created",
        obj=api_key,
        operator=operator,
        data={"name": name, "prefix": prefix, "mode": operator.mode},
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
    full, prefix, key_hash = new_api_key(test=api_key.operator.is_sandbox)
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
    if webhook_url is not None:
        _webhook_url(webhook_url)  # before the lock: the check may ask DNS
    locked = lock_operator(operator.pk)
    changes: dict[str, list] = {}
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


# --- Registered origins (gin_platform/http/cors.py) ---------------------------------------------
class OriginInvalidProblem(Problem):
    slug = "origin-invalid"
    status = 422
    title = "The origin is not allowed"
    description = (
        "An origin is scheme://host[:port]: https:// (http:// also for localhost, 127.0.0.1 "
        "and [::1] outside production), no path, query, fragment, user name or wildcard "
        "(docs/browser-clients.md)."
    )


class OriginExistsProblem(Problem):
    slug = "origin-exists"
    status = 409
    title = "The operator already registered this origin"
    description = "`id` is the registration's id (DELETE /api/v1/operators/me/origins/{id})."


@transaction.atomic
def operator_origin_create(*, operator: Operator, origin: str, actor: Actor) -> OperatorOrigin:
    """Register ``origin`` (normalised) for ``operator``: its pages may then call the API and
    open sockets for the operator's players."""
    try:
        normalized = normalize_origin(
            origin, allow_http_localhost=settings.OPERATOR_ORIGINS_ALLOW_HTTP_LOCALHOST
        )
    except OriginError as exc:
        raise OriginInvalidProblem(f"origin: {exc}", field="origin") from exc
    existing = OperatorOrigin.objects.filter(operator=operator, origin=normalized).first()
    if existing is not None:
        raise OriginExistsProblem(f"{normalized} is already registered", id=existing.pk)
    try:
        with transaction.atomic():
            registered = OperatorOrigin.objects.create(operator=operator, origin=normalized)
    except IntegrityError as exc:  # registered by a concurrent request meanwhile
        raise OriginExistsProblem(f"{normalized} is already registered") from exc
    audit_record(
        actor=actor,
        action="operator_origin.created",
        obj=registered,
        operator=operator,
        data={"origin": normalized},
    )
    transaction.on_commit(lambda: forget_origin(normalized))
    return registered


@transaction.atomic
def operator_origin_delete(*, origin: OperatorOrigin, actor: Actor) -> None:
    """Remove a registration: pages at that origin can no longer act for the operator's
    players (sockets already open stay until they close)."""
    deleted, _ = OperatorOrigin.objects.filter(pk=origin.pk).delete()
    if not deleted:
        return  # deleted by a concurrent request
    audit_record(
        actor=actor,
        action="operator_origin.deleted",
        obj=origin,
        operator=origin.operator,
        data={"origin": origin.origin},
    )
    value = origin.origin
    transaction.on_commit(lambda: forget_origin(value))


# --- Game launch ----------------------------------------------------------------------------
class LaunchOptionsInvalidProblem(Problem):
    slug = "launch-options-invalid"
    status = 422
    title = "The launch options are not valid"
    description = (
        "mode is lobby or watch; match, the id of a match the operator's players may watch, is "
        "given with watch and only with it; return_url is an https:// URL (http:// also for "
        "localhost outside production). `field` names the option."
    )


LAUNCH_MODES = ("lobby", "watch")
MAX_RETURN_URL_LENGTH = 2000


@dataclass(frozen=True)
class IssuedLaunchToken:
    launch_token: LaunchToken
    token: str  # returned once, never stored


@dataclass(frozen=True)
class LaunchedSession:
    player: Player
    options: dict
    issued: IssuedPlayerSession


def _return_url(url: str) -> str:
    """A page to send the player back to: its origin follows the registered-origin rules
    (https, no user name), then any path, query or fragment."""
    if len(url) > MAX_RETURN_URL_LENGTH or any(ch.isspace() or ord(ch) < 32 for ch in url):
        raise LaunchOptionsInvalidProblem(
            f"return_url: at most {MAX_RETURN_URL_LENGTH} characters, no spaces",
            field="return_url",
        )
    try:
        parts = urlsplit(url)
        normalize_origin(
            f"{parts.scheme}://{parts.netloc}",
            allow_http_localhost=settings.OPERATOR_ORIGINS_ALLOW_HTTP_LOCALHOST,
        )
    except (ValueError, OriginError) as exc:
        raise LaunchOptionsInvalidProblem(f"return_url: {exc}", field="return_url") from exc
    return url


def _launch_options(
    *, operator: Operator, mode: str, match: int | None, return_url: str | None
) -> dict:
    if mode not in LAUNCH_MODES:
        raise LaunchOptionsInvalidProblem("mode: lobby or watch", field="mode")
    if mode == "watch" and match is None:
        raise LaunchOptionsInvalidProblem("match: the match to watch is required", field="match")
    if mode != "watch" and match is not None:
        raise LaunchOptionsInvalidProblem("match: only with mode watch", field="match")
    if match is not None and not match_watchable(operator=operator, match_id=match):
        # One answer for a missing match and another operator's: nothing tells them apart.
        raise LaunchOptionsInvalidProblem(
            "match: no match that this operator's players may watch", field="match"
        )
    return {
        "mode": mode,
        "match": match,
        "return_url": _return_url(return_url) if return_url else None,
    }


@transaction.atomic
def launch_token_create(
    *,
    player: Player,
    actor: Actor,
    mode: str = "lobby",
    match: int | None = None,
    return_url: str | None = None,
) -> IssuedLaunchToken:
    """A single-use token that opens the hosted table page for ``player`` (the game-launch
    URL), good for LAUNCH_TOKEN_TTL_SECONDS. A self-excluded player may still launch: they
    can watch and read statements, and seating refuses them."""
    if not player.is_active:
        raise PlayerInactiveProblem(f"player {player.external_ref} is {player.status}")
    options = _launch_options(
        operator=player.operator, mode=mode, match=match, return_url=return_url
    )
    token, token_hash = new_launch_token()
    now = timezone.now()
    launch_token = LaunchToken.objects.create(
        player=player,
        token_hash=token_hash,
        options=options,
        created_by_type=actor.type,
        created_by_id=actor.id,
        created_at=now,
        expires_at=now + timedelta(seconds=settings.LAUNCH_TOKEN_TTL_SECONDS),
    )
    audit_record(
        actor=actor,
        action="launch_token.created",
        obj=launch_token,
        operator=player.operator,
        data={"player": str(player.pk), **options},
    )
    return IssuedLaunchToken(launch_token=launch_token, token=token)


def _claim_once(model: type[LaunchToken] | type[SocketTicket], token_hash: str) -> bool:
    """Mark the unused, unexpired row with ``token_hash`` used, in ONE conditional UPDATE on
    that row alone: of any number of racing redeemers exactly one sees a row updated (the
    others wait for its lock, re-check ``used_at IS NULL`` on the new version, and update
    nothing)."""
    now = timezone.now()
    claimed = model.objects.filter(
        token_hash=token_hash, used_at__isnull=True, expires_at__gt=now
    ).update(used_at=now)
    return claimed == 1


@transaction.atomic
def launch_token_redeem(
    *, launch_token: str, origin: str | None = None, host: str = ""
) -> LaunchedSession:
    """Exchange a launch token, once, for a player session (the hosted page's first call).

    Unknown, used or expired tokens, and tokens of a player or operator no longer active,
    are all ``launch-token-invalid`` with one message. ``origin`` and ``host`` are the
    request's Origin and Host: a page at an origin the player's operator did not register
    is refused (403 ``origin-not-allowed``) and the token stays unused.
    """
    refused = LaunchTokenInvalidProblem("The launch token is not valid, was used or expired")
    if not isinstance(launch_token, str) or not launch_token.startswith(LAUNCH_TOKEN_PREFIX + "_"):
        raise refused
    token_hash = hash_secret(launch_token)
    if not _claim_once(LaunchToken, token_hash):
        raise refused
    row = LaunchToken.objects.select_related("player__operator").get(token_hash=token_hash)
    player = row.player
    if not player.is_active or not player.operator.is_active:
        raise refused
    if not origin_allowed(operator=player.operator, origin=origin, host=host):
        raise OriginNotAllowedProblem(f"Origin {origin} is not registered by the operator")
    actor = Actor(AuditEvent.ActorType.PLAYER, str(player.pk))
    issued = player_session_create(player=player, actor=actor)
    row.session = issued.session
    row.save(update_fields=["session"])
    audit_record(
        actor=actor,
        action="launch_token.redeemed",
        obj=row,
        operator=player.operator,
        data={"player": str(player.pk), "session": issued.session.pk},
    )
    return LaunchedSession(player=player, options=row.options, issued=issued)


# --- Socket tickets (docs/realtime.md "Tickets") --------------------------------------------
@dataclass(frozen=True)
class IssuedSocketTicket:
    socket_ticket: SocketTicket
    ticket: str  # returned once, never stored


@transaction.atomic
def socket_ticket_create(*, session: PlayerSession, actor: Actor) -> IssuedSocketTicket:
    """A ticket that opens one socket for the session's player within
    SOCKET_TICKET_TTL_SECONDS (and only while the session stays valid)."""
    ticket, token_hash = new_socket_ticket()
    now = timezone.now()
    socket_ticket = SocketTicket.objects.create(
        player_id=session.player_id,
        session=session,
        token_hash=token_hash,
        created_at=now,
        expires_at=now + timedelta(seconds=settings.SOCKET_TICKET_TTL_SECONDS),
    )
    audit_record(
        actor=actor,
        action="socket_ticket.created",
        obj=socket_ticket,
        operator=player_operator(session),
        data={"player": str(session.player_id), "session": session.pk},
    )
    return IssuedSocketTicket(socket_ticket=socket_ticket, ticket=ticket)


@transaction.atomic
def socket_ticket_redeem(*, ticket: str) -> PlayerPrincipal:
    """Redeem a socket ticket, once: the player (with their operator) and the session that
    minted it, for the socket consumer (a sync function: call it through
    ``database_sync_to_async``).

    Missing, unknown, used or expired tickets, a session revoked or expired since, and an
    inactive player or operator are all ``socket-ticket-invalid`` (401, close 4401) with one
    message that does not say which. Single use is one conditional UPDATE: of two sockets
    racing with the same ticket exactly one opens.
    """
    refused = SocketTicketInvalidProblem("The socket ticket is not valid, was used or expired")
    if not isinstance(ticket, str) or not ticket.startswith(SOCKET_TICKET_PREFIX + "_"):
        raise refused
    token_hash = hash_secret(ticket)
    if not _claim_once(SocketTicket, token_hash):
        raise refused
    row = SocketTicket.objects.select_related("session", "player__operator").get(
        token_hash=token_hash
    )
    player, session = row.player, row.session
    if (
        not session.is_valid_at(timezone.now())
        or not player.is_active
        or not player.operator.is_active
    ):
        raise refused
    audit_record(
        actor=Actor(AuditEvent.ActorType.PLAYER, str(player.pk)),
        action="socket_ticket.redeemed",
        obj=row,
        operator=player.operator,
        data={"session": session.pk},
    )
    session.player = player  # the same object, operator loaded: no query when read
    return PlayerPrincipal(player=player, session=session)


# --- Pruning (beat: prune-expired-records) --------------------------------------------------
def _prune(queryset, batch_size: int) -> int:
    deleted = 0
    while True:
        batch = list(queryset.values_list("pk", flat=True)[:batch_size])
        if not batch:
            return deleted
        count, _ = queryset.filter(pk__in=batch).delete()
        deleted += count


def expired_records_prune(*, batch_size: int = 5000) -> int:
    """Delete what is kept only for a while, in batches: Idempotency-Key records past
    IDEMPOTENCY_RETENTION_SECONDS, socket tickets used or expired, launch tokens expired
    (their mint and exchange stay in the audit log). Returns how many rows were deleted."""
    now = timezone.now()
    tickets = SocketTicket.objects.filter(Q(used_at__isnull=False) | Q(expires_at__lt=now))
    launch_tokens = LaunchToken.objects.filter(expires_at__lt=now)
    return (
        idempotency_records_prune(batch_size=batch_size)
        + _prune(tickets, batch_size)
        + _prune(launch_tokens, batch_size)
    )
