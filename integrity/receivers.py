"""Integrity's receivers of other apps' signals (connected by ``IntegrityConfig.ready``).

``identifiers_seen`` (gin_platform.tenancy.signals): the identifiers are hashed here, in the
sender's process (the raw values go no further: not to the database, the broker or a log),
and the marks are written after the sender's commit, outside its transaction.
"""

from __future__ import annotations

from datetime import datetime
from functools import partial
from typing import Any
from uuid import UUID

from django.utils import timezone

from gin_platform.enqueue import on_commit_logged
from gin_platform.models import Player
from integrity.hashing import identifier_digest
from integrity.services import mark_record


def identifiers_seen_receive(
    sender: Any, *, player_id: UUID, identifiers: dict[str, str], source: str, **kwargs: Any
) -> None:
    seen_at = timezone.now()
    for kind, value in identifiers.items():
        digest = identifier_digest(kind=kind, value=value)
        if digest is not None:
            on_commit_logged(
                partial(mark_after_commit, player_id, kind, digest, source, seen_at),
                what=f"recording a {kind} mark of player {player_id}",
            )


def mark_after_commit(
    player_id: UUID, kind: str, digest: str, source: str, seen_at: datetime
) -> None:
    player = Player.objects.select_related("operator").get(pk=player_id)
    mark_record(player=player, kind=kind, digest=digest, source=source, seen_at=seen_at)
