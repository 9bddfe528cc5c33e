"""The input checks every posting shares: each bad input is its own problem type
(wallet.problems), raised before anything is locked or posted."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext

from gin_platform.i18n.formatting import money_text
from gin_platform.models import Player
from gin_platform.money import money_dict
from wallet.models import GAME_REF_LENGTH, REFERENCE_LENGTH, Account
from wallet.problems import (
    AmountInvalidProblem,
    AmountNotPositiveProblem,
    GameRefInvalidProblem,
    InsufficientFundsProblem,
    PlayerInactiveProblem,
    ReferenceInvalidProblem,
)

MAX_AMOUNT = 10**15  # minor units; far above any real posting, far below BIGINT overflow


def check_amount(amount: object, *, field: str = "amount") -> int:
    """``amount`` as a posting's amount: an integer of minor units (never a bool or a
    float), above zero and at most ``MAX_AMOUNT`` (``amount-invalid``,
    ``amount-not-positive``, naming ``field``)."""
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise AmountInvalidProblem(f"{field} must be an integer of minor units", field=field)
    if amount <= 0:
        raise AmountNotPositiveProblem(f"{field} must be greater than zero", field=field)
    if amount > MAX_AMOUNT:
        raise AmountInvalidProblem(f"{field} is larger than any posting allowed", field=field)
    return amount


def check_reference(reference: object) -> str:
    """``reference`` as a ledger reference: a non-blank string of at most
    ``REFERENCE_LENGTH`` characters (``reference-invalid``)."""
    if not isinstance(reference, str) or not reference.strip():
        raise ReferenceInvalidProblem("reference must be a non-empty string")
    if len(reference) > REFERENCE_LENGTH:
        raise ReferenceInvalidProblem(f"reference is longer than {REFERENCE_LENGTH} characters")
    return reference


def check_game_ref(game_ref: object) -> str:
    """``game_ref`` as the game an escrow belongs to: a non-blank string of at most
    ``GAME_REF_LENGTH`` characters (``game-ref-invalid``)."""
    if not isinstance(game_ref, str) or not game_ref.strip() or len(game_ref) > GAME_REF_LENGTH:
        raise GameRefInvalidProblem(
            f"game_ref must be a non-empty string of at most {GAME_REF_LENGTH} characters"
        )
    return game_ref


def check_metadata(metadata: Mapping[str, Any] | None) -> dict[str, Any]:
    """A posting's metadata as a new dict (None: empty); anything but a mapping is a bug of
    the caller (``TypeError``)."""
    if metadata is None:
        return {}
    if not isinstance(metadata, Mapping):
        raise TypeError("metadata must be a mapping")
    return dict(metadata)


def check_active(player: Player) -> None:
    """Refuse a player who is not active (``player-inactive``, naming the status)."""
    if not player.is_active:
        raise PlayerInactiveProblem(f"the player is {player.status}")


def check_funds(account: Account, needed: int) -> None:
    """Refuse a posting that takes more than ``account`` (a locked row) holds
    (``insufficient-funds``, with what is ``available`` and what is ``needed``)."""
    if account.balance < needed:
        raise InsufficientFundsProblem(
            gettext("There is not enough money: %(available)s available, %(needed)s needed.")
            % {
                "available": money_text(account.balance, account.currency),
                "needed": money_text(needed, account.currency),
            },
            available=money_dict(account.balance, account.currency),
            needed=money_dict(needed, account.currency),
        )
