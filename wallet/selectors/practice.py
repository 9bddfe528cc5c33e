"""Reads of practice chips (XGC): a player's top-up in a period, and whether they ever
received chips (wallet.services.practice)."""

from __future__ import annotations

from gin_platform.models import Player
from wallet.models import LedgerTransaction
from wallet.windows import Window

Kind = LedgerTransaction.Kind


def practice_top_up_in(*, player: Player, window: Window) -> LedgerTransaction | None:
    """The player's practice-chip top-up posted in ``window``, if any. Gross: a reversed
    top-up still used its period (a reversal must not be a way to a second one)."""
    return (
        LedgerTransaction.objects.filter(
            kind=Kind.PRACTICE_TOP_UP,
            player=player,
            created_at__gte=window.start,
            created_at__lt=window.end,
        )
        .order_by("created_at", "pk")
        .first()
    )


def practice_chips_ever_issued(*, player: Player) -> bool:
    """Whether the player ever received practice chips (the first-use grant or a top-up)."""
    return LedgerTransaction.objects.filter(
        player=player, kind__in=(Kind.PRACTICE_GRANT, Kind.PRACTICE_TOP_UP)
    ).exists()
