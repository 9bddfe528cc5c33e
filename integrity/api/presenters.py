"""What an operator is shown of a link (docs/integrity-links.md "Who sees what"): the other
player (one of its own: ``integrity.selectors`` lists no other), the kind, who made it, and
for a found link when the identifier was seen; never the identifier, nor the risk team's
evidence."""

from __future__ import annotations

from typing import Any

from gin_platform.models import Player
from integrity.models import LinkMark, PlayerLink


def link_source(link: PlayerLink) -> str:
    """operator, platform or risk_team (never whose id)."""
    if link.source.startswith("operator:"):
        return "operator"
    if link.source == "platform":
        return "platform"
    return "risk_team"


def link_view(link: PlayerLink, *, player: Player) -> dict[str, Any]:
    other = link.player_high_id if link.player_low_id == player.pk else link.player_low_id
    seen_at = link.evidence.get("seen_at") if link_source(link) == "platform" else None
    return {
        "id": link.pk,
        "player_id": player.pk,
        "other_player_id": other,
        "kind": link.kind,
        "made_by": link_source(link),
        "seen_at": seen_at,
        "created_at": link.created_at,
        "ended_at": link.ended_at,
    }


def mark_view(mark: LinkMark) -> dict[str, Any]:
    return {
        "player_id": mark.player_id,
        "kind": mark.kind,
        "first_seen_at": mark.first_seen_at,
        "last_seen_at": mark.last_seen_at,
    }
