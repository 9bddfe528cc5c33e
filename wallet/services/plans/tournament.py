"""The plans of a tournament's money (R14; wallet/services/tournament.py). A tournament's
entries sit in an ordinary escrow (its ``game_ref`` the tournament's): cash entries are
``table_buy_in``'s, entries paid with a ticket are planned here, and so is everything that
leaves it while the tournament pays out in parts.

- prizes (``prizes_plan``): a round's places out of the escrow, each into the player's
  wallet exactly as a settlement pays (``settlement_plan`` without a fee: converted at the
  latest rate, rounded down, through the payee's operator's FX accounts; across the
  network positions for a network tournament's payee of another operator), or into the
  player's ticket to another tournament (a satellite's prize: same currency);
- the entry fees (``fee_plan``): out of the escrow into the house fee, a network
  tournament's shared by contribution exactly as a network game's (``fee_accounts``,
  ``fee_lines`` of the settlement plan);
- the overlay (``overlay_plan``): the operator's promotion account into the escrow (a
  guarantee's top-up, or a freeroll's whole prize pool), and its return
  (``overlay_return_plan``: the overlays' lines negated account by account);
- tickets: granted from the operator's promotion account (``ticket_grant_plan``), entered
  into the escrow (``ticket_entry_plan``, across the positions into a network tournament,
  like a buy-in's stake), refunded by ``refund_plan`` (wallet/services/plans/escrow.py)
  and expired back to the promotion account (``ticket_expiry_plan``).

Every plan's lines sum to zero per currency and within each operator's books.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from wallet.ledger.keys import AccountKey, AccountKind, escrow_key, house_key, shard_for, ticket_key
from wallet.ledger.lines import Line, transfer_lines
from wallet.problems import EscrowOperatorMismatchProblem, NothingToRefundProblem
from wallet.services.plans.conversion import Quote
from wallet.services.plans.escrow import RefundPlan
from wallet.services.plans.escrow_settle import Payee, fee_accounts, fee_lines, settlement_plan
from wallet.services.plans.network import FeeSplit, crossing_lines, position_key


def promotion_key(*, operator_id: Any, currency: str, shard: int) -> AccountKey:
    """The operator's promotion account in ``currency`` (shard ``shard``)."""
    return house_key(
        operator_id=operator_id, kind=AccountKind.PROMOTION, currency=currency, shard=shard
    )


@dataclass(frozen=True)
class TournamentPlan:
    """A tournament posting: the keys of its accounts (in the order it resolves them; the
    escrow's among them only when the posting may be the first money in it), its lines and
    what it moves (``amount``: its headline), the escrow's key (None: a ticket's own
    posting), its rate snapshots and what its metadata records."""

    keys: tuple[AccountKey, ...]
    lines: list[Line[AccountKey]]
    amount: int
    escrow: AccountKey | None = None
    fx_snapshots: list[dict[str, Any]] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class PrizeLine:
    """A cash prize as the settlement plan takes a payout line: minor units of the escrow's
    currency, tagged ``prize`` on the escrow's side."""

    amount: int
    component: str = "prize"


# --- Prizes -----------------------------------------------------------------------------------
def prizes_plan(
    *,
    game_ref: str,
    currency: str,
    escrow_operator_id: Any,
    network: bool,
    payees: Mapping[Any, Payee],
    cash: Mapping[Any, int],
    tickets: Mapping[tuple[Any, str], int],
    quotes: Mapping[str, Quote],
) -> TournamentPlan:
    """Pay ``cash`` (player id -> minor units, each > 0) into the payees' wallets and
    ``tickets`` ((player id, target tournament's game_ref) -> minor units, each > 0) into
    their tickets, out of the escrow of ``game_ref``. ``network``: the escrow is the
    network's operator's, so a payee of another operator is paid across the positions;
    otherwise every payee must be of the escrow's operator (``escrow-operator-mismatch``).
    ``quotes``: the rate into each wallet currency other than the escrow's."""
    paid = settlement_plan(
        game_ref=game_ref,
        currency=currency,
        escrow_operator_id=escrow_operator_id,
        payees={pk: payees[pk] for pk in cash},
        lines_by_player={pk: [PrizeLine(amount)] for pk, amount in cash.items()},
        fee=0,
        split=None,
        quotes=quotes,
        network=network,
    )
    keys = dict.fromkeys(paid.keys)  # an ordered set: a position may serve both parts
    lines = list(paid.lines)
    network_position = position_key(
        operator_id=escrow_operator_id, currency=currency, shard=shard_for(game_ref)
    )
    for (pk, target), amount in sorted(
        tickets.items(), key=lambda item: (str(item[0][0]), item[0][1])
    ):
        payee = payees[pk]
        lines.append(Line(paid.escrow, -amount, "prize", pk))
        if payee.operator_id != escrow_operator_id:
            if not network:
                raise EscrowOperatorMismatchProblem(
                    "the escrow belongs to another operator, not the network's"
                )
            member_position = position_key(
                operator_id=payee.operator_id, currency=currency, shard=shard_for(pk)
            )
            keys |= dict.fromkeys((network_position, member_position))
            lines += crossing_lines(
                out_of=network_position,
                into=member_position,
                amount=amount,
                component="payout",
                player_id=pk,
            )
        ticket = ticket_key(
            player_id=pk, operator_id=payee.operator_id, game_ref=target, currency=currency
        )
        keys[ticket] = None
        lines.append(Line(ticket, amount, "ticket", pk))
    return TournamentPlan(
        keys=tuple(keys),
        lines=lines,
        amount=sum(cash.values()) + sum(tickets.values()),
        escrow=paid.escrow,
        fx_snapshots=paid.fx_snapshots,
    )


# --- Entry fees -------------------------------------------------------------------------------
def fee_plan(
    *, game_ref: str, currency: str, escrow_operator_id: Any, fee: int, split: FeeSplit | None
) -> TournamentPlan:
    """``fee`` out of the escrow of ``game_ref`` into the house fee, on the game's shard; a
    network tournament's ``split`` shares it among the operators by their players'
    contributions, as a network game's fee is (``fee_lines``)."""
    accounts = fee_accounts(
        currency=currency,
        escrow_operator_id=escrow_operator_id,
        shard=shard_for(game_ref),
        fee=fee,
        split=split,
    )
    escrow = escrow_key(operator_id=escrow_operator_id, game_ref=game_ref, currency=currency)
    metadata: dict[str, Any] = {"fee": fee}
    if split is not None:
        metadata["network"] = split.metadata()
    return TournamentPlan(
        keys=tuple(accounts.values()),
        lines=fee_lines(
            escrow_operator_id=escrow_operator_id,
            escrow=escrow,
            accounts=accounts,
            fee=fee,
            split=split,
        ),
        amount=fee,
        escrow=escrow,
        metadata=metadata,
    )


# --- Overlay ----------------------------------------------------------------------------------
def overlay_plan(
    *,
    game_ref: str,
    currency: str,
    amount: int,
    sponsor_id: Any,
    escrow_operator_id: Any,
    crosses: bool,
) -> TournamentPlan:
    """``amount`` from the promotion account of operator ``sponsor_id`` (the game's shard)
    into the escrow of ``game_ref`` (owned by ``escrow_operator_id``; created if this is
    the first money in it, a freeroll's). ``crosses``: the escrow is the network's and the
    sponsor a member operator: the money crosses through their positions."""
    shard = shard_for(game_ref)
    promotion = promotion_key(operator_id=sponsor_id, currency=currency, shard=shard)
    escrow = escrow_key(operator_id=escrow_operator_id, game_ref=game_ref, currency=currency)
    keys = [promotion]
    lines = [Line(promotion, -amount, "overlay")]
    if crosses:
        member = position_key(operator_id=sponsor_id, currency=currency, shard=shard)
        network = position_key(operator_id=escrow_operator_id, currency=currency, shard=shard)
        keys += [member, network]
        lines += crossing_lines(out_of=member, into=network, amount=amount, component="overlay")
    lines.append(Line(escrow, amount, "overlay"))
    return TournamentPlan(keys=(*keys, escrow), escrow=escrow, lines=lines, amount=amount)


def overlay_return_plan(
    *, entries: Iterable[tuple[int, int]], escrow_id: int, game_ref: str
) -> RefundPlan:
    """Give back what an operator's overlays put into the escrow ``escrow_id``:
    ``entries`` (account id, amount) are the lines of those overlays and of the returns and
    reversals since; each account's net comes back negated (component ``overlay_return``),
    so the same promotion account and positions are used whatever the shards are now.
    Nothing of them left in the escrow is ``nothing-to-refund``."""
    nets: dict[int, int] = defaultdict(int)
    for account_id, amount in entries:
        nets[account_id] += amount
    in_escrow = nets.get(escrow_id, 0)
    if in_escrow <= 0:
        raise NothingToRefundProblem(f"no overlay is left in the escrow of {game_ref}")
    return RefundPlan(
        amount=in_escrow,
        lines=[
            Line(account_id, -net, "overlay_return")
            for account_id, net in sorted(nets.items())
            if net
        ],
    )


# --- Tickets ----------------------------------------------------------------------------------
def ticket_grant_plan(
    *, player_id: Any, operator_id: Any, game_ref: str, currency: str, amount: int
) -> TournamentPlan:
    """A ticket worth ``amount`` to the tournament ``game_ref`` granted to the player of
    ``operator_id``: from the operator's promotion account (the player's shard) into the
    player's ticket. No escrow moves."""
    promotion = promotion_key(
        operator_id=operator_id, currency=currency, shard=shard_for(player_id)
    )
    ticket = ticket_key(
        player_id=player_id, operator_id=operator_id, game_ref=game_ref, currency=currency
    )
    return TournamentPlan(
        keys=(promotion, ticket),
        lines=transfer_lines(
            source=promotion,
            target=ticket,
            amount=amount,
            component="ticket_grant",
            player_id=player_id,
        ),
        amount=amount,
    )


def ticket_entry_plan(
    *,
    player_id: Any,
    operator_id: Any,
    escrow_operator_id: Any,
    game_ref: str,
    currency: str,
    amount: int,
    crosses: bool,
) -> TournamentPlan:
    """An entry worth ``amount`` paid with the player's ticket to ``game_ref``: the ticket
    (on the player's operator's books) into the escrow (``escrow_operator_id``'s), across
    the positions when the escrow is the network's (``crosses``: the player's position on
    their shard, the network's on the game's, as a buy-in's stake crosses)."""
    ticket = ticket_key(
        player_id=player_id, operator_id=operator_id, game_ref=game_ref, currency=currency
    )
    escrow = escrow_key(operator_id=escrow_operator_id, game_ref=game_ref, currency=currency)
    keys = [ticket]
    lines = [Line(ticket, -amount, "ticket", player_id)]
    if crosses:
        member = position_key(
            operator_id=operator_id, currency=currency, shard=shard_for(player_id)
        )
        network = position_key(
            operator_id=escrow_operator_id, currency=currency, shard=shard_for(game_ref)
        )
        keys += [member, network]
        lines += crossing_lines(
            out_of=member, into=network, amount=amount, component="stake", player_id=player_id
        )
    lines.append(Line(escrow, amount, "stake", player_id))
    return TournamentPlan(keys=(*keys, escrow), escrow=escrow, lines=lines, amount=amount)


def ticket_expiry_plan(
    *, player_id: Any, operator_id: Any, game_ref: str, currency: str, amount: int
) -> TournamentPlan:
    """``amount`` of the player's unused ticket to ``game_ref`` back to their operator's
    promotion account (the player's shard, as the grant): the promotion it cost is undone."""
    ticket = ticket_key(
        player_id=player_id, operator_id=operator_id, game_ref=game_ref, currency=currency
    )
    promotion = promotion_key(
        operator_id=operator_id, currency=currency, shard=shard_for(player_id)
    )
    return TournamentPlan(
        keys=(promotion, ticket),
        lines=transfer_lines(
            source=ticket,
            target=promotion,
            amount=amount,
            component="ticket_expiry",
            player_id=player_id,
        ),
        amount=amount,
    )
