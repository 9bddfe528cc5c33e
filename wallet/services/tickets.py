"""Tournament tickets (R14; docs/wallet.md "Tournaments"): a player's ticket to one
tournament is a ``ticket`` account of its own (its ``game_ref`` the tournament's, on the
books of the player's operator, never negative). It is granted by the operator (from its
promotion account: a promotion cost) or won in a satellite (``tournament_prizes_pay`` with
``ticket_for``), pays an entry into the tournament's escrow, comes back to the ticket when
the entry is refunded, and an unused one may expire back to the promotion account.

Each posting is one balanced transaction planned by a pure function
(wallet/services/plans/tournament.py), idempotent by its reference, refused with nothing
posted. A ticket is never converted: it is in the tournament's currency.
"""

from __future__ import annotations

from django.db import transaction

from gin_platform.models import Operator, Player
from gin_platform.tenancy.principals import Actor
from wallet.amounts import parse_currency
from wallet.ledger.checks import (
    check_active,
    check_amount,
    check_funds,
    check_game_ref,
    check_reference,
)
from wallet.ledger.keys import ticket_key
from wallet.ledger.lines import lines_on
from wallet.ledger.post import LedgerInvariantError, post
from wallet.ledger.replay import posting_replay, reference_guard
from wallet.ledger.skeleton import Locked, posting_make
from wallet.models import Account, LedgerEntry, LedgerTransaction
from wallet.problems import EscrowSettledProblem
from wallet.selectors import balances as balance_selectors
from wallet.selectors import postings as posting_selectors
from wallet.selectors import tournaments as tournament_selectors
from wallet.services.network import check_network_escrow
from wallet.services.plans.escrow import refund_plan
from wallet.services.plans.tournament import (
    ticket_entry_plan,
    ticket_expiry_plan,
    ticket_grant_plan,
)
from wallet.services.responsible_gaming import check_no_break
from wallet.services.tournament import tournament_escrow_or_replay

Kind = LedgerTransaction.Kind


@reference_guard
@transaction.atomic
def ticket_grant(
    *,
    player: Player,
    tournament_ref: str,
    amount: int,
    currency: str,
    reference: str,
    actor: Actor,
) -> LedgerTransaction:
    """Grant the player a ticket worth ``amount`` (minor units of ``currency``, the
    tournament's) to the tournament ``tournament_ref``: from their operator's promotion
    account (the player's shard; it may go negative: the operator's spend) into the player's
    ticket, kind ``ticket_grant``. A second grant adds to the same ticket.

    Refused, nothing posted: an inactive player, a player on a break (``self-excluded``,
    ``timed-out``: no promotion reaches them), the amount's and references' checks."""
    code = parse_currency(currency)
    check_amount(amount)
    game_ref = check_game_ref(tournament_ref)
    reference = check_reference(reference)
    plan = ticket_grant_plan(
        player_id=player.pk,
        operator_id=player.operator_id,
        game_ref=game_ref,
        currency=code,
        amount=amount,
    )

    def rules(locked: Locked) -> LedgerTransaction:
        check_active(player)
        check_no_break(player=player, at=locked.now)
        return post(
            locked=locked.accounts,
            operator=player.operator,
            kind=Kind.TICKET_GRANT,
            reference=reference,
            lines=lines_on(plan.lines, locked.by_key(plan.keys)),
            actor=actor,
            now=locked.now,
            amount=amount,
            currency=code,
            player=player,
            game_ref=game_ref,
        )

    return posting_make(
        reference=reference,
        same={
            "kind": Kind.TICKET_GRANT,
            "player": player,
            "game_ref": game_ref,
            "amount": amount,
            "currency": code,
        },
        keys=plan.keys,
        rules=rules,
    )


@reference_guard
@transaction.atomic
def ticket_enter(
    *,
    player: Player,
    tournament_ref: str,
    amount: int,
    currency: str,
    reference: str,
    actor: Actor,
    escrow_operator: Operator | None = None,
) -> LedgerTransaction:
    """Pay the player's entry into the tournament's escrow with their ticket to it: ``amount``
    (the entry's worth: buy-in and fee) from the ticket into the escrow of
    ``tournament_ref``, kind ``ticket_entry``. ``escrow_operator`` owns the escrow (None: the
    player's operator); the network's escrow takes the ticket's value across the positions,
    like a buy-in's stake. What is left on the ticket stays on it.

    Refused, nothing posted: an inactive player, a break (``self-excluded``, ``timed-out``:
    a self-excluded player cannot register), a ticket worth less (``insufficient-funds``),
    another operator's escrow (``escrow-operator-mismatch``), a settled one. The loss limit
    does not count it: a ticket is not the player's money."""
    code = parse_currency(currency)
    check_amount(amount)
    game_ref = check_game_ref(tournament_ref)
    reference = check_reference(reference)
    owner = player.operator if escrow_operator is None else escrow_operator
    plan = ticket_entry_plan(
        player_id=player.pk,
        operator_id=player.operator_id,
        escrow_operator_id=owner.pk,
        game_ref=game_ref,
        currency=code,
        amount=amount,
        crosses=check_network_escrow(
            player_operator_id=player.operator_id, escrow_operator_id=owner.pk
        ),
    )
    ticket = ticket_key(
        player_id=player.pk, operator_id=player.operator_id, game_ref=game_ref, currency=code
    )
    escrow_key = plan.escrow
    if escrow_key is None:  # pragma: no cover - an entry's plan names its escrow
        raise LedgerInvariantError("an entry without its escrow")

    def rules(locked: Locked) -> LedgerTransaction:
        rows = locked.by_key(plan.keys)
        check_active(player)
        check_no_break(player=player, at=locked.now)
        if balance_selectors.escrow_is_settled(escrow=rows[escrow_key]):
            raise EscrowSettledProblem(f"the escrow of {game_ref} is already settled")
        check_funds(rows[ticket], amount)
        return post(
            locked=locked.accounts,
            operator=owner,
            kind=Kind.TICKET_ENTRY,
            reference=reference,
            lines=lines_on(plan.lines, rows),
            actor=actor,
            now=locked.now,
            amount=amount,
            currency=code,
            player=player,
            game_ref=game_ref,
            escrow=rows[escrow_key],
        )

    return posting_make(
        reference=reference,
        same={
            "kind": Kind.TICKET_ENTRY,
            "player": player,
            "game_ref": game_ref,
            "amount": amount,
            "currency": code,
        },
        keys=plan.keys,
        rules=rules,
    )


@reference_guard
@transaction.atomic
def ticket_refund(
    *,
    player: Player,
    tournament_ref: str,
    currency: str,
    reference: str,
    actor: Actor,
    escrow_operator: Operator | None = None,
) -> LedgerTransaction:
    """Give the player's entry paid with a ticket back to the ticket (unregistering, or a
    tournament cancelled before any match finished), kind ``ticket_refund``: the player's
    ticket entries (and their refunds and reversals since) undone account by account, as
    ``table_refund`` undoes buy-ins (a network escrow's through the same positions). A cash
    entry is ``table_refund``'s. Never blocked by breaks or status.

    Refused, nothing posted: no ticket entry left in the escrow (``nothing-to-refund``), no
    escrow, another operator's than ``escrow_operator`` (None: the player's), a settled
    one."""
    code = parse_currency(currency)
    game_ref = check_game_ref(tournament_ref)
    reference = check_reference(reference)
    same = {"kind": Kind.TICKET_REFUND, "player": player, "game_ref": game_ref, "currency": code}
    escrow = tournament_escrow_or_replay(
        same=same,
        reference=reference,
        escrow_operator=player.operator if escrow_operator is None else escrow_operator,
    )
    if isinstance(escrow, LedgerTransaction):
        return escrow
    entries = balance_selectors.player_contribution_transactions(
        escrow=escrow, player=player, kinds=balance_selectors.TICKET_ENTRY_KINDS
    )
    own_lines = LedgerEntry.objects.filter(transaction__in=entries, player=player)
    accounts = Account.objects.filter(
        pk__in={escrow.pk, *own_lines.values_list("account_id", flat=True)}
    )

    def rules(locked: Locked) -> LedgerTransaction:
        if locked.reads.settled:
            raise EscrowSettledProblem(f"the escrow of {game_ref} is already settled")
        lines = list(own_lines.values_list("account_id", "account__kind", "amount"))
        if any(pk not in locked.accounts for pk, _, _ in lines):  # pragma: no cover - same shard
            raise LedgerInvariantError(f"a ticket entry into {game_ref} changed accounts under us")
        plan = refund_plan(
            contributions=lines, escrow_id=escrow.pk, player_id=player.pk, game_ref=game_ref
        )
        return post(
            locked=locked.accounts,
            operator=escrow.operator,
            kind=Kind.TICKET_REFUND,
            reference=reference,
            lines=lines_on(plan.lines, locked.accounts),
            actor=actor,
            now=locked.now,
            amount=plan.amount,
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


@reference_guard
@transaction.atomic
def ticket_expire(
    *, player: Player, tournament_ref: str, currency: str, reference: str, actor: Actor
) -> LedgerTransaction | None:
    """Expire the player's unused ticket to ``tournament_ref``: its whole worth back to their
    operator's promotion account (the player's shard, as the grant), kind
    ``ticket_expiry``. A ticket worth nothing (or none at all) posts nothing and returns
    None; the same reference again returns the first expiry. Never blocked by breaks or
    status."""
    code = parse_currency(currency)
    game_ref = check_game_ref(tournament_ref)
    reference = check_reference(reference)
    same = {"kind": Kind.TICKET_EXPIRY, "player": player, "game_ref": game_ref, "currency": code}
    if (existing := posting_replay(reference=reference, same=same)) is not None:
        return existing
    held = tournament_selectors.ticket_account(player=player, game_ref=game_ref, currency=code)
    if held is None or held.balance <= 0:
        return None
    # Its accounts (the promotion account of the player's shard, the ticket); the ticket's
    # worth is read again under the locks.
    seen = ticket_expiry_plan(
        player_id=player.pk,
        operator_id=player.operator_id,
        game_ref=game_ref,
        currency=code,
        amount=held.balance,
    )

    ticket = ticket_key(
        player_id=player.pk, operator_id=player.operator_id, game_ref=game_ref, currency=code
    )

    def rules(locked: Locked) -> LedgerTransaction | None:
        rows = locked.by_key(seen.keys)
        worth = rows[ticket].balance
        if worth <= 0:  # entered or expired meanwhile
            return None
        plan = ticket_expiry_plan(
            player_id=player.pk,
            operator_id=player.operator_id,
            game_ref=game_ref,
            currency=code,
            amount=worth,
        )
        return post(
            locked=locked.accounts,
            operator=player.operator,
            kind=Kind.TICKET_EXPIRY,
            reference=reference,
            lines=lines_on(plan.lines, rows),
            actor=actor,
            now=locked.now,
            amount=worth,
            currency=code,
            player=player,
            game_ref=game_ref,
        )

    return posting_make(reference=reference, same=same, keys=seen.keys, rules=rules)
