"""The plans of the table cashier (wallet/services/escrow.py): a buy-in into a game's
escrow, a refund out of it, and a void (every player's refund at once).

A buy-in: the wallet pays the stake (converted through the house FX accounts when the
wallet is in another currency than the room, rounded up), a network escrow's stake crosses
from the player's operator's books into the network's through their positions, and the
escrow receives the stake. A refund negates the net of the player's buy-ins (and earlier
refunds) account by account: a converted buy-in comes back at its stored rate, exactly. A
void (R13: an interrupted game) is each player's refund, in one transaction.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from wallet.ledger.keys import (
    AccountKey,
    AccountKind,
    escrow_key,
    house_key,
    player_key,
    shard_for,
)
from wallet.ledger.lines import Line
from wallet.problems import NothingToRefundProblem, NothingToVoidProblem
from wallet.services.plans.conversion import Quote, stake_conversion
from wallet.services.plans.network import crossing_lines, position_key


# --- Buy-in -------------------------------------------------------------------------------
@dataclass(frozen=True)
class BuyInAccounts:
    """The accounts of a buy-in: the escrow and the wallet, the house FX accounts of the
    room's and the wallet's currency (a conversion), the chip mint (practice chips: the
    first-use grant) and the two network positions (an escrow of the network's operator)."""

    escrow: AccountKey
    wallet: AccountKey
    fx_room: AccountKey | None = None
    fx_wallet: AccountKey | None = None
    mint: AccountKey | None = None
    member_position: AccountKey | None = None
    network_position: AccountKey | None = None

    @property
    def keys(self) -> tuple[AccountKey, ...]:
        """In the order the buy-in resolves them: house accounts, positions, escrow, wallet."""
        optional = (
            self.fx_room,
            self.fx_wallet,
            self.mint,
            self.member_position,
            self.network_position,
        )
        return (*(key for key in optional if key is not None), self.escrow, self.wallet)


def buy_in_accounts(
    *,
    player_id: Any,
    player_operator_id: Any,
    escrow_operator_id: Any,
    game_ref: str,
    currency: str,
    wallet_currency: str,
    crosses: bool,
    mint: AccountKey | None = None,
) -> BuyInAccounts:
    """The accounts a buy-in of ``currency`` (the room's) from a wallet in
    ``wallet_currency`` needs. The FX legs and the player's position are on the player's
    operator's books, the player's shard; the network's position the game's shard.
    ``crosses``: the escrow is the network's, the player another operator's."""
    shard = shard_for(player_id)
    fx_room = fx_wallet = member_position = network_position = None
    if currency != wallet_currency:
        fx_room, fx_wallet = (
            house_key(
                operator_id=player_operator_id, kind=AccountKind.HOUSE_FX, currency=c, shard=shard
            )
            for c in (currency, wallet_currency)
        )
    if crosses:
        member_position = position_key(
            operator_id=player_operator_id, currency=currency, shard=shard
        )
        network_position = position_key(
            operator_id=escrow_operator_id, currency=currency, shard=shard_for(game_ref)
        )
    return BuyInAccounts(
        escrow=escrow_key(operator_id=escrow_operator_id, game_ref=game_ref, currency=currency),
        wallet=player_key(
            player_id=player_id, operator_id=player_operator_id, currency=wallet_currency
        ),
        fx_room=fx_room,
        fx_wallet=fx_wallet,
        mint=mint,
        member_position=member_position,
        network_position=network_position,
    )


@dataclass(frozen=True)
class BuyInPlan:
    """A buy-in's lines, what the wallet pays (``paid``, in its own currency: the funds and
    loss-limit checks count it) and the rate snapshot of a conversion."""

    paid: int
    lines: list[Line[AccountKey]]
    fx_snapshots: list[dict[str, Any]] = field(default_factory=list)


def buy_in_plan(
    *,
    accounts: BuyInAccounts,
    amount: int,
    currency: str,
    wallet_currency: str,
    quote: Quote | None,
    player_id: Any,
) -> BuyInPlan:
    """A stake of ``amount`` minor units of ``currency`` (the room's) into the escrow:
    from the wallet (through the house FX accounts at ``quote``, rounded up, when the
    wallet is in another currency), across the network positions for a network escrow."""
    conversion = None
    if quote is not None:
        if accounts.fx_room is None or accounts.fx_wallet is None:
            raise ValueError("a converted buy-in needs the house FX accounts")
        conversion = stake_conversion(
            amount=amount,
            room_currency=currency,
            wallet_currency=wallet_currency,
            quote=quote,
            fx_room=accounts.fx_room,
            fx_wallet=accounts.fx_wallet,
            player_id=player_id,
        )
    paid = amount if conversion is None else conversion.converted
    lines = [Line(accounts.wallet, -paid, "stake", player_id)]
    snapshots = []
    if conversion is not None:
        lines += conversion.lines
        snapshots.append(conversion.snapshot)
    if accounts.member_position is not None and accounts.network_position is not None:
        # the player's operator's books -> the network's
        lines += crossing_lines(
            out_of=accounts.member_position,
            into=accounts.network_position,
            amount=amount,
            component="stake",
            player_id=player_id,
        )
    lines.append(Line(accounts.escrow, amount, "stake", player_id))
    return BuyInPlan(paid=paid, lines=lines, fx_snapshots=snapshots)


# --- Refund -------------------------------------------------------------------------------
# The component of each refund line by the kind of its account; any other (house FX): "fx".
REFUND_COMPONENTS: dict[str, str] = {
    AccountKind.PLAYER: "refund",
    AccountKind.ESCROW: "refund",
    AccountKind.NETWORK_POSITION: "refund",
    AccountKind.TICKET: "refund",  # an entry paid with a ticket (R14): back to the ticket
}


@dataclass(frozen=True)
class RefundPlan:
    """A refund's lines, on the account ids of the buy-ins it undoes, and what leaves the
    escrow (``amount``)."""

    amount: int
    lines: list[Line[int]]


def refund_plan(
    *,
    contributions: Iterable[tuple[int, str, int]],
    escrow_id: int,
    player_id: Any,
    game_ref: str,
) -> RefundPlan:
    """Undo the player's buy-ins into the escrow ``escrow_id``: ``contributions`` are the
    entries (account id, account kind, amount) of those buy-ins and of the refunds and
    reversals since; each account's net comes back negated (the escrow's the refund's
    amount). Nothing left in the escrow is ``nothing-to-refund``."""
    nets: dict[tuple[int, str], int] = defaultdict(int)
    for account_id, kind, amount in contributions:
        nets[(account_id, kind)] += amount
    in_escrow = nets.get((escrow_id, AccountKind.ESCROW), 0)
    if in_escrow <= 0:
        raise NothingToRefundProblem(f"the player has nothing in the escrow of {game_ref}")
    return RefundPlan(
        amount=in_escrow,
        lines=[
            Line(account_id, -net, REFUND_COMPONENTS.get(kind, "fx"), player_id)
            for (account_id, kind), net in sorted(nets.items())
            if net
        ],
    )


# --- Void ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class VoidPlan:
    """A void's lines, on the account ids of the buy-ins it undoes; what leaves the escrow
    (``amount``: every stake) and what each player gets back out of it (``refunds``: player
    id -> minor units of the escrow's currency; only players who had something in it)."""

    amount: int
    refunds: dict[Any, int]
    lines: list[Line[int]]


def void_plan(
    *,
    contributions: Mapping[Any, Iterable[tuple[int, str, int]]],
    escrow_id: int,
    game_ref: str,
) -> VoidPlan:
    """Every player's refund at once (R13: an interrupted game is voided): for each player
    (``contributions``: player id -> the entries of their buy-ins, refunds, voids and
    reversals of them, as ``refund_plan`` takes them), their ``refund_plan``; players with
    nothing left in the escrow are left out. Nobody with anything in the escrow is
    ``nothing-to-void``."""
    refunds: dict[Any, int] = {}
    lines: list[Line[int]] = []
    for player_id, entries in sorted(contributions.items(), key=lambda item: str(item[0])):
        try:
            refund = refund_plan(
                contributions=entries, escrow_id=escrow_id, player_id=player_id, game_ref=game_ref
            )
        except NothingToRefundProblem:
            continue
        refunds[player_id] = refund.amount
        lines += refund.lines
    if not refunds:
        raise NothingToVoidProblem(f"no player has anything in the escrow of {game_ref}")
    return VoidPlan(amount=sum(refunds.values()), refunds=refunds, lines=lines)
