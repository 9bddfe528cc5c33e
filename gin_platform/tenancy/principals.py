"""Who is calling: the request.user of an authenticated API request.

Operators and players are not Django users, so authentication returns one of these small
principals; views and permissions ask them for the operator that scopes every query.
DRF types ``request.user`` as a Django user: a view reads its caller through
``operator_principal``, ``player_principal`` or ``operator_or_player_principal``, typed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rest_framework.exceptions import APIException, NotAuthenticated, PermissionDenied

from gin_platform.models import AuditEvent, Operator, OperatorApiKey, Player, PlayerSession

if TYPE_CHECKING:
    from rest_framework.request import Request

# What a caller of the wrong kind is told: by the permission classes (IsOperator, IsPlayer,
# IsOperatorOrPlayer in gin_platform/http/permissions.py) and by the accessors below alike.
OPERATOR_REQUIRED = "This endpoint needs an operator API key"
PLAYER_REQUIRED = "This endpoint needs a player session token"
OPERATOR_OR_PLAYER_REQUIRED = "This endpoint needs an operator API key or a player session token"


@dataclass(frozen=True)
class Actor:
    """Who made a state change, as written in the audit log."""

    type: str
    id: str

    @classmethod
    def system(cls, name: str = "system") -> Actor:
        return cls(AuditEvent.ActorType.SYSTEM, name)


@dataclass(frozen=True, eq=False)
class OperatorPrincipal:
    operator: Operator
    api_key: OperatorApiKey
    is_authenticated: bool = True
    is_staff: bool = False
    is_active: bool = True

    @property
    def throttle_ident(self) -> str:
        return f"operator:{self.operator.pk}"

    @property
    def actor(self) -> Actor:
        return Actor(AuditEvent.ActorType.OPERATOR, f"key:{self.api_key.prefix}")

    def __str__(self) -> str:
        return f"operator {self.operator.slug}"


@dataclass(frozen=True, eq=False)
class PlayerPrincipal:
    player: Player
    session: PlayerSession
    is_authenticated: bool = True
    is_staff: bool = False
    is_active: bool = True

    @property
    def operator(self) -> Operator:
        return self.player.operator

    @property
    def throttle_ident(self) -> str:
        return f"player:{self.player.pk}"

    @property
    def actor(self) -> Actor:
        return Actor(AuditEvent.ActorType.PLAYER, str(self.player.pk))

    def __str__(self) -> str:
        return f"player {self.player}"


def actor_for(user: object) -> Actor:
    """The audit actor for any request.user (operator, player or staff user)."""
    if isinstance(user, OperatorPrincipal | PlayerPrincipal):
        return user.actor
    return Actor(AuditEvent.ActorType.STAFF, str(getattr(user, "pk", "")))


def operator_principal(request: Request) -> OperatorPrincipal:
    """The caller of a view behind ``IsOperator``: ``request.user``, typed.

    Anyone else is refused as ``IsOperator`` refuses them (401 without credentials, else
    403), so a view that lost its permission class still answers a problem."""
    user: object = request.user
    if isinstance(user, OperatorPrincipal):
        return user
    raise _refusal(request, OPERATOR_REQUIRED)


def player_principal(request: Request) -> PlayerPrincipal:
    """The caller of a view behind ``IsPlayer``: ``request.user``, typed; anyone else is
    refused as ``IsPlayer`` refuses them."""
    user: object = request.user
    if isinstance(user, PlayerPrincipal):
        return user
    raise _refusal(request, PLAYER_REQUIRED)


def operator_or_player_principal(request: Request) -> OperatorPrincipal | PlayerPrincipal:
    """The caller of a view behind ``IsOperatorOrPlayer``: ``request.user``, typed (both
    kinds have ``operator`` and ``actor``); anyone else is refused as that class refuses
    them."""
    user: object = request.user
    if isinstance(user, OperatorPrincipal | PlayerPrincipal):
        return user
    raise _refusal(request, OPERATOR_OR_PLAYER_REQUIRED)


def _refusal(request: Request, message: str) -> APIException:
    """What DRF's ``APIView.permission_denied`` raises for a permission that said no."""
    if request.authenticators and not request.successful_authenticator:
        return NotAuthenticated()
    return PermissionDenied(message)
