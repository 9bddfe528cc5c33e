"""What an operator tells the platform about its own players (docs/integrity.md):
household and known-associate links it declares and may end, and identifiers it sends by
API (a payment-instrument fingerprint, a device, an address).

An operator names only its own players: another operator's player is answered exactly like
an unknown id (``link-invalid`` on ``player_id``), so nothing says whether it exists.
"""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from django.db import IntegrityError, transaction
from django.utils import timezone

from gin_platform.audit import audit_record
from gin_platform.models import Operator, Player
from gin_platform.tenancy.principals import Actor
from integrity.hashing import MAX_IDENTIFIER_LENGTH, identifier_digest
from integrity.locks import lock_player_link, lock_player_link_of
from integrity.models import LinkKind, MarkKind, PlayerLink
from integrity.problems import LinkInvalidProblem, LinkNotEndableProblem
from integrity.services.marks import RecordedMark, mark_record

DECLARED_KINDS = (LinkKind.HOUSEHOLD, LinkKind.ASSOCIATE)


@dataclass(frozen=True)
class DeclaredLink:
    link: PlayerLink
    created: bool  # False: the link was already in force (a retry); nothing changed


def operator_source(operator: Operator) -> str:
    """``PlayerLink.source`` and ``LinkMark.source`` of what ``operator`` said."""
    return f"operator:{operator.pk}"


def _own_player(*, operator: Operator, player_id: UUID | str) -> Player:
    other = Player.objects.filter(operator=operator, pk=player_id).first()
    if other is None:
        raise LinkInvalidProblem("player_id: no player of yours has this id", field="player_id")
    return other


def player_link_declare(
    *, player: Player, other_player_id: UUID | str, kind: str, actor: Actor
) -> DeclaredLink:
    """Declare that ``player`` and another player of the same operator are of one household
    or known associates: they are never seated together from now on. Declaring a link in
    force again changes nothing; declaring one the operator ended puts it back in force."""
    if kind not in DECLARED_KINDS:
        raise LinkInvalidProblem("kind: household or associate", field="kind")
    other = _own_player(operator=player.operator, player_id=other_player_id)
    if other.pk == player.pk:
        raise LinkInvalidProblem(
            "player_id: a player is not linked to themselves", field="player_id"
        )
    low, high = sorted((player.pk, other.pk))
    with transaction.atomic():
        link = lock_player_link_of(low=low, high=high, kind=kind)
        if link is None:
            try:
                with transaction.atomic():
                    link = PlayerLink.objects.create(
                        player_low_id=low,
                        player_high_id=high,
                        kind=kind,
                        source=operator_source(player.operator),
                        evidence={"declared_at": timezone.now().isoformat()},
                    )
            except IntegrityError:  # the same declaration at once: the first one stands
                existing = lock_player_link_of(low=low, high=high, kind=kind)
                assert existing is not None  # the row whose insert conflicted
                return DeclaredLink(link=existing, created=False)
        elif link.ended_at is None:
            return DeclaredLink(link=link, created=False)
        else:
            link.ended_at = None
            link.evidence = {**link.evidence, "declared_at": timezone.now().isoformat()}
            link.save(update_fields=["ended_at", "evidence"])
        audit_record(
            actor=actor,
            action="player_link.declared",
            obj=link,
            operator=player.operator,
            data={"low": str(low), "high": str(high), "kind": kind},
        )
    return DeclaredLink(link=link, created=True)


@transaction.atomic
def player_link_end(*, link: PlayerLink, actor: Actor, operator: Operator) -> PlayerLink:
    """End a link ``operator`` declared (409 ``link-not-endable`` for any other link). Ending
    an ended link changes nothing."""
    locked = lock_player_link(link_id=link.pk)
    if locked.source != operator_source(operator):
        raise LinkNotEndableProblem(f"link {link.pk} was not declared by you")
    if locked.ended_at is None:
        locked.ended_at = timezone.now()
        locked.save(update_fields=["ended_at"])
        audit_record(
            actor=actor,
            action="player_link.ended",
            obj=locked,
            operator=operator,
            data={"kind": locked.kind},
        )
    return locked


def player_identifier_record(
    *, player: Player, kind: str, value: str, actor: Actor
) -> RecordedMark:
    """An identifier the operator sends for ``player`` by API (a payment-instrument
    fingerprint, a device id, an address): kept as its keyed hash only."""
    if kind not in MarkKind.values:
        raise LinkInvalidProblem("kind: device, address or payment_instrument", field="kind")
    if not isinstance(value, str) or len(value) > MAX_IDENTIFIER_LENGTH:
        raise LinkInvalidProblem(
            f"value: a string of at most {MAX_IDENTIFIER_LENGTH} characters", field="value"
        )
    digest = identifier_digest(kind=kind, value=value)
    if digest is None:
        raise LinkInvalidProblem(
            "value: empty, or an address that is not a public IP address", field="value"
        )
    return mark_record(
        player=player,
        kind=kind,
        digest=digest,
        source=operator_source(player.operator),
        actor=actor,
    )
