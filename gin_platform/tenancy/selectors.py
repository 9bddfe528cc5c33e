"""Reads of the platform app, always scoped to the caller's operator.

A row of another operator is reported exactly like a missing row (404, not 403), so a
caller cannot even learn that it exists.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable, Mapping
from contextlib import suppress

from django.core.cache import cache
from django.db.models import Q, QuerySet, TextField
from django.db.models.functions import Cast
from django.utils import timezone

from gin_platform.http.cors import canonical_origin, is_platform_origin, registered_operator_ids
from gin_platform.http.problems import LiveModeForbiddenProblem, NotFoundProblem
from gin_platform.models import (
    AuditEvent,
    Network,
    NetworkMembership,
    Operator,
    OperatorApiKey,
    OperatorOrigin,
    OperatorSigningSecret,
    Player,
    PlayerSession,
    WebhookDelivery,
)


def as_uuid(value: object) -> uuid.UUID | None:
    """A UUID from a path or query value; None (no row) for anything that is not one."""
    try:
        return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))
    except (TypeError, ValueError, AttributeError):
        return None


def operator_get_by_slug(*, slug: str) -> Operator:
    """The operator whose slug is ``slug``, for the back office (staff read every operator)."""
    operator = Operator.objects.filter(slug=slug).first()
    if operator is None:
        raise NotFoundProblem(f"No operator {slug!r}")
    return operator


def operator_get(*, operator_id: object) -> Operator:
    """The operator whose id is ``operator_id``, for the back office (staff read every
    operator); anything that is not an operator's id is a 404."""
    operator_uuid = as_uuid(operator_id)
    operator = Operator.objects.filter(pk=operator_uuid).first() if operator_uuid else None
    if operator is None:
        raise NotFoundProblem(f"No operator {operator_id}")
    return operator


def player_list(*, operator: Operator, external_ref: str | None = None) -> QuerySet[Player]:
    players = Player.objects.filter(operator=operator)
    if external_ref:
        players = players.filter(external_ref=external_ref)
    return players


def player_get(*, operator: Operator, player_id: object) -> Player:
    player_uuid = as_uuid(player_id)
    player = (
        Player.objects.select_related("operator").filter(operator=operator, pk=player_uuid).first()
        if player_uuid
        else None
    )
    if player is None:
        raise NotFoundProblem(f"No player {player_id} for this operator")
    return player


def player_session_get(*, operator: Operator, player: Player, session_id: object) -> PlayerSession:
    pk = as_id(session_id)
    session = (
        PlayerSession.objects.select_related("player__operator")
        .filter(player=player, player__operator=operator, pk=pk)
        .first()
        if pk is not None
        else None
    )
    if session is None:
        raise NotFoundProblem(f"No session {session_id} for this player")
    return session


# --- The network (docs/network.md) -------------------------------------------------------
def network_get() -> Network | None:
    """The platform's network, or None before staff created it (one row at most)."""
    return Network.objects.select_related("operator").first()


NETWORK_CACHE_KEY = "platform:network:v1"
NETWORK_CACHE_SECONDS = 300


# The facts as this process last read them, and when (time.monotonic): every seat of every
# view asks, so the shared cache is asked at most every NETWORK_LOCAL_SECONDS.
NETWORK_LOCAL_SECONDS = 2.0
_local_network_facts: tuple[float, tuple[str, bool]] | None = None


def _network_facts() -> tuple[str, bool]:
    """(the network operator's id or "", reveal_operators), from this process's memory
    (at most NETWORK_LOCAL_SECONDS old) or the cache: every player view asks, and a move's
    path reads nothing it need not (docs/games.md "Speed"). ``services.network_create`` /
    ``network_update`` forget it (``network_cache_forget``)."""
    global _local_network_facts
    now = time.monotonic()
    local = _local_network_facts
    if local is not None and now - local[0] < NETWORK_LOCAL_SECONDS:
        return local[1]
    facts = _shared_network_facts()
    _local_network_facts = (now, facts)
    return facts


def _shared_network_facts() -> tuple[str, bool]:
    try:
        facts = cache.get(NETWORK_CACHE_KEY)
    except Exception:  # a cache that does not answer: read the row
        facts = None
    if facts is None:
        row = Network.objects.values_list("operator_id", "reveal_operators").first()
        facts = (str(row[0]), bool(row[1])) if row is not None else ("", False)
        with suppress(Exception):
            cache.set(NETWORK_CACHE_KEY, facts, NETWORK_CACHE_SECONDS)
    return facts[0], facts[1]


def network_cache_forget() -> None:
    """Forget the network's facts: here at once, in other processes within
    NETWORK_LOCAL_SECONDS."""
    global _local_network_facts
    _local_network_facts = None
    with suppress(Exception):
        cache.delete(NETWORK_CACHE_KEY)


def network_operator_id() -> uuid.UUID | None:
    """The id of the operator that owns the network rooms, or None without a network."""
    operator_id, _ = _network_facts()
    return uuid.UUID(operator_id) if operator_id else None


def network_reveals_operators() -> bool:
    """Whether players at network tables see their opponents' operator names."""
    return _network_facts()[1]


def is_network_operator(operator_id: object) -> bool:
    """Whether ``operator_id`` is the network's operator: its rooms, tables and matches are
    network ones, shared by the member operators' players."""
    network_id = network_operator_id()
    return network_id is not None and as_uuid(operator_id) == network_id


def network_membership_get(*, operator: Operator) -> NetworkMembership | None:
    """The operator's membership row (also once it left: ``left_at`` set), or None."""
    return NetworkMembership.objects.filter(operator=operator).first()


MAX_ID = 2**63 - 1  # BIGINT primary keys


def as_id(value: object) -> int | None:
    """A primary key from a path or query value; None (no row) for anything else, including
    numbers no database column can hold (which PostgreSQL would refuse with an error)."""
    try:
        number = int(str(value))
    except ValueError:
        return None
    return number if 0 < number <= MAX_ID else None


def api_key_list(*, operator: Operator, mode: str | None = None) -> QuerySet[OperatorApiKey]:
    """The operator's API keys, revoked ones included (newest first with the pagination).

    ``mode`` test from a live operator: its sandbox twin's keys (none before the twin
    exists); a sandbox operator cannot list live keys (LiveModeForbiddenProblem)."""
    if mode is None or mode == operator.mode:
        return OperatorApiKey.objects.filter(operator=operator)
    if operator.is_sandbox:
        raise LiveModeForbiddenProblem("A test-mode key cannot list live keys", field="mode")
    return OperatorApiKey.objects.filter(operator__live_operator=operator)


def api_key_in_force(api_key: OperatorApiKey) -> bool:
    """The key is not revoked (a rotation's grace period: not yet) and its operator is
    active: what an operator's watching socket checks at its ticket and at every heartbeat
    (docs/realtime.md "Tickets")."""
    return (
        api_key.revoked_at is None or api_key.revoked_at > timezone.now()
    ) and api_key.operator.is_active


def api_key_get(
    *, operator: Operator, api_key_id: object, include_sandbox: bool = False
) -> OperatorApiKey:
    """One of the operator's keys; with ``include_sandbox`` a live operator's sandbox twin's
    keys too (a live key manages its test keys). A sandbox never reaches a live key."""
    owners = Q(operator=operator)
    if include_sandbox and not operator.is_sandbox:
        owners |= Q(operator__live_operator=operator)
    pk = as_id(api_key_id)
    api_key = (
        OperatorApiKey.objects.select_related("operator").filter(owners, pk=pk).first()
        if pk is not None
        else None
    )
    if api_key is None:
        raise NotFoundProblem(f"No API key {api_key_id} for this operator")
    return api_key


def signing_secret_get(*, operator: Operator, secret_id: object) -> OperatorSigningSecret:
    pk = as_id(secret_id)
    secret = (
        OperatorSigningSecret.objects.filter(operator=operator, pk=pk).first()
        if pk is not None
        else None
    )
    if secret is None:
        raise NotFoundProblem(f"No signing secret {secret_id} for this operator")
    return secret


def operator_origin_list(*, operator: Operator) -> QuerySet[OperatorOrigin]:
    """The origins the operator registered (newest first with the pagination)."""
    return OperatorOrigin.objects.filter(operator=operator)


def operator_origin_get(*, operator: Operator, origin_id: object) -> OperatorOrigin:
    pk = as_id(origin_id)
    origin = (
        OperatorOrigin.objects.select_related("operator").filter(operator=operator, pk=pk).first()
        if pk is not None
        else None
    )
    if origin is None:
        raise NotFoundProblem(f"No origin {origin_id} for this operator")
    return origin


def origin_allowed(*, operator: Operator, origin: str | None, host: str) -> bool:
    """May a page at ``origin`` act for ``operator``'s players (REST calls and sockets)?

    True when there is no Origin (not a browser), when it is the platform itself (the same
    host as ``host``, the Host the request or socket was made to, or ``PUBLIC_BASE_URL``),
    or when ``operator`` registered it. False for anything else, ``null`` and malformed
    origins included (gin_platform/http/cors.py). Cached: no query on most calls.
    """
    if not origin:
        return True
    canonical = canonical_origin(origin)
    if canonical is None:
        return False
    if is_platform_origin(canonical, host=host):
        return True
    return str(operator.pk) in registered_operator_ids(canonical)


# --- Back office (staff pages: any operator's player) -----------------------------------
def player_session_list(*, player: Player) -> QuerySet[PlayerSession]:
    """The player's sessions, newest first (never the token: only its hash is stored)."""
    return PlayerSession.objects.filter(player=player).order_by("-created_at", "-pk")


def _mentions(field: str, text: str) -> Q:
    """Rows whose JSON ``field`` contains ``text`` anywhere (the JSON cast to text)."""
    return Q(**{f"{field}_text__contains": text})


def player_webhook_deliveries(*, player: Player) -> QuerySet[WebhookDelivery]:
    """The operator's webhook deliveries whose payload names the player (by their id)."""
    return (
        WebhookDelivery.objects.filter(operator_id=player.operator_id)
        .annotate(payload_text=Cast("payload", TextField()))
        .filter(_mentions("payload", str(player.pk)))
        .order_by("-created_at", "-pk")
    )


def audit_events_about(
    *, player: Player, objects: Mapping[str, Iterable[object]]
) -> QuerySet[AuditEvent]:
    """Audit rows about the player: rows on the player itself, on ``objects`` (object type
    -> primary keys: their sessions, seats, limits, ...), and the operator's rows whose
    data names the player's id."""
    about = Q(object_type=Player._meta.label_lower, object_id=str(player.pk))
    for object_type, ids in objects.items():
        keys = [str(pk) for pk in ids]
        if keys:
            about |= Q(object_type=object_type, object_id__in=keys)
    about |= Q(operator_id=player.operator_id) & _mentions("data", str(player.pk))
    return (
        AuditEvent.objects.annotate(data_text=Cast("data", TextField()))
        .filter(about)
        .order_by("-created_at", "-pk")
    )
