"""A tournament's money out of its escrow (R14; docs/wallet.md "Tournaments"): the prizes of
a round, the entry fees, and the operator's overlay in and back out. The tickets are
tickets.py's.

A tournament's entries sit in an ordinary escrow whose ``game_ref`` is the tournament's
(``tournament:<id>``): a cash entry is ``table_buy_in`` (buy-in plus entry fee, with every
rule of a table: limits, breaks, FX, practice chips, the network's positions), unregistering
is ``table_refund``, an entry paid with a ticket is ``ticket_enter``. Unlike a game's, the
escrow is paid out in parts, a round at a time: nothing here marks it settled (no
``settlement`` posting), so buy-ins, refunds and further prizes stay possible until the
tournament (not the wallet) says it is over, when the escrow holds exactly 0.

Each posting is one balanced transaction planned by a pure function
(wallet/services/plans/tournament.py), idempotent by its reference, refused with nothing
posted. ``escrow_operator``: the escrow's owner as the caller knows it (the tournament's
operator, or the network's); None takes the escrow as it is.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone

from gin_platform.models import Operator, Player
from gin_platform.money import PRACTICE_CURRENCY
from gin_platform.tenancy import selectors as platform_selectors
from gin_platform.tenancy.principals import Actor
from wallet.amounts import parse_currency
from wallet.ledger.checks import (
    MAX_AMOUNT,
    check_amount,
    check_funds,
    check_game_ref,
    check_metadata,
    check_reference,
)
from wallet.ledger.lines import lines_on
from wallet.ledger.post import LedgerInvariantError, post
from wallet.ledger.replay import posting_replay, reference_guard
from wallet.ledger.skeleton import Locked, posting_make
from wallet.models import Account, LedgerTransaction
from wallet.problems import (
    EscrowNotFoundProblem,
    EscrowOperatorMismatchProblem,
    EscrowSettledProblem,
    PayoutInvalidProblem,
)
from wallet.selectors import balances as balance_selectors
from wallet.selectors import network as network_selectors
from wallet.selectors import postings as posting_selectors
from wallet.selectors import tournaments as tournament_selectors
from wallet.services.network import check_network_escrow, network_fee_share_bps
from wallet.services.plans.escrow_settle import Payee
from wallet.services.plans.network import FeeSplit, network_fee_split
from wallet.services.plans.tournament import (
    TournamentPlan,
    fee_plan,
    overlay_plan,
    overlay_return_plan,
    prizes_plan,
)
from wallet.services.rates import rate_quote
from wallet.services.seamless import seamless_credits_record

Kind = LedgerTransaction.Kind


def tournament_escrow_or_replay(
    *, same: dict[str, Any], reference: str, escrow_operator: Operator | None
) -> Account | LedgerTransaction:
    """The tournament's escrow (``same``: the posting's kind, game and currency), or the
    transaction already posted under ``reference`` (a replay is answered before any other
    check). One read: the escrow, its operator and whether the reference is taken.
    Refused: no escrow, or another operator's than ``escrow_operator`` (when given)."""
    game_ref, currency = same["game_ref"], same["currency"]
    escrow = posting_selectors.escrow_with_replay(
        game_ref=game_ref, currency=currency, reference=reference
    )
    if (escrow is None or escrow.replayed) and (
        existing := posting_replay(reference=reference, same=same)
    ) is not None:
        return existing
    if escrow is None:
        raise EscrowNotFoundProblem(f"no escrow for {game_ref} in {currency}")
    if escrow_operator is not None and escrow.operator_id != escrow_operator.pk:
        raise EscrowOperatorMismatchProblem(
            f"the escrow of {game_ref} belongs to another operator's tournament"
        )
    return escrow


def _escrow_post(
    locked: Locked,
    *,
    escrow: Account,
    plan: TournamentPlan,
    kind: str,
    reference: str,
    actor: Actor,
    metadata: dict[str, Any] | None = None,
) -> LedgerTransaction:
    """Post a plan out of (or into) the locked ``escrow``: the transaction is the escrow's
    operator's, its headline the plan's amount in the escrow's currency."""
    rows = locked.by_key(plan.keys)
    if plan.escrow is not None:
        rows[plan.escrow] = locked.accounts[escrow.pk]
    return post(
        locked=locked.accounts,
        operator=escrow.operator,
        kind=kind,
        reference=reference,
        lines=lines_on(plan.lines, rows),
        actor=actor,
        now=locked.now,
        amount=plan.amount,
        currency=escrow.currency,
        game_ref=escrow.game_ref,
        escrow=escrow,
        fx_snapshots=plan.fx_snapshots,
        metadata=(metadata or {}) | plan.metadata,
    )


# --- Prizes -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class TournamentPrize:
    """One place's prize: ``amount`` minor units of the escrow's currency (>= 0; a zero
    prize may be left out) to ``player``'s wallet, or, with ``ticket_for`` (another
    tournament's game_ref), into the player's ticket to it (a satellite's prize)."""

    player: Player
    amount: int
    ticket_for: str | None = None


@dataclass(frozen=True)
class _Prizes:
    """The prizes, checked: cash per player, tickets per (player, target), the players."""

    cash: dict[Any, int]
    tickets: dict[tuple[Any, str], int]
    players: dict[Any, Player]

    @property
    def total(self) -> int:
        return sum(self.cash.values()) + sum(self.tickets.values())


def _prizes_checked(prizes: Sequence[TournamentPrize], *, game_ref: str) -> _Prizes:
    """Every prize a ``TournamentPrize`` of a player, an integer amount >= 0, a ticket to
    another tournament; at least one above zero. Else ``payout-invalid``."""
    cash: dict[Any, int] = defaultdict(int)
    tickets: dict[tuple[Any, str], int] = defaultdict(int)
    players: dict[Any, Player] = {}
    for prize in prizes:
        if not isinstance(prize, TournamentPrize) or not isinstance(prize.player, Player):
            raise PayoutInvalidProblem("every prize is a TournamentPrize(player, amount)")
        amount = prize.amount
        if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
            raise PayoutInvalidProblem(
                "prizes are integers >= 0 of minor units", player=str(prize.player.pk)
            )
        if amount > MAX_AMOUNT:
            raise PayoutInvalidProblem("a prize is larger than any posting allowed")
        if amount == 0:
            continue
        players[prize.player.pk] = prize.player
        if prize.ticket_for is None:
            cash[prize.player.pk] += amount
            continue
        target = check_game_ref(prize.ticket_for)
        if target == game_ref:
            raise PayoutInvalidProblem("a ticket prize is a ticket to another tournament")
        tickets[(prize.player.pk, target)] += amount
    if not players:
        raise PayoutInvalidProblem("no prize above zero to pay")
    if sum(cash.values()) + sum(tickets.values()) > MAX_AMOUNT:
        raise PayoutInvalidProblem("the prizes are larger than any posting allowed")
    return _Prizes(cash=dict(cash), tickets=dict(tickets), players=players)


@reference_guard
@transaction.atomic
def tournament_prizes_pay(
    *,
    game_ref: str,
    currency: str,
    prizes: Sequence[TournamentPrize],
    reference: str,
    actor: Actor,
    escrow_operator: Operator | None = None,
    metadata: dict[str, Any] | None = None,
) -> LedgerTransaction:
    """Pay some of the tournament's escrow (a round's places) in one transaction, kind
    ``tournament_prize``: each prize into the player's wallet, converted into the wallet's
    currency at the latest rate, rounded DOWN, through the house FX accounts, and across the
    network positions for another operator's player (exactly as ``escrow_settle`` pays), or
    into the player's ticket to ``ticket_for`` (same currency). The seamless players' credits
    are recorded in the same transaction (``seamless_credits_record``, reason ``payout``).

    Refused, nothing posted: a prize that is not an integer >= 0, none above zero, a ticket
    to this same tournament, a payee who never entered this escrow (bought in or entered with
    a ticket; a freeroll's escrow, which nobody paid to enter, excepted) (``payout-invalid``);
    more than the escrow holds (``insufficient-funds``); no
    escrow, another operator's, or a settled one. Never blocked by breaks, limits or status:
    a prize won is paid. The escrow is not marked settled: the next round pays the rest."""
    code = parse_currency(currency)
    game_ref = check_game_ref(game_ref)
    reference = check_reference(reference)
    meta = check_metadata(metadata)
    checked = _prizes_checked(prizes, game_ref=game_ref)
    same = {
        "kind": Kind.TOURNAMENT_PRIZE,
        "game_ref": game_ref,
        "currency": code,
        "amount": checked.total,
    }
    escrow = tournament_escrow_or_replay(
        same=same, reference=reference, escrow_operator=escrow_operator
    )
    if isinstance(escrow, LedgerTransaction):
        return escrow
    now = timezone.now()  # the posting's time, used for its rates before the locks
    practice = code == PRACTICE_CURRENCY
    payees = {
        pk: Payee(
            player_id=pk,
            operator_id=player.operator_id,
            wallet_currency=code if practice else player.wallet_currency,
        )
        for pk, player in checked.players.items()
    }
    quotes = {
        wallet_code: rate_quote(base=code, quote=wallet_code, at=now)
        for wallet_code in sorted({payees[pk].wallet_currency for pk in checked.cash})
        if wallet_code != code
    }
    plan = prizes_plan(
        game_ref=game_ref,
        currency=code,
        escrow_operator_id=escrow.operator_id,
        network=platform_selectors.is_network_operator(escrow.operator_id),
        payees=payees,
        cash=checked.cash,
        tickets=checked.tickets,
        quotes=quotes,
    )
    # The wallet mode matters for real money paid into wallets only.
    payee_operators = (
        [] if practice else sorted({payees[pk].operator_id for pk in checked.cash}, key=str)
    )

    def rules(locked: Locked) -> LedgerTransaction:
        if locked.reads.settled:
            raise EscrowSettledProblem(f"the escrow of {game_ref} is already settled")
        # Read under the escrow's lock, which every entry takes: the payees as they stand.
        # A freeroll's escrow (no buy-in, no ticket: the operator's overlay is its whole
        # pool) has nobody who paid to enter; its tournament names the winners.
        entrants = locked.reads.participants
        if entrants and (strangers := set(checked.players) - entrants):
            raise PayoutInvalidProblem(
                f"{len(strangers)} payee(s) did not enter {game_ref}",
                players=sorted(str(pk) for pk in strangers),
            )
        check_funds(locked.accounts[escrow.pk], checked.total)
        paid = _escrow_post(
            locked,
            escrow=escrow,
            plan=plan,
            kind=Kind.TOURNAMENT_PRIZE,
            reference=reference,
            actor=actor,
            metadata=meta,
        )
        paid.seamless_by_operator = locked.reads.seamless_by_operator(payee_operators)
        seamless_credits_record(ledger_transaction=paid, actor=actor)
        return paid

    return posting_make(
        reference=reference,
        same=same,
        keys=plan.keys,
        accounts=[escrow],
        rules=rules,
        now=now,
        reads=lambda _at: posting_selectors.escrow_posting_reads(
            escrow=escrow,
            reference=reference,
            participants=True,
            operator_ids=payee_operators,
        ),
    )


# --- Entry fees -------------------------------------------------------------------------------
# Tries of a network tournament's fee whose contributions changed (an entry or a refund of
# another operator's player) between its first read and its locks.
FEE_ATTEMPTS = 3


class _ContributionsMoved(Exception):
    """The contributions a network fee is shared by changed before the locks: the try is
    rolled back and made again with the fresh split."""


def _fee_split(escrow: Account, amount: int) -> FeeSplit | None:
    """A network tournament's fee split by its operators' contributions (None for any other
    escrow): the network game's rule (``network_fee_split``)."""
    if not platform_selectors.is_network_operator(escrow.operator_id):
        return None
    return network_fee_split(
        fee=amount,
        contributions=network_selectors.escrow_operator_contributions(escrow=escrow),
        fee_share_bps=network_fee_share_bps(),
    )


@reference_guard
def tournament_fee_take(
    *,
    game_ref: str,
    currency: str,
    amount: int,
    reference: str,
    actor: Actor,
    escrow_operator: Operator | None = None,
) -> LedgerTransaction:
    """Take ``amount`` of entry fees out of the tournament's escrow into the house fee (the
    operator's revenue), kind ``tournament_fee``, on the game's house shard. A network
    tournament's fee (its escrow is the network's operator's) is shared as a network game's:
    each operator's house fee gets ``floor(amount x its players' contributions x (10000 -
    fee_share_bps) / (all contributions x 10000))``, the network keeps the rest; the split
    is in ``metadata["network"]``. May be taken in parts (each under its own reference).

    Refused, nothing posted: an amount that is not a positive integer, more than the escrow
    holds (``insufficient-funds``), no escrow, another operator's, a settled one."""
    code = parse_currency(currency)
    check_amount(amount)
    game_ref = check_game_ref(game_ref)
    reference = check_reference(reference)
    for _ in range(FEE_ATTEMPTS):
        try:
            return _fee_once(
                game_ref=game_ref,
                currency=code,
                amount=amount,
                reference=reference,
                actor=actor,
                escrow_operator=escrow_operator,
            )
        except _ContributionsMoved:
            continue
    raise LedgerInvariantError(f"the contributions to {game_ref} kept changing under the fee")


@transaction.atomic
def _fee_once(
    *,
    game_ref: str,
    currency: str,
    amount: int,
    reference: str,
    actor: Actor,
    escrow_operator: Operator | None,
) -> LedgerTransaction:
    """One try of ``tournament_fee_take``: read, lock, check the split under the locks, post."""
    same = {
        "kind": Kind.TOURNAMENT_FEE,
        "game_ref": game_ref,
        "currency": currency,
        "amount": amount,
    }
    escrow = tournament_escrow_or_replay(
        same=same, reference=reference, escrow_operator=escrow_operator
    )
    if isinstance(escrow, LedgerTransaction):
        return escrow
    split = _fee_split(escrow, amount)
    plan = fee_plan(
        game_ref=game_ref,
        currency=currency,
        escrow_operator_id=escrow.operator_id,
        fee=amount,
        split=split,
    )

    def rules(locked: Locked) -> LedgerTransaction:
        if locked.reads.settled:
            raise EscrowSettledProblem(f"the escrow of {game_ref} is already settled")
        check_funds(locked.accounts[escrow.pk], amount)
        if split is not None and _fee_split(escrow, amount) != split:  # read again, locked
            raise _ContributionsMoved
        return _escrow_post(
            locked,
            escrow=escrow,
            plan=plan,
            kind=Kind.TOURNAMENT_FEE,
            reference=reference,
            actor=actor,
        )

    return posting_make(
        reference=reference,
        same=same,
        keys=plan.keys,
        accounts=[escrow],
        rules=rules,
        reads=lambda _at: posting_selectors.escrow_posting_reads(
            escrow=escrow, reference=reference
        ),
    )


# --- Overlay ----------------------------------------------------------------------------------
@reference_guard
@transaction.atomic
def tournament_overlay_add(
    *,
    game_ref: str,
    currency: str,
    amount: int,
    operator: Operator,
    reference: str,
    actor: Actor,
    escrow_operator: Operator | None = None,
) -> LedgerTransaction:
    """Top the tournament's escrow up from ``operator``'s promotion account (the overlay of a
    guaranteed prize pool; a freeroll's whole pool), kind ``overlay``, on the game's shard.
    The escrow is created if this is the first money in it, owned by ``escrow_operator``
    (None: ``operator``); a member operator's overlay into the network's escrow crosses
    through their positions. The promotion account may go negative: it is the operator's
    spend. Refused: another operator's escrow (``escrow-operator-mismatch``), a settled
    one; the amount's checks."""
    code = parse_currency(currency)
    check_amount(amount)
    game_ref = check_game_ref(game_ref)
    reference = check_reference(reference)
    owner = operator if escrow_operator is None else escrow_operator
    plan = overlay_plan(
        game_ref=game_ref,
        currency=code,
        amount=amount,
        sponsor_id=operator.pk,
        escrow_operator_id=owner.pk,
        crosses=check_network_escrow(player_operator_id=operator.pk, escrow_operator_id=owner.pk),
    )
    escrow_key = plan.escrow
    if escrow_key is None:  # pragma: no cover - an overlay's plan names its escrow
        raise LedgerInvariantError("an overlay without its escrow")

    def rules(locked: Locked) -> LedgerTransaction:
        escrow = locked.by_key(plan.keys)[escrow_key]
        if balance_selectors.escrow_is_settled(escrow=escrow):
            raise EscrowSettledProblem(f"the escrow of {game_ref} is already settled")
        escrow.operator = owner
        return _escrow_post(
            locked,
            escrow=escrow,
            plan=plan,
            kind=Kind.OVERLAY,
            reference=reference,
            actor=actor,
            metadata={"operator_id": str(operator.pk)},
        )

    return posting_make(
        reference=reference,
        same={"kind": Kind.OVERLAY, "game_ref": game_ref, "currency": code, "amount": amount},
        keys=plan.keys,
        rules=rules,
    )


@reference_guard
@transaction.atomic
def tournament_overlay_return(
    *,
    game_ref: str,
    currency: str,
    operator: Operator,
    reference: str,
    actor: Actor,
    escrow_operator: Operator | None = None,
) -> LedgerTransaction:
    """Give ``operator`` back everything its overlays put into the tournament's escrow (a
    tournament cancelled before any match finished, once every entry is refunded), kind
    ``overlay_return``: the overlays' lines negated account by account, so the same
    promotion account (and positions) take it back whatever the shards are now.

    Refused, nothing posted: nothing of the operator's overlays left in the escrow
    (``nothing-to-refund``), less in the escrow than that (``insufficient-funds``: prizes
    were paid), no escrow, another operator's than ``escrow_operator`` (None: ``operator``),
    a settled one."""
    code = parse_currency(currency)
    game_ref = check_game_ref(game_ref)
    reference = check_reference(reference)
    owner = operator if escrow_operator is None else escrow_operator
    same = {"kind": Kind.OVERLAY_RETURN, "game_ref": game_ref, "currency": code}
    escrow = tournament_escrow_or_replay(same=same, reference=reference, escrow_operator=owner)
    if isinstance(escrow, LedgerTransaction):
        return escrow
    seen = tournament_selectors.overlay_lines(escrow=escrow, operator=operator)
    accounts = Account.objects.filter(pk__in={escrow.pk, *(pk for pk, _ in seen)})

    def rules(locked: Locked) -> LedgerTransaction:
        if locked.reads.settled:
            raise EscrowSettledProblem(f"the escrow of {game_ref} is already settled")
        lines = tournament_selectors.overlay_lines(escrow=escrow, operator=operator)
        if any(pk not in locked.accounts for pk, _ in lines):  # pragma: no cover - same shards
            raise LedgerInvariantError(f"an overlay into {game_ref} changed accounts under us")
        plan = overlay_return_plan(entries=lines, escrow_id=escrow.pk, game_ref=game_ref)
        check_funds(locked.accounts[escrow.pk], plan.amount)
        return post(
            locked=locked.accounts,
            operator=escrow.operator,
            kind=Kind.OVERLAY_RETURN,
            reference=reference,
            lines=lines_on(plan.lines, locked.accounts),
            actor=actor,
            now=locked.now,
            amount=plan.amount,
            currency=code,
            game_ref=game_ref,
            escrow=escrow,
            metadata={"operator_id": str(operator.pk)},
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
