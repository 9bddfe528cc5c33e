"""Money between players: what each player of a settled game won or lost in it, read from
the ledger in the order the settlements were posted (integrity's chip-dumping job reads it
with a cursor; docs/integrity.md). The wallet knows games only as their escrow's
``game_ref``.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q, Sum

from wallet.models import Account, LedgerEntry, LedgerTransaction

Kind = LedgerTransaction.Kind


@dataclass(frozen=True)
class GameFlow:
    """A settled game's money per player: ``net`` is what the player took out of the escrow
    less what they put in (minor units of ``currency``); the parts sum to minus the fee."""

    transaction_id: int
    posted_at: datetime
    game_ref: str
    currency: str
    net: dict[uuid.UUID, int]


def settled_game_flows(
    *, after_at: datetime | None, after_id: int, before: datetime, limit: int
) -> list[GameFlow]:
    """The settlements posted after the cursor (``after_at``, ``after_id``) and before
    ``before``, oldest first, at most ``limit``, each with its escrow's net per player over
    every posting of that escrow (buy-ins, refunds, the payout; a reversed settlement is left
    out)."""
    rows = LedgerTransaction.objects.filter(
        kind=Kind.SETTLEMENT,
        reversal__isnull=True,
        escrow__isnull=False,
        created_at__lt=before,
    )
    if after_at is not None:
        rows = rows.filter(Q(created_at__gt=after_at) | Q(created_at=after_at, pk__gt=after_id))
    settlements = list(
        rows.order_by("created_at", "pk").values_list(
            "pk", "created_at", "escrow_id", "game_ref", "currency"
        )[:limit]
    )
    if not settlements:
        return []
    totals: dict[int, dict[uuid.UUID, int]] = {}
    for escrow_id, player_id, total in (
        LedgerEntry.objects.filter(
            account_id__in=[row[2] for row in settlements],
            account__kind=Account.Kind.ESCROW,
            player__isnull=False,
        )
        .values("account_id", "player_id")
        .annotate(total=Sum("amount"))
        .order_by()
        .values_list("account_id", "player_id", "total")
    ):
        totals.setdefault(escrow_id, {})[player_id] = -(total or 0)
    return [
        GameFlow(
            transaction_id=pk,
            posted_at=posted_at,
            game_ref=game_ref or "",
            currency=currency,
            net=totals.get(escrow_id, {}),
        )
        for pk, posted_at, escrow_id, game_ref, currency in settlements
    ]
