"""The table cashier: buy-ins into a game's escrow and refunds out of it, and the void that
gives every stake back at once (docs/wallet.md "table_buy_in", "table_refund",
"escrow_void"); the settlement that empties it is escrow_settle.py.

``games`` calls ``table_buy_in`` and ``table_refund`` when a player sits down and leaves,
and ``escrow_void`` when an interruption voids the game (R13).
One escrow account per game and currency. Conversion between the room's
currency and a player's wallet currency goes through the house FX accounts at the latest
rate (wallet.services.rates): a buy-in debits the wallet rounded up, a payout credits it
rounded down, a refund gives back exactly what the buy-ins took (their stored amounts).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection
from typing import Any

from django.db import transaction

from gin_platform.models import Operator, Player
from gin_platform.money import PRACTICE_CURRENCY
from gin_platform.tenancy.principals import Actor
from wallet.amounts import parse_currency
from wallet.ledger.checks import (
    check_active,
    check_amount,
    check_funds,
    check_game_ref,
    check_reference,
)
from wallet.ledger.lines import lines_on
from wallet.ledger.post import LedgerInvariantError, post
from wallet.ledger.replay import posting_replay, reference_guard
from wallet.ledger.skeleton import Locked, posting_make
from wallet.models import Account, LedgerEntry, LedgerTransaction
from wallet.problems import (
    EscrowNotFoundProblem,
    EscrowOperatorMismatchProblem,
    EscrowSettledProblem,
)
from wallet.selectors import balances as selectors
from wallet.selectors import postings as posting_selectors
from wallet.services.network import check_network_escrow
from wallet.services.plans.escrow import (
    RefundPlan,
    VoidPlan,
    buy_in_accounts,
    buy_in_plan,
    refund_plan,
    void_plan,
)
from wallet.services.practice import mint_key, practice_grant_if_first
from wallet.services.rates import rate_quote
from wallet.services.responsible_gaming import (
    SessionLossLimit,
    check_loss_limits,
    check_no_break,
    check_session_loss_limit,
)

Kind = LedgerTransaction.Kind


# --- Buy-in ---------------------------------------------------------------------------------
@reference_guard
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
    session_loss: SessionLossLimit | None = None,
) -> LedgerTransaction:
    """Move ``amount`` minor units of ``currency`` (the room's) into game ``game_ref``'s escrow.

    ``escrow_operator`` owns the escrow (None: the player's operator). Only the network's
    operator may own the escrow of another operator's player: the stake then crosses from
    the player's operator's books to the network's through their network positions
    (wallet/services/network.py); the conversion, if any, is on the player's operator's
    books. The transaction's ``operator`` is the escrow's. The lines: its plan
    (wallet/services/plans/escrow.py ``buy_in_plan``).

    - Real money from another wallet currency is converted through the house FX accounts at
      the latest rate, the wallet debited rounded UP (ROUND_CEILING); the rate is stored on
      the transaction (``fx``).
    - ``currency == "XGC"`` is play money from the player's practice-chip wallet, which is
      granted ``practice_grant_amount()`` chips on first use; never converted.
    - Refused (nothing posted): inactive player, insufficient funds; for real money also
      a break (self-exclusion, time-out) and a loss limit the buy-in could exceed
      (docs/wallet.md), the play session's loss limit included (``session_loss``,
      docs/player-protection.md); games refuses a practice seat to a player on a break
      itself (``check_no_break`` from its seat checks).
    """
    code = parse_currency(currency)
    check_amount(amount)
    game_ref = check_game_ref(game_ref)
    reference = check_reference(reference)
    practice = code == PRACTICE_CURRENCY
    operator = player.operator
    escrow_owner = operator if escrow_operator is None else escrow_operator
    wallet_code = PRACTICE_CURRENCY if practice else player.wallet_currency
    accounts = buy_in_accounts(
        player_id=player.pk,
        player_operator_id=operator.pk,
        escrow_operator_id=escrow_owner.pk,
        game_ref=game_ref,
        currency=code,
        wallet_currency=wallet_code,
        crosses=check_network_escrow(
            player_operator_id=operator.pk, escrow_operator_id=escrow_owner.pk
        ),
        mint=mint_key(player=player) if practice else None,  # for the first-use grant
    )

    def rules(locked: Locked) -> LedgerTransaction:
        rows = locked.by_key(accounts.keys)
        escrow, wallet, now = rows[accounts.escrow], rows[accounts.wallet], locked.now
        check_active(player)
        if not practice:
            check_no_break(player=player, at=now)
        quote = rate_quote(base=code, quote=wallet_code, at=now) if code != wallet_code else None
        if selectors.escrow_is_settled(escrow=escrow):
            raise EscrowSettledProblem(f"the escrow of {game_ref} is already settled")
        if accounts.mint is not None:
            practice_grant_if_first(
                player=player,
                locked=locked.accounts,
                mint=rows[accounts.mint],
                wallet=wallet,
                actor=actor,
                now=now,
            )
        plan = buy_in_plan(
            accounts=accounts,
            amount=amount,
            currency=code,
            wallet_currency=wallet_code,
            quote=quote,
            player_id=player.pk,
        )
        if not practice:
            check_loss_limits(player=player, wallet=wallet, stake=plan.paid, now=now)
            if session_loss is not None:
                check_session_loss_limit(wallet=wallet, stake=plan.paid, session=session_loss)
        check_funds(wallet, plan.paid)  # after the grant, if any: the same locked row
        return post(
            locked=locked.accounts,
            operator=escrow_owner,
            kind=Kind.BUY_IN,
            reference=reference,
            lines=lines_on(plan.lines, rows),
            actor=actor,
            now=now,
            amount=amount,
            currency=code,
            player=player,
            game_ref=game_ref,
            escrow=escrow,
            fx_snapshots=plan.fx_snapshots,
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
        keys=accounts.keys,
        rules=rules,
    )


# --- Refund ---------------------------------------------------------------------------------
def _escrow_or_replay(
    *, same: dict[str, Any], reference: str, owner_id: Any
) -> Account | LedgerTransaction:
    """The escrow a refund or a void empties (``same``: its kind, game and currency), or the
    transaction already posted under ``reference`` (a replay is answered before any other
    check, as by ``posting_replay``). One read: the escrow, its operator and whether the
    reference is taken. Refused: no escrow, or another operator's than ``owner_id``."""
    game_ref, currency = same["game_ref"], same["currency"]
    escrow = posting_selectors.escrow_with_replay(
        game_ref=game_ref, currency=currency, reference=reference
    )
    replay = escrow is None or escrow.replayed
    if replay and (existing := posting_replay(reference=reference, same=same)) is not None:
        return existing
    if escrow is None:
        raise EscrowNotFoundProblem(f"no escrow for {game_ref} in {currency}")
    if escrow.operator_id != owner_id:
        raise EscrowOperatorMismatchProblem(
            f"the escrow of {game_ref} belongs to another operator's game"
        )
    return escrow


def _out_of_escrow(
    *,
    locked: Locked,
    escrow: Account,
    kind: str,
    reference: str,
    plan: RefundPlan | VoidPlan,
    actor: Actor,
    player: Player | None,
    payee_operators: Collection[Any],
) -> LedgerTransaction:
    """Post a refund's or a void's plan: the stakes out of the escrow, in its currency; the
    payees' operators' wallet models read for the seamless credits that follow."""
    posted = post(
        locked=locked.accounts,
        operator=escrow.operator,
        kind=kind,
        reference=reference,
        lines=lines_on(plan.lines, locked.accounts),
        actor=actor,
        now=locked.now,
        amount=plan.amount,
        currency=escrow.currency,
        player=player,
        game_ref=escrow.game_ref,
        escrow=escrow,
    )
    posted.seamless_by_operator = locked.reads.seamless_by_operator(payee_operators)
    return posted


@reference_guard
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
    what it paid (no FX gain or loss, no rounding; wallet/services/plans/escrow.py
    ``refund_plan``). Never blocked by self-exclusion or status. Refused: no escrow, escrow
    settled, nothing left to refund. A network escrow (``escrow_operator``: the network's
    operator) gives the stake back through the same network position lines as the buy-ins,
    reversed.
    """
    code = parse_currency(currency)
    game_ref = check_game_ref(game_ref)
    reference = check_reference(reference)
    same = {"kind": Kind.REFUND, "player": player, "game_ref": game_ref, "currency": code}
    owner = player.operator_id if escrow_operator is None else escrow_operator.pk
    escrow = _escrow_or_replay(same=same, reference=reference, owner_id=owner)
    if isinstance(escrow, LedgerTransaction):
        return escrow
    contributions = selectors.player_contribution_transactions(escrow=escrow, player=player)
    # The player's own lines: a void's transaction holds every player's (a buy-in's or a
    # refund's are all the player's).
    own_lines = LedgerEntry.objects.filter(transaction__in=contributions, player=player)
    accounts = Account.objects.filter(pk__in=own_lines.values("account_id"))

    def rules(locked: Locked) -> LedgerTransaction:
        if locked.reads.settled:
            raise EscrowSettledProblem(f"the escrow of {game_ref} is already settled")
        entries = list(own_lines.values_list("account_id", "account__kind", "amount"))
        for account_id, _kind, _amount in entries:
            if account_id not in locked.accounts:  # pragma: no cover - same player and shard
                raise LedgerInvariantError(f"a buy-in into {game_ref} changed accounts under us")
        plan = refund_plan(
            contributions=entries, escrow_id=escrow.pk, player_id=player.pk, game_ref=game_ref
        )
        if locked.accounts[escrow.pk].balance < plan.amount:  # pragma: no cover - CHECK guards
            raise LedgerInvariantError(f"the escrow of {game_ref} holds less than its buy-ins")
        return _out_of_escrow(
            locked=locked,
            escrow=escrow,
            kind=Kind.REFUND,
            reference=reference,
            plan=plan,
            actor=actor,
            player=player,
            payee_operators=[player.operator_id],
        )

    return posting_make(
        reference=reference,
        same=same,
        accounts=list(accounts),
        rules=rules,
        reads=lambda _at: posting_selectors.escrow_posting_reads(
            escrow=escrow, reference=reference, operator_ids=[player.operator_id]
        ),
    )


# --- Void -----------------------------------------------------------------------------------
# Tries of a void whose escrow gained a contributor (a buy-in on accounts it had not locked)
# between its first read and its locks; each try re-reads under fresh locks.
VOID_ATTEMPTS = 3


class _ContributorsMoved(Exception):
    """A contribution committed between the void's read and its locks moved an account the
    void had not locked: the try is rolled back (its locks with it) and made again."""


@reference_guard
def escrow_void(
    *,
    game_ref: str,
    currency: str,
    reference: str,
    actor: Actor,
    escrow_operator: Operator,
) -> LedgerTransaction:
    """Give every player back exactly what they have in the game's (unsettled) escrow, in
    ONE transaction (kind ``void``; R13: an interruption voided the game). No fee.

    Each player's part is their ``table_refund``: their buy-ins (and refunds, voids and
    reversals since) undone account by account, so a converted buy-in comes back at its
    stored rate and a network escrow's stake back through the same position lines, reversed
    (wallet/services/plans/escrow.py ``void_plan``). Afterwards the escrow is empty. Never
    blocked by self-exclusion, limits or status. ``escrow_operator`` owns the escrow (the
    room's operator, or the network's for a network game).

    Exactly once: the reference is unique (the same request again returns the first
    transaction; a concurrent one queues on the escrow's lock and is then replayed).
    Refused, nothing posted: no escrow (``escrow-not-found``), another operator's
    (``escrow-operator-mismatch``), settled (``escrow-settled``), every stake already back
    (``nothing-to-void``: voided under another reference, or refunded). The caller records
    the seamless players' credits in the same transaction (``seamless_credits_record``)."""
    code = parse_currency(currency)
    game_ref = check_game_ref(game_ref)
    reference = check_reference(reference)
    for _ in range(VOID_ATTEMPTS):
        try:
            return _void_once(
                game_ref=game_ref,
                currency=code,
                reference=reference,
                actor=actor,
                escrow_operator=escrow_operator,
            )
        except _ContributorsMoved:
            continue
    raise LedgerInvariantError(f"the contributors of {game_ref} kept changing under the void")


@transaction.atomic
def _void_once(
    *, game_ref: str, currency: str, reference: str, actor: Actor, escrow_operator: Operator
) -> LedgerTransaction:
    """One try of ``escrow_void``: read, lock, re-read under the locks, post."""
    same = {"kind": Kind.VOID, "player": None, "game_ref": game_ref, "currency": currency}
    escrow = _escrow_or_replay(same=same, reference=reference, owner_id=escrow_operator.pk)
    if isinstance(escrow, LedgerTransaction):
        return escrow
    seen = selectors.escrow_contribution_lines(escrow=escrow)
    operator_ids = {line.operator_id for line in seen if line.operator_id is not None}
    accounts = Account.objects.filter(pk__in={escrow.pk, *(line.account_id for line in seen)})

    def rules(locked: Locked) -> LedgerTransaction:
        if locked.reads.settled:
            raise EscrowSettledProblem(f"the escrow of {game_ref} is already settled")
        lines = selectors.escrow_contribution_lines(escrow=escrow)  # again, under the locks
        if any(line.account_id not in locked.accounts for line in lines):
            raise _ContributorsMoved
        plan = void_plan(
            contributions=_by_player(lines, game_ref=game_ref),
            escrow_id=escrow.pk,
            game_ref=game_ref,
        )
        if locked.accounts[escrow.pk].balance != plan.amount:
            raise LedgerInvariantError(
                f"the escrow of {game_ref} holds {locked.accounts[escrow.pk].balance}, "
                f"its players' stakes {plan.amount}"
            )
        return _out_of_escrow(
            locked=locked,
            escrow=escrow,
            kind=Kind.VOID,
            reference=reference,
            plan=plan,
            actor=actor,
            player=None,
            payee_operators=operator_ids,
        )

    return posting_make(
        reference=reference,
        same=same,
        accounts=list(accounts),
        rules=rules,
        reads=lambda _at: posting_selectors.escrow_posting_reads(
            escrow=escrow, reference=reference, operator_ids=operator_ids
        ),
    )


def _by_player(
    lines: Collection[selectors.ContributionLine], *, game_ref: str
) -> dict[object, list[tuple[int, str, int]]]:
    """The contribution lines of each player, as ``refund_plan`` takes them."""
    by_player: dict[object, list[tuple[int, str, int]]] = defaultdict(list)
    for line in lines:
        if line.player_id is None:  # pragma: no cover - every contribution line is a player's
            raise LedgerInvariantError(f"a contribution to {game_ref} without its player")
        by_player[line.player_id].append((line.account_id, line.account_kind, line.amount))
    return by_player
