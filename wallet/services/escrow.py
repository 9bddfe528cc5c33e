"""The table cashier: buy-ins into a game's escrow, refunds out of it, and the settlement
that empties it (docs/wallet.md "table_buy_in", "table_refund", "escrow_settle").

``games`` calls ``table_buy_in`` and ``table_refund`` when a player sits down and leaves;
``settlement`` calls ``escrow_settle`` with the payout lines of a finished game (R10 in
docs/rules.md). One escrow account per game and currency. Conversion between the room's
currency and a player's wallet currency goes through the house FX accounts at the latest
rate (wallet.services.rates): a buy-in debits the wallet rounded up, a payout credits it
rounded down, a refund gives back exactly what the buy-ins took (their stored amounts).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone

from gin_platform import selectors as platform_selectors
from gin_platform.models import Operator, Player
from gin_platform.money import PRACTICE_CURRENCY, money_dict
from gin_platform.principals import Actor
from wallet import fx, network_selectors, posting_selectors, selectors
from wallet.amounts import parse_currency
from wallet.models import COMPONENT_LENGTH, Account, LedgerEntry, LedgerTransaction
from wallet.problems import (
    EscrowNotFoundProblem,
    EscrowOperatorMismatchProblem,
    EscrowSettledProblem,
    EscrowUnbalancedProblem,
    NothingToRefundProblem,
    PayoutInvalidProblem,
)
from wallet.services.network import (
    check_network_escrow,
    network_fee_share_bps,
    network_fee_split,
    position_key,
)
from wallet.services.posting import (
    MAX_AMOUNT,
    AccountKey,
    AccountKind,
    Kind,
    LedgerInvariantError,
    Locked,
    _check_active,
    _check_amount,
    _check_funds,
    _check_game_ref,
    _check_metadata,
    _check_reference,
    _escrow_key,
    _house_key,
    _Line,
    _money,
    _player_key,
    _post,
    _reference_guard,
    posting_make,
    posting_replay,
    shard_for,
)
from wallet.services.practice import mint_key, practice_grant_if_first
from wallet.services.rates import rate_quote
from wallet.services.responsible_gaming import check_loss_limits, check_not_self_excluded

COMPONENT_SHAPE = re.compile(rf"^[a-z][a-z0-9_]{{0,{COMPONENT_LENGTH - 1}}}$")
RESERVED_COMPONENTS = frozenset({"fee", "fx"})


@dataclass(frozen=True)
class EscrowPayout:
    """One line of a settlement: ``amount`` minor units of the escrow currency to ``player``,
    tagged with what it stands for (``points``, ``line_bonus``, ``stake``, ...). Lines may be
    negative as long as each player's total is >= 0."""

    player: Player
    amount: int
    component: str


# --- Buy-in ---------------------------------------------------------------------------------
@_reference_guard
@transaction.atomic
def table_buy_in(
    *,
    player: Player,
    game_ref: str,
    amount: int,
    currency: str,
    reference: str,
    actor: Actor,
    escrow_operator: Operator | None = None,
) -> LedgerTransaction:
    """Move ``amount`` minor units of ``currency`` (the room's) into game ``game_ref``'s escrow.

    ``escrow_operator`` owns the escrow (None: the player's operator). Only the network's
    operator may own the escrow of another operator's player: the stake then crosses from
    the player's operator's books to the network's through their network positions
    (wallet/services/network.py); the conversion, if any, is on the player's operator's
    books. The transaction's ``operator`` is the escrow's.

    - Real money from another wallet currency is converted through the house FX accounts at
      the latest rate, the wallet debited rounded UP (ROUND_CEILING); the rate is stored on
      the transaction (``fx``).
    - ``currency == "XGC"`` is play money from the player's practice-chip wallet, which is
      granted ``practice_grant_amount()`` chips on first use; never converted.
    - Refused (nothing posted): inactive player, insufficient funds; for real money also
      self-exclusion and a loss limit the buy-in could exceed (docs/wallet.md).
    """
    code = parse_currency(currency)
    _check_amount(amount)
    game_ref = _check_game_ref(game_ref)
    reference = _check_reference(reference)
    practice = code == PRACTICE_CURRENCY
    operator = player.operator
    escrow_owner = operator if escrow_operator is None else escrow_operator
    crosses = check_network_escrow(
        player_operator_id=operator.pk, escrow_operator_id=escrow_owner.pk
    )
    wallet_code = PRACTICE_CURRENCY if practice else player.wallet_currency
    converts = code != wallet_code
    shard = shard_for(player.pk)
    house = [
        _house_key(operator_id=operator.pk, kind=AccountKind.HOUSE_FX, currency=c, shard=shard)
        for c in ((code, wallet_code) if converts else ())
    ]
    if practice:  # the chip mint, for the first-use grant
        house.append(mint_key(player=player))
    positions = (
        (
            position_key(operator_id=operator.pk, currency=code, shard=shard),
            position_key(operator_id=escrow_owner.pk, currency=code, shard=shard_for(game_ref)),
        )
        if crosses
        else ()
    )

    def rules(locked: Locked) -> LedgerTransaction:
        *house_accounts, escrow, wallet = locked.resolved
        if crosses:
            *house_accounts, member_position, network_position = house_accounts
        now = locked.now
        _check_active(player)
        if not practice:
            check_not_self_excluded(player, now)
        quote = rate_quote(base=code, quote=wallet_code, at=now) if converts else None
        fx_room, fx_wallet = house_accounts[:2] if converts else (None, None)
        if selectors.escrow_is_settled(escrow=escrow):
            raise EscrowSettledProblem(f"the escrow of {game_ref} is already settled")
        if practice:
            practice_grant_if_first(
                player=player,
                locked=locked.accounts,
                mint=house_accounts[-1],
                wallet=wallet,
                actor=actor,
                now=now,
            )
        wallet_amount = (
            amount
            if quote is None
            else fx.convert_minor(
                amount, base=code, quote=wallet_code, rate=quote.rate, rounding=fx.PLAYER_PAYS
            )
        )
        if not practice:
            check_loss_limits(player=player, wallet=wallet, stake=wallet_amount, now=now)
        _check_funds(wallet, wallet_amount)  # after the grant, if any: the same locked row
        lines = [_Line(wallet, -wallet_amount, "stake", player.pk)]
        snapshots = []
        if quote is not None:
            lines += [
                _Line(fx_wallet, wallet_amount, "fx", player.pk),
                _Line(fx_room, -amount, "fx", player.pk),
            ]
            snapshots.append(
                quote.snapshot()
                | {
                    "player": str(player.pk),
                    "amount": amount,
                    "converted": wallet_amount,
                    "rounding": fx.PLAYER_PAYS,
                    "direction": f"{wallet_code}->{code}",
                }
            )
        if crosses:  # the player's operator's books -> the network's
            lines += [
                _Line(member_position, amount, "stake", player.pk),
                _Line(network_position, -amount, "stake", player.pk),
            ]
        lines.append(_Line(escrow, amount, "stake", player.pk))
        return _post(
            locked=locked.accounts,
            operator=escrow_owner,
            kind=Kind.BUY_IN,
            reference=reference,
            lines=lines,
            actor=actor,
            now=now,
            amount=amount,
            currency=code,
            player=player,
            game_ref=game_ref,
            escrow=escrow,
            fx_snapshots=snapshots,
        )

    return posting_make(
        reference=reference,
        same={
            "kind": Kind.BUY_IN,
            "player": player,
            "game_ref": game_ref,
            "amount": amount,
            "currency": code,
        },
        keys=(
            *house,
            *positions,
            _escrow_key(operator_id=escrow_owner.pk, game_ref=game_ref, currency=code),
            _player_key(player=player, currency=wallet_code),
        ),
        rules=rules,
    )


# --- Refund ---------------------------------------------------------------------------------
@_reference_guard
@transaction.atomic
def table_refund(
    *,
    player: Player,
    game_ref: str,
    currency: str,
    reference: str,
    actor: Actor,
    escrow_operator: Operator | None = None,
) -> LedgerTransaction:
    """Give the player back everything they have in the game's (unsettled) escrow.

    The refund undoes the player's buy-ins exactly: the same amounts on the same accounts,
    so a converted buy-in comes back at its stored rate and the wallet gets back precisely
    what it paid (no FX gain or loss, no rounding). Never blocked by self-exclusion or
    status. Refused: no escrow, escrow settled, nothing left to refund. A network escrow
    (``escrow_operator``: the network's operator) gives the stake back through the same
    network position lines as the buy-ins, reversed.
    """
    code = parse_currency(currency)
    game_ref = _check_game_ref(game_ref)
    reference = _check_reference(reference)
    same = {"kind": Kind.REFUND, "player": player, "game_ref": game_ref, "currency": code}
    # One read: the escrow, its operator and whether the reference is taken (a replay is
    # answered before any other check, as by ``posting_replay``).
    escrow = posting_selectors.escrow_with_replay(
        game_ref=game_ref, currency=code, reference=reference
    )
    replay = escrow is None or escrow.replayed
    if replay and (existing := posting_replay(reference=reference, same=same)) is not None:
        return existing
    if escrow is None:
        raise EscrowNotFoundProblem(f"no escrow for {game_ref} in {code}")
    expected_owner = player.operator_id if escrow_operator is None else escrow_operator.pk
    if escrow.operator_id != expected_owner:
        raise EscrowOperatorMismatchProblem(
            f"the escrow of {game_ref} belongs to another operator's game"
        )
    contributions = selectors.player_contribution_transactions(escrow=escrow, player=player)
    accounts = Account.objects.filter(
        pk__in=LedgerEntry.objects.filter(transaction__in=contributions).values("account_id")
    )

    def rules(locked: Locked) -> LedgerTransaction:
        if locked.reads.settled:
            raise EscrowSettledProblem(f"the escrow of {game_ref} is already settled")
        nets: dict[tuple[int, str], int] = defaultdict(int)
        entries = LedgerEntry.objects.filter(transaction__in=contributions).values_list(
            "account_id", "account__kind", "amount"
        )
        for account_id, kind, amount in entries:
            if account_id not in locked.accounts:  # pragma: no cover - same player and shard
                raise LedgerInvariantError(f"a buy-in into {game_ref} changed accounts under us")
            nets[(account_id, kind)] += amount
        in_escrow = nets.get((escrow.pk, AccountKind.ESCROW), 0)
        if in_escrow <= 0:
            raise NothingToRefundProblem(f"the player has nothing in the escrow of {game_ref}")
        component = {
            AccountKind.PLAYER: "refund",
            AccountKind.ESCROW: "refund",
            AccountKind.NETWORK_POSITION: "refund",
        }
        lines = [
            _Line(locked.accounts[account_id], -net, component.get(kind, "fx"), player.pk)
            for (account_id, kind), net in sorted(nets.items())
            if net
        ]
        if locked.accounts[escrow.pk].balance < in_escrow:  # pragma: no cover - CHECK guards
            raise LedgerInvariantError(f"the escrow of {game_ref} holds less than its buy-ins")
        return _post(
            locked=locked.accounts,
            operator=escrow.operator,
            kind=Kind.REFUND,
            reference=reference,
            lines=lines,
            actor=actor,
            now=locked.now,
            amount=in_escrow,
            currency=code,
            player=player,
            game_ref=game_ref,
            escrow=escrow,
        )

    return posting_make(
        reference=reference,
        same=same,
        accounts=list(accounts),
        rules=rules,
        reads=lambda _at: posting_selectors.escrow_posting_reads(
            escrow=escrow, reference=reference
        ),
    )


# --- Settlement -----------------------------------------------------------------------------
def _check_payouts(
    payouts: Sequence[EscrowPayout], fee: object
) -> tuple[dict[Any, Player], dict[Any, list[EscrowPayout]]]:
    if isinstance(fee, bool) or not isinstance(fee, int) or fee < 0:
        raise PayoutInvalidProblem("fee must be an integer >= 0 of minor units")
    players: dict[Any, Player] = {}
    lines: dict[Any, list[EscrowPayout]] = defaultdict(list)
    for line in payouts:
        if not isinstance(line, EscrowPayout) or not isinstance(line.player, Player):
            raise PayoutInvalidProblem("every payout is an EscrowPayout(player, amount, component)")
        if isinstance(line.amount, bool) or not isinstance(line.amount, int):
            raise PayoutInvalidProblem("payout amounts are integers of minor units")
        if abs(line.amount) > MAX_AMOUNT:
            raise PayoutInvalidProblem("a payout amount is larger than any posting allowed")
        if not isinstance(line.component, str) or not COMPONENT_SHAPE.match(line.component):
            raise PayoutInvalidProblem(
                f"component {line.component!r} is not a lower-case tag like 'line_bonus'"
            )
        if line.component in RESERVED_COMPONENTS:
            raise PayoutInvalidProblem(
                f"component {line.component!r} is reserved (the fee is the `fee` argument)"
            )
        players[line.player.pk] = line.player
        lines[line.player.pk].append(line)
    for player_id, player_lines in lines.items():
        total = sum(line.amount for line in player_lines)
        if total < 0:
            raise PayoutInvalidProblem(
                f"the payout lines of player {player_id} add up to {total}, below zero",
                player=str(player_id),
            )
    return players, lines


@_reference_guard
@transaction.atomic
def escrow_settle(
    *,
    game_ref: str,
    currency: str,
    reference: str,
    payouts: Sequence[EscrowPayout],
    fee: int,
    actor: Actor,
    metadata: dict | None = None,
) -> LedgerTransaction:
    """Empty the game's escrow: the payout lines to the players, the fee to the house.

    Each player's total is converted into their wallet currency at the latest rate through
    the house FX accounts, rounded DOWN (ROUND_FLOOR), the rate stored in ``fx`` and the FX
    legs tagged ``fx``; the escrow side keeps one entry per line and component. The payouts
    plus the fee must equal the escrow exactly (``escrow-unbalanced``); each payee must have
    bought in. Never blocked by self-exclusion, limits or status (the money is owed).
    """
    code = parse_currency(currency)
    game_ref = _check_game_ref(game_ref)
    reference = _check_reference(reference)
    meta = _check_metadata(metadata)
    payees, lines_by_player = _check_payouts(payouts, fee)
    total = sum(line.amount for line in payouts) + fee
    same = {"kind": Kind.SETTLEMENT, "game_ref": game_ref, "currency": code, "amount": total}
    # One read: the escrow, its operator and whether the reference is taken (a replay is
    # answered before any other check, as by ``posting_replay``).
    escrow = posting_selectors.escrow_with_replay(
        game_ref=game_ref, currency=code, reference=reference
    )
    replay = escrow is None or escrow.replayed
    if replay and (existing := posting_replay(reference=reference, same=same)) is not None:
        return existing
    if escrow is None:
        raise EscrowNotFoundProblem(f"no escrow for {game_ref} in {code}")
    strangers = set(payees) - selectors.escrow_participants(escrow=escrow)
    if strangers:
        raise PayoutInvalidProblem(
            f"{len(strangers)} payee(s) did not buy into {game_ref}",
            players=sorted(str(pk) for pk in strangers),
        )
    now = timezone.now()
    operator = escrow.operator
    practice = code == PRACTICE_CURRENCY
    wallet_codes = {pk: (code if practice else p.wallet_currency) for pk, p in payees.items()}
    quotes = {
        wallet_code: rate_quote(base=code, quote=wallet_code, at=now)
        for wallet_code in sorted(set(wallet_codes.values()))
        if wallet_code != code
    }
    # A network game (the escrow is the network's operator's): payees of other operators are
    # paid through the positions, and the fee is shared by contribution (network.py).
    network = platform_selectors.is_network_operator(operator.pk)
    split = None
    if network:
        split = network_fee_split(
            fee=fee,
            contributions=network_selectors.escrow_operator_contributions(escrow=escrow),
            fee_share_bps=network_fee_share_bps(),
        )
    shard = shard_for(game_ref)
    # Accounts: the fee's house shards follow the game, each payee's FX legs and position
    # their shard (on their own operator's books).
    keys: dict[Any, AccountKey] = {}
    if fee:
        keys["fee"] = _house_key(
            operator_id=operator.pk, kind=AccountKind.HOUSE_FEE, currency=code, shard=shard
        )
    if split is not None:
        keys["network_position"] = position_key(operator_id=operator.pk, currency=code, shard=shard)
        for operator_id in sorted(split.operators, key=str):
            if split.operators[operator_id] and operator_id != operator.pk:
                keys[("fee_share", operator_id)] = position_key(
                    operator_id=operator_id, currency=code, shard=shard
                )
                keys[("fee", operator_id)] = _house_key(
                    operator_id=operator_id,
                    kind=AccountKind.HOUSE_FEE,
                    currency=code,
                    shard=shard,
                )
    for pk in sorted(payees, key=str):
        payee_operator = payees[pk].operator_id
        if wallet_codes[pk] != code:
            for fx_code in (code, wallet_codes[pk]):
                keys[("fx", pk, fx_code)] = _house_key(
                    operator_id=payee_operator,
                    kind=AccountKind.HOUSE_FX,
                    currency=fx_code,
                    shard=shard_for(pk),
                )
        if payee_operator != operator.pk:
            check_network_escrow(player_operator_id=payee_operator, escrow_operator_id=operator.pk)
            keys[("position", pk)] = position_key(
                operator_id=payee_operator, currency=code, shard=shard_for(pk)
            )
            keys.setdefault(
                "network_position",
                position_key(operator_id=operator.pk, currency=code, shard=shard),
            )
    for pk in sorted(payees, key=str):
        keys[("wallet", pk)] = _player_key(player=payees[pk], currency=wallet_codes[pk])

    def rules(locked: Locked) -> LedgerTransaction:
        accounts = dict(zip(keys, locked.resolved, strict=True))
        if locked.reads.settled:
            raise EscrowSettledProblem(f"the escrow of {game_ref} is already settled")
        held = locked.accounts[escrow.pk].balance
        if held != total:
            raise EscrowUnbalancedProblem(
                f"the escrow of {game_ref} holds {money_dict(held, code)['amount']} {code}; "
                f"payouts plus fee are {money_dict(total, code)['amount']}",
                escrow=_money(held, code),
                payouts_and_fee=_money(total, code),
            )
        if (
            split is not None
            and split.contributions
            != network_selectors.escrow_operator_contributions(escrow=escrow)
        ):  # pragma: no cover - a buy-in or refund needs the escrow's lock, held here
            raise LedgerInvariantError(f"the contributions to {game_ref} changed under us")
        lines: list[_Line] = []
        snapshots = []
        for pk in sorted(lines_by_player, key=str):
            player_lines = lines_by_player[pk]
            lines += [_Line(escrow, -line.amount, line.component, pk) for line in player_lines]
            player_total = sum(line.amount for line in player_lines)
            if player_total == 0:
                continue
            if ("position", pk) in keys:  # the network's books -> the payee's operator's
                lines += [
                    _Line(accounts["network_position"], player_total, "payout", pk),
                    _Line(accounts[("position", pk)], -player_total, "payout", pk),
                ]
            wallet = accounts[("wallet", pk)]
            wallet_code = wallet_codes[pk]
            if wallet_code == code:
                lines.append(_Line(wallet, player_total, "payout", pk))
                continue
            quote = quotes[wallet_code]
            credited = fx.convert_minor(
                player_total, base=code, quote=wallet_code, rate=quote.rate, rounding=fx.HOUSE_PAYS
            )
            lines += [
                _Line(accounts[("fx", pk, code)], player_total, "fx", pk),
                _Line(accounts[("fx", pk, wallet_code)], -credited, "fx", pk),
                _Line(wallet, credited, "payout", pk),
            ]
            snapshots.append(
                quote.snapshot()
                | {
                    "player": str(pk),
                    "amount": player_total,
                    "converted": credited,
                    "rounding": fx.HOUSE_PAYS,
                    "direction": f"{code}->{wallet_code}",
                }
            )
        if fee:
            kept = fee if split is None else split.network
            lines += [_Line(escrow, -fee, "fee"), _Line(accounts["fee"], kept, "fee")]
        extra: dict[str, Any] = {"fee": fee}
        if split is not None:
            extra["network"] = split.metadata()
            for operator_id in sorted(split.operators, key=str):
                share = split.operators[operator_id]
                if not share:
                    continue
                if operator_id == operator.pk:  # pragma: no cover - no player of the network
                    lines.append(_Line(accounts["fee"], share, "fee"))
                    continue
                lines += [
                    _Line(accounts["network_position"], share, "fee_share"),
                    _Line(accounts[("fee_share", operator_id)], -share, "fee_share"),
                    _Line(accounts[("fee", operator_id)], share, "fee"),
                ]
        return _post(
            locked=locked.accounts,
            operator=operator,
            kind=Kind.SETTLEMENT,
            reference=reference,
            lines=lines,
            actor=actor,
            now=now,
            amount=total,
            currency=code,
            game_ref=game_ref,
            escrow=escrow,
            fx_snapshots=snapshots,
            metadata=meta | extra,
        )

    # ``now`` is the settlement's time, used for its rates before the locks are taken.
    return posting_make(
        reference=reference,
        same=same,
        keys=tuple(keys.values()),
        accounts=[escrow],
        rules=rules,
        now=now,
        reads=lambda _at: posting_selectors.escrow_posting_reads(
            escrow=escrow, reference=reference
        ),
    )
