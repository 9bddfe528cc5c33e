"""Who is calling: the request.user of an authenticated API request.

Operators and players are not Django users, so authentication returns one of these small
principals; views and permissions ask them for the operator that scopes every query.
"""

from __future__ import annotations

from dataclasses import dataclass

from gin_platform.models import AuditEvent, Operator, OperatorApiKey, Player, PlayerSession


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
