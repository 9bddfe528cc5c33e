"""The questions games asks integrity (R10's seating, docs/integrity.md): may these
players share a table, and may this player sit at all? Two players linked for any reason
still in force never share one.
Reads only, one indexed query per call; imports nothing of games, so the seating path can
call it.

- ``linked_pairs``: the linked pairs among a set of players (a table's seats and a newcomer;
  a waiting list; a tournament's registrants before its draw), then ``pair_linked`` asks
  of any two without another query.
- ``may_share_table``: may one player join the others (the explicit sit, under the table's
  lock).
- ``linked_players``: everybody linked to one player (the waiting list leaves their tables
  out of the search for an opponent).
- ``play_refusal``: whether the player may sit anywhere now (a suspension or ban from a case,
  docs/integrity.md "Actions").
"""

from __future__ import annotations

from collections.abc import Iterable
from uuid import UUID

from django.db.models import Q
from django.utils.translation import gettext

from integrity.models import LinkKind, PlayerLink, Sanction


def linked_pairs(*, player_ids: Iterable[UUID]) -> set[tuple[UUID, UUID]]:
    """The pairs among ``player_ids`` that may not share a table, each as (low id, high id)."""
    ids = set(player_ids)
    if len(ids) < 2:
        return set()
    rows = PlayerLink.objects.filter(
        player_low__in=ids, player_high__in=ids, ended_at__isnull=True
    ).values_list("player_low_id", "player_high_id")
    return {(low, high) for low, high in rows}


def pair_linked(pairs: set[tuple[UUID, UUID]], first: UUID, second: UUID) -> bool:
    """Whether ``first`` and ``second`` are one of ``pairs`` (from ``linked_pairs``).

    >>> from uuid import UUID
    >>> a, b = UUID(int=1), UUID(int=2)
    >>> pair_linked({(a, b)}, b, a), pair_linked({(a, b)}, a, a)
    (True, False)
    """
    low, high = (first, second) if first < second else (second, first)
    return (low, high) in pairs


def may_share_table(*, player_id: UUID, other_ids: Iterable[UUID]) -> bool:
    """Whether ``player_id`` may sit with every one of ``other_ids``."""
    others = set(other_ids) - {player_id}
    if not others:
        return True
    return not any(player_id in pair for pair in linked_pairs(player_ids=others | {player_id}))


def linked_players(*, player_id: UUID) -> set[UUID]:
    """Every player linked to ``player_id`` by a link in force (either index of the pair)."""
    rows = PlayerLink.objects.filter(
        Q(player_low=player_id) | Q(player_high=player_id), ended_at__isnull=True
    ).values_list("player_low_id", "player_high_id")
    return {low if high == player_id else high for low, high in rows}


# The identifier links that make two accounts one person for a ban at network tables.
PERSON_LINKS = (LinkKind.DEVICE, LinkKind.ADDRESS, LinkKind.PAYMENT_INSTRUMENT)


def play_refusal(*, player_id: UUID, network: bool = False) -> str | None:
    """Why the player may not sit at a table now, a sentence for the player in the active
    language (docs/integrity.md "Actions"), or None: a
    suspension from play or a ban in force. At a network table (``network``) a ban also
    keeps out the banned person's other accounts, the players linked to a banned player by
    a shared device, address or payment instrument (any operator's). One indexed query
    (two at a network table)."""
    kinds = set(
        Sanction.objects.filter(player_id=player_id, lifted_at__isnull=True).values_list(
            "kind", flat=True
        )
    )
    if Sanction.Kind.BAN in kinds:
        return gettext("You may not sit at a table: you are banned after an integrity review.")
    if Sanction.Kind.SUSPENSION in kinds:
        return gettext(
            "You may not sit at a table: you are suspended from play during an integrity review."
        )
    if not network:
        return None
    linked = PlayerLink.objects.filter(
        Q(player_low_id=player_id) | Q(player_high_id=player_id),
        kind__in=PERSON_LINKS,
        ended_at__isnull=True,
    ).values_list("player_low_id", "player_high_id")
    others = {low if high == player_id else high for low, high in linked}
    if (
        others
        and Sanction.objects.filter(
            player_id__in=others, kind=Sanction.Kind.BAN, lifted_at__isnull=True
        ).exists()
    ):
        return gettext(
            "You may not sit at a network table: your account belongs to a person banned from "
            "the network."
        )
    return None
