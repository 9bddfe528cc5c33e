"""Practice chips (XGC, play money): the one-time grant before a player's first practice
buy-in, and the top-up back to the grant (docs/wallet.md "practice_chips_top_up").

Chips come from the operator's XGC outside-world account (the mint, the player's shard)
and never convert to or from money. A top-up posts exactly the difference to the grant, at
most once per player per period (``practice_top_up_window``); it is never blocked by
self-exclusion or limits (play money), only refused for an inactive player.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction

from gin_platform.models import Player
from gin_platform.money import PRACTICE_CURRENCY
from gin_platform.tenancy.principals import Actor
from wallet.ledger.checks import check_active, check_reference
from wallet.ledger.keys import AccountKey, AccountKind, house_key, player_key, shard_for
from wallet.ledger.post import post_transfer
from wallet.ledger.replay import reference_guard
from wallet.ledger.skeleton import Locked, posting_make
from wallet.models import Account, LedgerTransaction
from wallet.problems import PracticeTopUpTooSoonProblem
from wallet.selectors import practice as selectors
from wallet.windows import Window, fixed_window

Kind = LedgerTransaction.Kind


def practice_grant_amount() -> int:
    """Practice chips granted on a player's first practice buy-in (default 10,000 XGC)."""
    return int(settings.WALLET_PRACTICE_GRANT)


def practice_top_up_seconds() -> int:
    """The length of a practice-chip top-up period: at most one top-up per player per
    period (default one hour, i.e. clock hours in UTC; WALLET_PRACTICE_TOP_UP_SECONDS)."""
    return max(1, int(settings.WALLET_PRACTICE_TOP_UP_SECONDS))


def practice_top_up_window(*, at: datetime) -> Window:
    """The top-up period containing ``at``: ``[k * seconds, (k + 1) * seconds)`` since the
    Unix epoch, UTC (wallet.windows.fixed_window)."""
    return fixed_window(at, seconds=practice_top_up_seconds())


# --- Ledger references ---------------------------------------------------------------------
def practice_grant_reference(*, player_id: Any) -> str:
    """The one-time grant's ledger reference: ``practice-grant:<player id>``."""
    return f"practice-grant:{player_id}"


def practice_top_up_reference(*, player_id: Any, period: Window) -> str:
    """A top-up's own reference when the caller gives none, one per period:
    ``practice-top-up:<player id>:<period start, e.g. 2026-03-04T12:00:00Z>``."""
    return f"practice-top-up:{player_id}:{period.start:%Y-%m-%dT%H:%M:%SZ}"


# --- The grant and the top-up -------------------------------------------------------------
def mint_key(*, player: Player) -> AccountKey:
    """The mint of a player's chips: the operator's XGC outside-world account, the player's
    shard (the grant, the top-up and a practice buy-in all use it)."""
    return house_key(
        operator_id=player.operator_id,
        kind=AccountKind.OUTSIDE,
        currency=PRACTICE_CURRENCY,
        shard=shard_for(player.pk),
    )


def practice_grant_if_first(
    *,
    player: Player,
    locked: dict[int, Account],
    mint: Account,
    wallet: Account,
    actor: Actor,
    now: datetime,
) -> None:
    """The one-time practice-chip grant, posted before a player's first practice buy-in
    (unless the player already got chips from a top-up asked for before ever playing).
    Part of the buy-in's posting: the mint and the wallet are already locked."""
    if selectors.practice_chips_ever_issued(player=player):
        return
    post_transfer(
        locked=locked,
        player=player,
        kind=Kind.PRACTICE_GRANT,
        reference=practice_grant_reference(player_id=player.pk),
        source=mint,
        target=wallet,
        amount=practice_grant_amount(),
        currency=PRACTICE_CURRENCY,
        actor=actor,
        now=now,
    )


@reference_guard
@transaction.atomic
def practice_chips_top_up(
    *, player: Player, actor: Actor, reference: str | None = None
) -> LedgerTransaction | None:
    """Top the player's practice-chip (XGC) wallet back up to ``practice_grant_amount()``.

    Posts exactly the difference from the operator's XGC outside-world account (the mint of
    the first-use grant) as a ``practice_top_up``; returns None, posting nothing, when the
    wallet already holds at least that much. Only the wallet counts: chips in a game's
    escrow are at stake, not in hand. At most one top-up per player per period
    (``practice_top_up_window``): another in the same period is ``practice-top-up-too-soon``.
    Refused for an inactive player. Never blocked by self-exclusion or limits (play money).

    ``reference``: the caller's unique reference; repeating it returns the first transaction.
    Without one the period's own ``practice-top-up:<player id>:<period start>`` is used, so
    the one-per-period rule is also the ledger's unique reference (a second call in the
    period, having no request of its own to replay, is ``practice-top-up-too-soon``).
    """
    if reference is not None:
        reference = check_reference(reference)

    def rules(locked: Locked) -> LedgerTransaction | None:
        mint, wallet = locked.resolved
        check_active(player)
        # ``locked.now`` is taken after the lock: concurrent top-ups see each other's postings
        target = practice_grant_amount()
        if wallet.balance >= target:
            return None
        period = practice_top_up_window(at=locked.now)
        earlier = selectors.practice_top_up_in(player=player, window=period)
        if earlier is not None:
            raise PracticeTopUpTooSoonProblem(
                f"the practice chips were topped up at {earlier.created_at.isoformat()}; the "
                f"next top-up is possible from {period.end.isoformat()}",
                transaction_id=earlier.pk,
                window_start=period.start.isoformat(),
                window_end=period.end.isoformat(),
                next_top_up_at=period.end.isoformat(),
            )
        amount = target - wallet.balance
        return post_transfer(
            locked=locked.accounts,
            player=player,
            kind=Kind.PRACTICE_TOP_UP,
            reference=reference or practice_top_up_reference(player_id=player.pk, period=period),
            source=mint,
            target=wallet,
            amount=amount,
            currency=PRACTICE_CURRENCY,
            actor=actor,
            now=locked.now,
            metadata={
                "target": target,
                "balance_before": wallet.balance,
                "window_start": period.start.isoformat(),
                "window_end": period.end.isoformat(),
            },
        )

    return posting_make(
        reference=reference,
        same={"kind": Kind.PRACTICE_TOP_UP, "player": player, "currency": PRACTICE_CURRENCY},
        keys=(
            mint_key(player=player),
            player_key(
                player_id=player.pk, operator_id=player.operator_id, currency=PRACTICE_CURRENCY
            ),
        ),
        rules=rules,
    )
