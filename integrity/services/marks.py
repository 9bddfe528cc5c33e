"""Sightings of identifiers, and the links the platform finds from them
(docs/integrity.md "What links players").

- ``mark_record``: a player was seen with an identifier (already a keyed hash,
  integrity/hashing.py): the mark is created or its ``last_seen_at`` moves on; the links it
  implies are made after the commit (``links_derive``, a Celery task queued by name).
- ``links_derive``: link the mark's player to every other player with the same mark, under
  the rules of ``derive_rule``; marks whose sighting was never derived (a lost message) are
  found by ``links_derive_pending`` (beat).

Deriving after the mark's own commit makes two players first seen together at once link
without a lock: each derivation reads after its own mark committed, so the later of the two
sees the other's mark.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from uuid import UUID

from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone

from gin_platform.audit import audit_record
from gin_platform.enqueue import enqueue_on_commit
from gin_platform.models import Player
from gin_platform.tenancy.principals import Actor
from integrity.locks import lock_link_mark
from integrity.models import LinkMark, MarkKind, PlayerLink

logger = logging.getLogger(__name__)

INTEGRITY_ACTOR = Actor.system("integrity")
# An address links the players seen at it within ADDRESS_DAYS while there are at most
# ADDRESS_MAX_PLAYERS of them (a household); more is shared infrastructure (a carrier's or a
# café's NAT): it links nobody new (docs/integrity.md "The rules").
ADDRESS_MAX_PLAYERS = 4
ADDRESS_DAYS = 30
# A device id or payment instrument seen with more players than this identifies nobody: an
# operator's placeholder ("unknown"), a shop's shared terminal. It links no more players
# (those it linked stay linked) and is logged for the risk team (the kind and count only).
SHARED_IDENTIFIER_PLAYERS = 50
PENDING_BATCH = 500


@dataclass(frozen=True)
class RecordedMark:
    mark: LinkMark
    created: bool  # False: the player was seen with it before; last_seen_at moved on


@transaction.atomic
def mark_record(
    *,
    player: Player,
    kind: str,
    digest: str,
    source: str,
    actor: Actor = INTEGRITY_ACTOR,
    seen_at: datetime | None = None,
) -> RecordedMark:
    """Record that ``player`` was seen with the identifier whose keyed hash is ``digest``.
    The first sighting writes the mark and its audit row (the kind and source, never a
    value); a later one moves ``last_seen_at`` on. Either way its links are derived after
    the commit."""
    now = seen_at or timezone.now()
    try:
        with transaction.atomic():
            mark = LinkMark.objects.create(
                player=player,
                kind=kind,
                digest=digest,
                source=source,
                first_seen_at=now,
                last_seen_at=now,
            )
        created = True
        audit_record(
            actor=actor,
            action="link_mark.recorded",
            obj=mark,
            operator=player.operator,
            data={"player": str(player.pk), "kind": kind, "source": source},
        )
    except IntegrityError:  # seen before (or the same sighting twice at once)
        mark = LinkMark.objects.get(player=player, kind=kind, digest=digest)
        created = False
        if LinkMark.objects.filter(pk=mark.pk, last_seen_at__lt=now).update(last_seen_at=now):
            mark.last_seen_at = now
    enqueue_on_commit("integrity.tasks.links_derive", mark.pk)
    return RecordedMark(mark=mark, created=created)


def _window_start(kind: str, now: datetime) -> datetime | None:
    if kind == MarkKind.ADDRESS:
        return now - timedelta(days=ADDRESS_DAYS)
    return None


def _limit(kind: str) -> int:
    if kind == MarkKind.ADDRESS:
        return ADDRESS_MAX_PLAYERS
    return SHARED_IDENTIFIER_PLAYERS


def derive_rule(*, kind: str, players_sharing: int) -> bool:
    """Whether an identifier seen with ``players_sharing`` players (the mark's own included,
    an address's within ADDRESS_DAYS) still links them: a device or a payment instrument up
    to SHARED_IDENTIFIER_PLAYERS, an address up to ADDRESS_MAX_PLAYERS (a household; more
    is a shared NAT).

    >>> derive_rule(kind="address", players_sharing=2)
    True
    >>> derive_rule(kind="device", players_sharing=51)
    False
    """
    return 2 <= players_sharing <= _limit(kind)


def links_derive(*, mark_id: int) -> int:
    """Link the mark's player to the other players seen with the same identifier (kind
    device, address or payment_instrument, source ``platform``, evidence: the identifier's
    kind and when it was seen, never its value). Returns how many links were made; links
    already there (or ended by the risk team) are left as they are."""
    with transaction.atomic():
        mark = lock_link_mark(mark_id=mark_id)
        now = timezone.now()
        since = _window_start(mark.kind, now)
        others = LinkMark.objects.filter(kind=mark.kind, digest=mark.digest).exclude(
            player_id=mark.player_id
        )
        if since is not None:
            others = others.filter(last_seen_at__gte=since)
        limit = _limit(mark.kind)
        other_ids = list(others.values_list("player_id", flat=True).order_by("pk")[: limit + 1])
        fresh = since is None or mark.last_seen_at >= since
        made = 0
        if not fresh or not other_ids:
            pass  # an address last seen before the window, or nobody else seen with it
        elif derive_rule(kind=mark.kind, players_sharing=len(other_ids) + 1):
            made = _links_make(mark=mark, other_ids=other_ids)
        else:
            logger.warning(
                "a %s mark is shared by more than %s players: it links no more of them",
                mark.kind,
                limit,
            )
        LinkMark.objects.filter(pk=mark.pk).update(derived_at=now)
    return made


def _links_make(*, mark: LinkMark, other_ids: list[UUID]) -> int:
    pairs = {tuple(sorted((mark.player_id, other))) for other in other_ids}
    if not pairs:
        return 0
    existing = set(
        PlayerLink.objects.filter(
            kind=mark.kind,
            player_low_id__in={low for low, _ in pairs},
            player_high_id__in={high for _, high in pairs},
        ).values_list("player_low_id", "player_high_id")
    )
    evidence = {"identifier": mark.kind, "seen_at": mark.last_seen_at.isoformat()}
    made = 0
    for low, high in sorted(pairs - existing):
        try:
            with transaction.atomic():
                link = PlayerLink.objects.create(
                    player_low_id=low,
                    player_high_id=high,
                    kind=mark.kind,
                    source="platform",
                    evidence=evidence,
                )
        except IntegrityError:  # the other player's derivation made it meanwhile
            continue
        audit_record(
            actor=INTEGRITY_ACTOR,
            action="player_link.found",
            obj=link,
            operator=None,  # it may join two operators' players: the platform's own row
            data={"low": str(low), "high": str(high), "kind": mark.kind},
        )
        made += 1
    return made


def links_derive_pending(*, limit: int = PENDING_BATCH) -> int:
    """Derive the marks whose last sighting was not derived (its message was lost); how many
    were derived."""
    pending = list(
        LinkMark.objects.filter(Q(derived_at__isnull=True) | Q(derived_at__lt=F("last_seen_at")))
        .order_by("last_seen_at")
        .values_list("pk", flat=True)[:limit]
    )
    for mark_id in pending:
        links_derive(mark_id=mark_id)
    return len(pending)
