"""Integrity's reads for the operator API (docs/integrity-links.md "Who sees what"): an
operator sees only the links between two of its own players; a link to another operator's
player is the platform's and the risk team's, never shown to either operator."""

from __future__ import annotations

from django.db.models import Q, QuerySet

from gin_platform.http.problems import NotFoundProblem
from gin_platform.models import Operator, Player
from integrity.models import PlayerLink


def player_links_visible(*, operator: Operator, player: Player) -> QuerySet[PlayerLink]:
    """The links of ``player`` (one of ``operator``'s) to other players of ``operator``,
    ended ones too, newest first."""
    return (
        PlayerLink.objects.filter(
            Q(player_low=player, player_high__operator=operator)
            | Q(player_high=player, player_low__operator=operator)
        )
        .select_related("player_low", "player_high")
        .order_by("-created_at", "-pk")
    )


def player_link_get(*, operator: Operator, player: Player, link_id: str) -> PlayerLink:
    """One of ``player_links_visible``; 404 for anything else (another operator's link, an
    unknown or malformed id: one answer)."""
    link = (
        player_links_visible(operator=operator, player=player).filter(pk=link_id).first()
        if link_id.isdigit() and len(link_id) < 19
        else None
    )
    if link is None:
        raise NotFoundProblem(f"No link {link_id} of this player")
    return link
