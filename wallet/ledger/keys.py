"""Which account a posting needs, named before it exists or is locked (pure: no database).

An ``AccountKey`` says which account: a player's wallet (per currency), a game's escrow
(per currency), a player's ticket to a tournament (per currency), or a house account of an
operator (kind, currency and shard: the promotion account is one). Hot house
accounts are sharded: a player's postings use the shard of the player's id, a game's fee
the shard of the game (``shard_for``), so that concurrent postings rarely queue on one row
(docs/wallet.md "Ledger").
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from wallet.models import Account

AccountKind = Account.Kind


def house_shards() -> int:
    """How many shards each house account is split into (WALLET_HOUSE_SHARDS, default 8)."""
    return max(1, int(settings.WALLET_HOUSE_SHARDS))


def shard_for(value: object) -> int:
    """The house shard a player's (or a game's) postings use: a stable hash of its id."""
    return zlib.crc32(str(value).encode()) % house_shards()


@dataclass(frozen=True)
class AccountKey:
    """Which account a posting needs (found or created by
    ``wallet.ledger.accounts.resolve_and_lock``); a plan's lines name their accounts by it.
    ``operator_id``: whose books the account is in."""

    kind: str
    currency: str
    operator_id: Any
    player_id: Any = None
    game_ref: str | None = None
    shard: int = 0

    @property
    def identity(self) -> tuple[Any, ...]:
        """What makes the account unique (the database's unique indexes): a wallet by its
        player, an escrow by its game, a house account by operator and shard."""
        if self.kind == AccountKind.PLAYER:
            return (self.kind, self.currency, str(self.player_id))
        if self.kind == AccountKind.ESCROW:
            return (self.kind, self.currency, self.game_ref)
        if self.kind == AccountKind.TICKET:
            return (self.kind, self.currency, str(self.player_id), self.game_ref)
        return (self.kind, self.currency, str(self.operator_id), self.shard)

    def lookup(self) -> dict[str, Any]:
        """The field values that find the account (``Account.objects.filter(**lookup)``)."""
        if self.kind == AccountKind.PLAYER:
            return {"kind": self.kind, "currency": self.currency, "player_id": self.player_id}
        if self.kind == AccountKind.ESCROW:
            # ``player_id IS NULL``: what the escrow's partial unique index says (a ticket to
            # the tournament shares its game_ref), so that the lookup can use it.
            return {
                "kind": self.kind,
                "currency": self.currency,
                "game_ref": self.game_ref,
                "player_id": None,
            }
        if self.kind == AccountKind.TICKET:
            return {
                "kind": self.kind,
                "currency": self.currency,
                "player_id": self.player_id,
                "game_ref": self.game_ref,
            }
        return {
            "kind": self.kind,
            "currency": self.currency,
            "operator_id": self.operator_id,
            "shard": self.shard,
        }


def house_key(*, operator_id: Any, kind: str, currency: str, shard: int) -> AccountKey:
    """A house account of ``operator_id``: its outside world, FX, fee, operator-wallet
    mirror or network position account in ``currency``, shard ``shard``."""
    return AccountKey(kind=kind, currency=currency, operator_id=operator_id, shard=shard)


def player_key(*, player_id: Any, operator_id: Any, currency: str) -> AccountKey:
    """The wallet of player ``player_id`` (of operator ``operator_id``) in ``currency``."""
    return AccountKey(
        kind=AccountKind.PLAYER, currency=currency, operator_id=operator_id, player_id=player_id
    )


def escrow_key(*, operator_id: Any, game_ref: str, currency: str) -> AccountKey:
    """The escrow of game ``game_ref`` in ``currency``, owned by ``operator_id``."""
    return AccountKey(
        kind=AccountKind.ESCROW, currency=currency, operator_id=operator_id, game_ref=game_ref
    )


def ticket_key(*, player_id: Any, operator_id: Any, game_ref: str, currency: str) -> AccountKey:
    """Player ``player_id``'s ticket (on the books of ``operator_id``, their operator) to the
    tournament ``game_ref``, in ``currency``."""
    return AccountKey(
        kind=AccountKind.TICKET,
        currency=currency,
        operator_id=operator_id,
        player_id=player_id,
        game_ref=game_ref,
    )
