"""Registering and unregistering (R14 "Entry", "Leaving", "Responsible gaming").

An entry is paid into the tournament's escrow by the wallet's table cashier, as a seat's
buy-in is: the buy-in plus the fee, in the tournament's currency, with the player's limits,
breaks and play session checked under the wallet's locks (``wallet.services.table_buy_in``);
a seamless player's operator wallet is debited first, outside any transaction, and rolled
back if the entry is refused. Unregistering before the start gives it all back.

Locks: the tournament's row first (tournaments.locks), then the wallet's accounts.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext

from games.problems import ScreenNameRequiredProblem
from games.services.seat_checks import play_check
from gin_platform.audit import audit_record
from gin_platform.enqueue import enqueue_on_commit
from gin_platform.models import Player
from gin_platform.money import PRACTICE_CURRENCY
from gin_platform.tenancy.principals import Actor
from gin_platform.tenancy.selectors import is_network_operator, network_membership_get
from integrity.pairing import linked_pairs
from protection.play import buy_in_check, buy_in_session, wallet_context
from tournaments.locks import lock_tournament
from tournaments.models import Entry, Tournament
from tournaments.problems import (
    LinkedPlayerRegisteredProblem,
    NotRegisteredProblem,
    RegistrationClosedProblem,
    TicketRequiredProblem,
    TournamentFullProblem,
    tournament_not_found,
)
from tournaments.services.events import entry_event, watchers_tell
from wallet import services as wallet
from wallet.problems import WalletUnavailableProblem
from wallet.selectors import limits as wallet_limits
from wallet.selectors import tournaments as wallet_tournaments

START_TASK = "tournaments.tasks.tournament_start"


@dataclass(frozen=True)
class EntryResult:
    entry: Entry
    created: bool  # False: the player was registered already; nothing was charged again


def entry_reference(entry: Entry) -> str:
    return f"tournament-entry:{entry.pk}"


def _payment(*, tournament: Tournament, player: Player, ticket: bool) -> str:
    if ticket:
        return Entry.Payment.TICKET
    return Entry.Payment.CASH if tournament.entry_price else Entry.Payment.FREE


def entry_register(
    *, player: Player, tournament: Tournament, actor: Actor, ticket: bool = False
) -> EntryResult:
    """Register ``player`` (R14 "Entry"): with the entry's price, or a ticket for this
    tournament (``ticket``), or nothing for a freeroll. Registering again returns the entry
    and charges nothing."""
    debit = None
    if (
        not ticket
        and tournament.entry_price
        and wallet.seamless_mode(player=player, currency=tournament.currency)
    ):
        if Entry.objects.filter(
            tournament=tournament, player=player, status__in=Entry.ACTIVE_STATUSES
        ).exists():
            return EntryResult(entry=_active_entry(tournament, player), created=False)
        _entry_checks(player=player, tournament=tournament)  # again under the lock
        debit = wallet.seamless_debit(
            player=player,
            amount=tournament.entry_price,
            currency=tournament.currency,
            purpose=f"buy-in:tournament:{tournament.pk}:{player.pk}",
            actor=actor,
            context=wallet_context(player=player),
        )
    try:
        with transaction.atomic(durable=True):
            result = _entry_register(
                player=player, tournament=tournament, actor=actor, ticket=ticket, debit=debit
            )
    except BaseException as error:
        if debit is not None:
            wallet.seamless_rollback(debit=debit, actor=actor)
            if isinstance(error, WalletUnavailableProblem):
                raise wallet.seamless_debit_unavailable(debit=debit) from None
        raise
    if debit is not None and not result.created:
        wallet.seamless_rollback(debit=debit, actor=actor)
    return result


def _active_entry(tournament: Tournament, player: Player) -> Entry:
    return Entry.objects.get(tournament=tournament, player=player, status__in=Entry.ACTIVE_STATUSES)


def _entry_checks(*, player: Player, tournament: Tournament) -> None:
    """Who may enter: the operator's own players, or a member's at a network tournament
    (screen name, the room offered); never a suspended or banned player (integrity); never
    a player on a break or past a play session's limit (player protection)."""
    network = is_network_operator(tournament.operator_id)
    if player.operator_id != tournament.operator_id and not network:
        raise tournament_not_found()
    play_check(player=player, network=network)
    if network:  # as at network tables (docs/network.md): a member now, by screen name
        membership = network_membership_get(operator=player.operator)
        if membership is None or membership.left_at is not None:
            raise tournament_not_found()
        if not player.screen_name:
            raise ScreenNameRequiredProblem(
                gettext(
                    "Choose a screen name before you enter a network tournament: the other "
                    "players see only that name."
                )
            )
    if tournament.entry_price and tournament.currency != PRACTICE_CURRENCY:
        buy_in_check(player=player)


def _entry_register(
    *, player: Player, tournament: Tournament, actor: Actor, ticket: bool, debit
) -> EntryResult:
    tournament = lock_tournament(tournament.pk)
    existing = Entry.objects.filter(
        tournament=tournament, player=player, status__in=Entry.ACTIVE_STATUSES
    ).first()
    if existing is not None:
        return EntryResult(entry=existing, created=False)
    if tournament.status != Tournament.Status.REGISTERING:
        raise RegistrationClosedProblem(tournament_status=tournament.status)
    _entry_checks(player=player, tournament=tournament)
    registered = list(
        Entry.objects.filter(tournament=tournament, status=Entry.Status.REGISTERED).values_list(
            "player_id", flat=True
        )
    )
    if len(registered) >= tournament.max_entries:
        raise TournamentFullProblem()
    if any(player.pk in pair for pair in linked_pairs(player_ids=[*registered, player.pk])):
        raise LinkedPlayerRegisteredProblem()
    payment = _payment(tournament=tournament, player=player, ticket=ticket)
    last = Entry.objects.filter(tournament=tournament).aggregate(last=Max("number"))["last"]
    entry = Entry.objects.create(
        tournament=tournament,
        player=player,
        number=(last or 0) + 1,
        payment=payment,
        paid=tournament.entry_price if payment != Entry.Payment.FREE else 0,
    )
    if payment != Entry.Payment.FREE:
        entry.entry_reference = entry_reference(entry)
        entry.save(update_fields=["entry_reference"])
        _entry_pay(entry=entry, tournament=tournament, actor=actor, debit=debit)
    audit_record(
        actor=actor,
        action="tournament.registered",
        obj=entry,
        operator=player.operator,
        data={"tournament": tournament.pk, "number": entry.number, "payment": payment},
    )
    entry_event(entry=entry, event_type="tournament.registered")
    watchers_tell(tournament=tournament, change="entries")
    full = len(registered) + 1 == tournament.max_entries
    if tournament.kind == Tournament.Kind.SIT_AND_GO and full:
        enqueue_on_commit(START_TASK, tournament.pk)  # R14: a sit and go starts when full
    return EntryResult(entry=entry, created=True)


def _entry_pay(*, entry: Entry, tournament: Tournament, actor: Actor, debit) -> None:
    """The entry into the tournament's escrow: a ticket, or the buy-in and fee."""
    player = entry.player
    if entry.payment == Entry.Payment.TICKET:
        held = wallet_tournaments.ticket_balance(
            player=player, game_ref=tournament.game_ref, currency=tournament.currency
        )
        if held < tournament.entry_price:
            raise TicketRequiredProblem()
        wallet.ticket_enter(
            player=player,
            tournament_ref=tournament.game_ref,
            amount=tournament.entry_price,
            currency=tournament.currency,
            reference=entry.entry_reference,
            actor=actor,
            escrow_operator=tournament.operator,
        )
        return
    practice = tournament.currency == PRACTICE_CURRENCY
    buy_in = wallet.table_buy_in(
        player=player,
        game_ref=tournament.game_ref,
        amount=tournament.entry_price,
        currency=tournament.currency,
        reference=entry.entry_reference,
        actor=actor,
        escrow_operator=tournament.operator,
        # R14 "Responsible gaming": the loss limits count the buy-in at registration.
        session_loss=None if practice else buy_in_session(player=player),
    )
    if debit is not None:  # the operator's debit now sits in the tournament's escrow
        wallet.seamless_debit_consume(debit=debit, ledger_transaction=buy_in, actor=actor)


def entry_unregister(*, player: Player, tournament: Tournament, actor: Actor) -> Entry:
    """Withdraw before the start (R14 "Leaving"): the entry back in full, buy-in and fee or
    the ticket. Also what a self-exclusion does to a player's registrations."""
    with transaction.atomic(durable=True):
        tournament = lock_tournament(tournament.pk)
        entry = Entry.objects.filter(
            tournament=tournament, player=player, status=Entry.Status.REGISTERED
        ).first()
        if entry is None:
            raise NotRegisteredProblem()
        if tournament.status not in Tournament.OPEN_STATUSES:
            raise RegistrationClosedProblem(tournament_status=tournament.status)
        _withdraw(entry=entry, tournament=tournament, actor=actor, reason="player")
    return entry


def entries_on_a_break_withdraw(*, tournament: Tournament, actor: Actor) -> list[Entry]:
    """R14 "Responsible gaming": a registered player who has since taken a break (a
    self-exclusion or a time-out) is withdrawn and refunded before the start. Inside the
    caller's transaction, under the tournament's lock; the sweep runs it for every tournament
    registering, and the start once more before the draw."""
    registered = list(
        Entry.objects.filter(tournament=tournament, status=Entry.Status.REGISTERED)
        .select_related("player__operator")
        .order_by("number")
    )
    on_a_break = wallet_limits.players_on_a_break(
        player_ids=[entry.player_id for entry in registered], at=timezone.now()
    )
    withdrawn = [entry for entry in registered if entry.player_id in on_a_break]
    for entry in withdrawn:
        _withdraw(entry=entry, tournament=tournament, actor=actor, reason="break")
    return withdrawn


def _withdraw(*, entry: Entry, tournament: Tournament, actor: Actor, reason: str) -> None:
    entry_refund(entry=entry, tournament=tournament, actor=actor)
    entry.status = Entry.Status.UNREGISTERED
    entry.unregistered_at = timezone.now()
    entry.save(update_fields=["status", "unregistered_at", "refund_reference"])
    audit_record(
        actor=actor,
        action="tournament.unregistered",
        obj=entry,
        operator=entry.player.operator,
        data={"tournament": tournament.pk, "number": entry.number, "reason": reason},
    )
    entry_event(entry=entry, event_type="tournament.unregistered")
    watchers_tell(tournament=tournament, change="entries")


def entry_refund(*, entry: Entry, tournament: Tournament, actor: Actor) -> None:
    """Give an entry back in full (unregistering, or a cancellation before any result):
    what it paid comes back as it came (the wallet's refund undoes the buy-in exactly, a
    ticket goes back to the ticket). Sets ``refund_reference``; the caller saves."""
    if entry.payment == Entry.Payment.FREE:
        return
    entry.refund_reference = f"tournament-refund:{entry.pk}"
    if entry.payment == Entry.Payment.TICKET:
        wallet.ticket_refund(
            player=entry.player,
            tournament_ref=tournament.game_ref,
            currency=tournament.currency,
            reference=entry.refund_reference,
            actor=actor,
            escrow_operator=tournament.operator,
        )
        return
    refund = wallet.table_refund(
        player=entry.player,
        game_ref=tournament.game_ref,
        currency=tournament.currency,
        reference=entry.refund_reference,
        actor=actor,
        escrow_operator=tournament.operator,
    )
    wallet.seamless_credits_record(ledger_transaction=refund, actor=actor)
