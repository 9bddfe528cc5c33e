"""The table cashier: buy-ins into a game's escrow and refunds out of it (docs/wallet.md
"table_buy_in", "table_refund"); the settlement that empties it is escrow_settle.py.

``games`` calls ``table_buy_in`` and ``table_refund`` when a player sits down and leaves.
One escrow account per game and currency. Conversion between the room's
currency and a player's wallet currency goes through the house FX accounts at the latest
rate (wallet.services.rates): a buy-in debits the wallet rounded up, a payout credits it
rounded down, a refund gives back exactly what the buy-ins took (their stored amounts).
"""

from __future__ import annotations

from collections import defaultdict

from django.db import transaction

from gin_platform.models import Operator, Player
from gin_platform.money import PRACTICE_CURRENCY
from gin_platform.tenancy.principals import Actor
from wallet import fx, posting_selectors, selectors
from wallet.amounts import parse_currency
from wallet.models import Account, LedgerEntry, LedgerTransaction
from wallet.problems import (
    EscrowNotFoundProblem,
    EscrowOperatorMismatchProblem,
    EscrowSettledProblem,
    NothingToRefundProblem,
)
from wallet.services.network import (
    check_network_escrow,
    position_key,
)
from wallet.services.posting import (
    AccountKind,
    Kind,
    LedgerInvariantError,
    Locked,
    _check_active,
    _check_amount,
    _check_funds,
    _check_game_ref,
    _check_reference,
    _escrow_key,
    _house_key,
    _Line,
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
        refunded = _post(
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
        refunded.seamless_by_operator = locked.reads.seamless_by_operator([player.operator_id])
        return refunded

    return posting_make(
        reference=reference,
        same=same,
        accounts=list(accounts),
        rules=rules,
        reads=lambda _at: posting_selectors.escrow_posting_reads(
            escrow=escrow, reference=reference, operator_ids=[player.operator_id]
        ),
    )
