"""The settlement that empties a game's escrow (docs/wallet.md "escrow_settle"):
``settlement`` calls ``escrow_settle`` with the payout lines of a finished game (R10 in
docs/rules.md). Beside the table cashier's buy-ins and refunds (escrow.py), whose escrow
it empties: the payouts to the players, converted into their wallet currencies through
the house FX accounts at the latest rate (rounded down), and the fee to the house.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any

from django.db import transaction
from django.utils import timezone

from gin_platform.models import Player
from gin_platform.money import PRACTICE_CURRENCY, money_dict
from gin_platform.tenancy import selectors as platform_selectors
from gin_platform.tenancy.principals import Actor
from wallet.amounts import parse_currency
from wallet.ledger.accounts import account_identity, in_key_order, resolve_and_lock
from wallet.ledger.checks import MAX_AMOUNT, check_game_ref, check_metadata, check_reference
from wallet.ledger.keys import AccountKey
from wallet.ledger.lines import lines_on
from wallet.ledger.post import LedgerInvariantError, post
from wallet.ledger.replay import posting_replay, reference_guard
from wallet.ledger.skeleton import Locked, posting_make
from wallet.ledger.write import LedgerBatch
from wallet.models import COMPONENT_LENGTH, Account, LedgerTransaction
from wallet.problems import (
    EscrowNotFoundProblem,
    EscrowSettledProblem,
    EscrowUnbalancedProblem,
    PayoutInvalidProblem,
)
from wallet.selectors import network as network_selectors
from wallet.selectors import postings as posting_selectors
from wallet.services.network import network_fee_share_bps
from wallet.services.plans.escrow_settle import Payee, SettlementPlan, settlement_plan
from wallet.services.plans.network import FeeSplit, network_fee_split
from wallet.services.rates import rate_quote

Kind = LedgerTransaction.Kind

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


@reference_guard
def escrow_settle(
    *,
    game_ref: str,
    currency: str,
    reference: str,
    payouts: Sequence[EscrowPayout],
    fee: int,
    actor: Actor,
    metadata: dict | None = None,
    savepoint: bool = True,
) -> LedgerTransaction:
    """Empty the game's escrow: the payout lines to the players, the fee to the house.

    Each player's total is converted into their wallet currency at the latest rate through
    the house FX accounts, rounded DOWN (ROUND_FLOOR), the rate stored in ``fx`` and the FX
    legs tagged ``fx``; the escrow side keeps one entry per line and component. The payouts
    plus the fee must equal the escrow exactly (``escrow-unbalanced``); each payee must have
    bought in. Never blocked by self-exclusion, limits or status (the money is owed).

    ``savepoint=False``: inside a caller's transaction that rolls back whole on any error
    (settlement's ``game_settle``), no savepoint of its own (two round trips fewer); a
    failure then leaves the caller's transaction only good for rolling back.
    """
    with transaction.atomic(savepoint=savepoint):
        return _escrow_settle(
            game_ref=game_ref,
            currency=currency,
            reference=reference,
            payouts=payouts,
            fee=fee,
            actor=actor,
            metadata=metadata,
        )


@dataclass(frozen=True)
class EscrowSettlement:
    """One game of a batch (``escrow_settle_many``): ``escrow_settle``'s arguments."""

    game_ref: str
    currency: str
    reference: str
    payouts: Sequence[EscrowPayout]
    fee: int
    metadata: dict | None = None


class NotBatchable(Exception):
    """A settlement of the batch takes ``escrow_settle``'s own path: its reference is
    already used, or its escrow is missing or a network game's. Raised before anything is
    written; the caller rolls back and settles each game on its own (where each such case
    has its answer)."""


def escrow_settle_many(
    *, settlements: Sequence[EscrowSettlement], actor: Actor
) -> list[LedgerTransaction]:
    """``escrow_settle`` for several games at once, inside the caller's transaction, which
    must roll back whole on any error (settlement's ``games_settle``). The same checks,
    rules, rows and answers, in fewer statements (docs/settlement.md "Batches"): one read
    of the escrows, ONE lock of every account of the batch in primary-key order (so a
    batch never waits on one posting while holding another's accounts; a missing account
    is created first, holding no account lock, as ``posting_make`` does), one read of what
    the rules need under the locks, and one write of every posting (``LedgerBatch``).
    Raises ``NotBatchable`` for a settlement that needs the single path, or the problem
    of a settlement that breaks a rule (then no settlement of the batch is written)."""
    checked = [_settlement_checked(item) for item in settlements]
    found_escrows = posting_selectors.escrows_of_games(
        games=[(item.game_ref, item.code) for item in checked]
    )
    escrows = [escrow for escrow in found_escrows if escrow is not None]
    if len({item.reference for item in checked}) != len(checked) or len(escrows) != len(checked):
        raise NotBatchable("a reference twice in the batch, or an escrow missing")
    if any(platform_selectors.is_network_operator(escrow.operator_id) for escrow in escrows):
        raise NotBatchable("a network game (its fee split reads the contributions)")
    now = timezone.now()  # the settlements' time, used for their rates before the locks
    postings = [
        _settlement_posting(item, escrow=escrow, actor=actor, now=now)
        for item, escrow in zip(checked, escrows, strict=True)
    ]
    keys = {key.identity: key for posting in postings for key in posting.keys}
    _, locked = resolve_and_lock(tuple(keys.values()), escrows)
    found = {account_identity(account): account for account in locked.values()}
    reads = posting_selectors.escrow_posting_reads_many(
        escrows=escrows,
        references=[item.reference for item in checked],
        operator_ids={pk for posting in postings for pk in posting.payee_operators},
    )
    if reads.replayed:
        raise NotBatchable("a reference of the batch is used (a replay: the single path)")
    batch = LedgerBatch(count=len(postings))
    posted = [
        posting.rules(
            Locked(
                accounts=locked,
                resolved=tuple(in_key_order(posting.keys, found)),
                now=now,
                reads=reads.of_escrow(escrow.pk),
                write=batch,
            )
        )
        for posting, escrow in zip(postings, escrows, strict=True)
    ]
    batch.flush()
    return posted


@dataclass(frozen=True)
class _Checked:
    """A settlement's arguments, checked (each bad one is its own problem)."""

    code: str
    game_ref: str
    reference: str
    meta: dict[str, Any]
    fee: int
    payees: dict[Any, Player]
    lines_by_player: dict[Any, list[EscrowPayout]]
    total: int  # the payouts plus the fee: what the escrow must hold

    @property
    def same(self) -> dict[str, Any]:
        """What a replay under the reference must match."""
        return {
            "kind": Kind.SETTLEMENT,
            "game_ref": self.game_ref,
            "currency": self.code,
            "amount": self.total,
        }


def _settlement_checked(item: EscrowSettlement) -> _Checked:
    code = parse_currency(item.currency)
    payees, lines_by_player = _check_payouts(item.payouts, item.fee)
    return _Checked(
        code=code,
        game_ref=check_game_ref(item.game_ref),
        reference=check_reference(item.reference),
        meta=check_metadata(item.metadata),
        fee=item.fee,
        payees=payees,
        lines_by_player=lines_by_player,
        total=sum(line.amount for line in item.payouts) + item.fee,
    )


def _escrow_settle(
    *,
    game_ref: str,
    currency: str,
    reference: str,
    payouts: Sequence[EscrowPayout],
    fee: int,
    actor: Actor,
    metadata: dict | None,
) -> LedgerTransaction:
    checked = _settlement_checked(
        EscrowSettlement(
            game_ref=game_ref,
            currency=currency,
            reference=reference,
            payouts=payouts,
            fee=fee,
            metadata=metadata,
        )
    )
    # One read: the escrow, its operator and whether the reference is taken (a replay is
    # answered before any other check, as by ``posting_replay``).
    escrow = posting_selectors.escrow_with_replay(
        game_ref=checked.game_ref, currency=checked.code, reference=checked.reference
    )
    replay = escrow is None or escrow.replayed
    if replay and (existing := posting_replay(reference=checked.reference, same=checked.same)):
        return existing
    if escrow is None:
        raise EscrowNotFoundProblem(f"no escrow for {checked.game_ref} in {checked.code}")
    now = timezone.now()  # the settlement's time, used for its rates before the locks
    posting = _settlement_posting(checked, escrow=escrow, actor=actor, now=now)
    return posting_make(
        reference=checked.reference,
        same=checked.same,
        keys=posting.keys,
        accounts=[escrow],
        rules=posting.rules,
        now=now,
        reads=lambda _at: posting_selectors.escrow_posting_reads(
            escrow=escrow,
            reference=checked.reference,
            participants=True,
            operator_ids=posting.payee_operators,
        ),
    )


@dataclass(frozen=True)
class _Posting:
    """A settlement ready to lock and post: the keys of the accounts it needs besides the
    escrow (in order), its rules on the locked rows, and the operators whose wallet mode
    its reads must tell."""

    keys: tuple[AccountKey, ...]
    rules: Callable[[Locked], LedgerTransaction]
    payee_operators: list[Any]


def _settlement_posting(
    checked: _Checked, *, escrow: Account, actor: Actor, now: datetime
) -> _Posting:
    """The facts of a settlement (its rates at ``now``, a network game's fee split), its
    plan (wallet/services/plans/escrow_settle.py) and its rules under the locks."""
    code = checked.code
    operator = escrow.operator
    practice = code == PRACTICE_CURRENCY
    payees = {
        pk: Payee(
            player_id=pk,
            operator_id=player.operator_id,
            wallet_currency=code if practice else player.wallet_currency,
        )
        for pk, player in checked.payees.items()
    }
    quotes = {
        wallet_code: rate_quote(base=code, quote=wallet_code, at=now)
        for wallet_code in sorted({payee.wallet_currency for payee in payees.values()})
        if wallet_code != code
    }
    # A network game (the escrow is the network's operator's): payees of other operators are
    # paid through the positions, and the fee is shared by contribution (network.py).
    split = None
    if platform_selectors.is_network_operator(operator.pk):
        split = network_fee_split(
            fee=checked.fee,
            contributions=network_selectors.escrow_operator_contributions(escrow=escrow),
            fee_share_bps=network_fee_share_bps(),
        )
    plan = settlement_plan(
        game_ref=checked.game_ref,
        currency=code,
        escrow_operator_id=operator.pk,
        payees=payees,
        lines_by_player=checked.lines_by_player,
        fee=checked.fee,
        split=split,
        quotes=quotes,
    )
    # The wallet mode matters for real money only (practice chips never leave the platform).
    payee_operators = [] if practice else sorted({p.operator_id for p in payees.values()}, key=str)
    rules = partial(
        _settlement_rules,
        checked=checked,
        escrow=escrow,
        plan=plan,
        split=split,
        payee_operators=payee_operators,
        actor=actor,
        now=now,
    )
    return _Posting(keys=plan.keys, rules=rules, payee_operators=payee_operators)


def _settlement_rules(
    locked: Locked,
    *,
    checked: _Checked,
    escrow: Account,
    plan: SettlementPlan,
    split: FeeSplit | None,
    payee_operators: list[Any],
    actor: Actor,
    now: datetime,
) -> LedgerTransaction:
    """Under the locks: the escrow is not settled, every payee bought in, the escrow holds
    exactly the payouts plus the fee; then post the plan."""
    code, game_ref, total = checked.code, checked.game_ref, checked.total
    if locked.reads.settled:
        raise EscrowSettledProblem(f"the escrow of {game_ref} is already settled")
    # Read under the escrow's lock, which every buy-in takes: the payees as they stand.
    if strangers := set(checked.payees) - locked.reads.participants:
        raise PayoutInvalidProblem(
            f"{len(strangers)} payee(s) did not buy into {game_ref}",
            players=sorted(str(pk) for pk in strangers),
        )
    held = locked.accounts[escrow.pk].balance
    if held != total:
        raise EscrowUnbalancedProblem(
            f"the escrow of {game_ref} holds {money_dict(held, code)['amount']} {code}; "
            f"payouts plus fee are {money_dict(total, code)['amount']}",
            escrow=money_dict(held, code),
            payouts_and_fee=money_dict(total, code),
        )
    if split is not None and split.contributions != network_selectors.escrow_operator_contributions(
        escrow=escrow
    ):  # pragma: no cover - a buy-in or refund needs the escrow's lock, held here
        raise LedgerInvariantError(f"the contributions to {game_ref} changed under us")
    rows = locked.by_key(plan.keys) | {plan.escrow: locked.accounts[escrow.pk]}
    settled = post(
        locked=locked.accounts,
        operator=escrow.operator,
        kind=Kind.SETTLEMENT,
        reference=checked.reference,
        lines=lines_on(plan.lines, rows),
        actor=actor,
        now=now,
        amount=total,
        currency=code,
        game_ref=game_ref,
        escrow=escrow,
        fx_snapshots=plan.fx_snapshots,
        metadata=checked.meta | plan.metadata,
        write=locked.write,
    )
    settled.seamless_by_operator = locked.reads.seamless_by_operator(payee_operators)
    return settled
