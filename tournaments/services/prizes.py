"""Places and prizes (R14 "Prizes"): each round's places paid once the round has ended,
the final's with the end of the tournament, then the fees to the owner and the seed
revealed. One balanced ledger transaction per step, its reference naming the step, so a
step run twice posts once (the wallet's replay guard), and the entries' rows say what was
paid by which reference.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db.models import Sum
from django.utils import timezone

from gin_platform.audit import audit_record
from gin_platform.money import money_dict
from gin_platform.tenancy.principals import Actor
from tournaments import engine
from tournaments.models import BracketTable, Entry, Tournament
from tournaments.services.events import entries_tell, tournament_event, watchers_tell
from wallet import services as wallet


def prize_table_of(tournament: Tournament) -> tuple[int, ...]:
    if tournament.prize_table:
        return tuple(tournament.prize_table)
    return engine.default_prize_table(entries=tournament.field)


def round_places_pay(*, tournament: Tournament, round_number: int, actor: Actor) -> None:
    """Round ``round_number`` has ended (not the final): its players out share the places
    just below the players still in (R14), paid now."""
    tables = BracketTable.objects.filter(tournament=tournament, round=round_number)
    still_in = sum(len(table.advancing) for table in tables)
    out = list(
        Entry.objects.filter(tournament=tournament, round_out=round_number)
        .select_related("player__operator")
        .order_by("number")
    )
    if not out:
        return
    group = engine.places_of_round(eliminated=out, still_in=still_in)
    # With nobody still in (everybody left was absent) these are places 1 to k: nobody wins
    # (R14 "Absence"); the empty tables after them lead to the final, which ends it.
    _places_pay(
        tournament=tournament, groups=[group], reference=f"round-{round_number}", actor=actor
    )


def final_places_pay(*, tournament: Tournament, final: BracketTable, actor: Actor) -> None:
    """The final has ended: its ranking takes places 1, 2, ...; absent finalists share the
    places after them; then the tournament finishes."""
    ranked_ids = list(final.advancing)
    entries = {
        entry.pk: entry
        for entry in Entry.objects.filter(pk__in=final.entries).select_related("player__operator")
    }
    ranking = [entries[entry_id] for entry_id in ranked_ids]
    absent = sorted(
        (entry for entry_id, entry in entries.items() if entry_id not in ranked_ids),
        key=lambda entry: entry.number,
    )
    if ranking:  # the others of the final are out already (bracket.table_result_record)
        winner = ranking[0]
        winner.status = Entry.Status.WON
        winner.save(update_fields=["status"])
    if ranking or absent:
        groups = engine.places_of_final(ranking=ranking, absent=absent)
        _places_pay(tournament=tournament, groups=list(groups), reference="final", actor=actor)
    tournament_finish(tournament=tournament, actor=actor)


def _places_pay(
    *,
    tournament: Tournament,
    groups: Sequence[engine.PlaceGroup[Entry]],
    reference: str,
    actor: Actor,
) -> None:
    """Give each group its places and pay their prizes in one posting."""
    amounts, tickets = _prizes(tournament=tournament, groups=groups)
    target = tournament.satellite_for
    posting_reference = f"tournament-prize:{tournament.pk}:{reference}"
    payable = [
        wallet.TournamentPrize(
            player=entry.player,
            amount=amount,
            ticket_for=target.game_ref if target is not None and entry in tickets else None,
        )
        for entry, amount in amounts.items()
        if amount > 0
    ]
    if payable:  # the wallet records a seamless player's credit in the same posting
        wallet.tournament_prizes_pay(
            game_ref=tournament.game_ref,
            currency=tournament.currency,
            prizes=payable,
            reference=posting_reference,
            actor=actor,
            escrow_operator=tournament.operator,
        )
    placed = [entry for group in groups for entry in group.players]
    for group in groups:
        for entry in group.players:
            entry.place_from, entry.place_to = group.first_place, group.last_place
            entry.prize = amounts[entry]
            entry.prize_ticket = entry in tickets
            entry.prize_reference = posting_reference if amounts[entry] else ""
    # One UPDATE and one INSERT of events for the whole round: one by one, a round of 512
    # players out took seconds under the tournament's lock.
    Entry.objects.bulk_update(
        placed, ["place_from", "place_to", "prize", "prize_ticket", "prize_reference"]
    )
    entries_tell(
        entries=placed,
        event_type="tournament.prize_paid",
        data_of=lambda entry: {
            "prize": money_dict(amounts[entry], tournament.currency),
            "place_from": entry.place_from,
            "place_to": entry.place_to,
        },
    )
    watchers_tell(tournament=tournament, change="places")
    audit_record(
        actor=actor,
        action="tournament.places_paid",
        obj=tournament,
        operator=tournament.operator,
        data={"step": reference, "prizes": {str(e.pk): a for e, a in amounts.items()}},
    )


def _prizes(
    *, tournament: Tournament, groups: Sequence[engine.PlaceGroup[Entry]]
) -> tuple[dict[Entry, int], set[Entry]]:
    """Each player's prize (minor units) and who wins a ticket: a satellite's are its
    target's tickets, else the prize table's shares of the pool."""
    target = tournament.satellite_for
    if target is None:
        amounts = engine.prize_amounts(
            pool=tournament.prize_pool,
            table_bps=prize_table_of(tournament),
            entries=tournament.field,
            groups=groups,
        )
        return amounts, set()
    won = engine.satellite_prizes(
        pool=tournament.prize_pool,
        ticket_value=target.entry_price,
        entries=tournament.field,
        groups=groups,
    )
    amounts = {
        entry: target.entry_price if ticket else money for entry, (ticket, money) in won.items()
    }
    return amounts, {entry for entry, (ticket, _) in won.items() if ticket}


def fees_of(tournament: Tournament) -> int:
    """The entry fees the escrow holds: every paid entry's (a ticket's value includes it)."""
    paid = Entry.objects.filter(tournament=tournament, draw_position__isnull=False).exclude(
        payment=Entry.Payment.FREE
    )
    return paid.count() * tournament.entry_fee


def fees_take(*, tournament: Tournament, actor: Actor) -> None:
    fees = fees_of(tournament)
    if fees:
        wallet.tournament_fee_take(
            game_ref=tournament.game_ref,
            currency=tournament.currency,
            amount=fees,
            reference=f"tournament-fee:{tournament.pk}",
            actor=actor,
            escrow_operator=tournament.operator,
        )


def tournament_finish(*, tournament: Tournament, actor: Actor) -> None:
    """Every place is paid: the fees go to the owner, the seed is revealed (R14)."""
    if tournament.status != Tournament.Status.RUNNING:
        return
    fees_take(tournament=tournament, actor=actor)
    tournament.status = Tournament.Status.FINISHED
    tournament.ended_at = timezone.now()
    tournament.save(update_fields=["status", "ended_at"])
    audit_record(
        actor=actor,
        action="tournament.finished",
        obj=tournament,
        operator=tournament.operator,
        data={"seed": tournament.seed, "prizes_paid": prizes_paid(tournament)},
    )
    tournament_event(
        tournament=tournament,
        event_type="tournament.finished",
        data=ended_data(tournament),
    )
    watchers_tell(tournament=tournament, change="finished")


def prizes_paid(tournament: Tournament) -> int:
    total = Entry.objects.filter(tournament=tournament).aggregate(paid=Sum("prize"))["paid"]
    return int(total or 0)


def ended_data(tournament: Tournament) -> dict:
    return {
        "status": tournament.status,
        "reason": tournament.cancel_reason,
        "seed": tournament.seed,
        "ended_at": tournament.ended_at,
    }
