"""The start and the end of a tournament (R14): the draw, the prize pool and the first round;
a match's result taken to the bracket; a cancellation, and the matches it leaves open ended.

Each is one durable transaction under the tournament's lock, idempotent by the tournament's
status (or the table's), run by a task the moment it is due and found again by the beat's
sweep if its message or worker is lost (tournaments/tasks.py): a tournament never waits for
a human. A cancellation is atomic instead, so that staff's approval (four eyes) runs it
inside its own transaction, under the request's lock.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from games.models import Match
from games.services.tournament_matches import tournament_match_void
from gin_platform.audit import audit_record
from gin_platform.enqueue import enqueue_on_commit
from gin_platform.money import money_dict
from gin_platform.tenancy.principals import Actor
from ratings.models import family_of
from ratings.selectors import ratings_of
from tournaments import engine
from tournaments.locks import (
    TournamentLockBusy,
    lock_tournament,
    lock_tournament_for_results,
    lock_tournament_waiting,
)
from tournaments.models import BracketTable, Entry, Tournament
from tournaments.services.bracket import first_round_seat, shape_of, table_result_record
from tournaments.services.events import entry_event, tournament_event, watchers_tell
from tournaments.services.prizes import ended_data, fees_take, prizes_paid
from tournaments.services.registration import entries_on_a_break_withdraw, entry_refund
from wallet import services as wallet

Status = Tournament.Status
# Queued by name after the cancellation's commit, one per open table (a service never
# imports its tasks); the sweep finds any whose message or worker was lost.
MATCH_VOID_TASK = "tournaments.tasks.aborted_match_void"
CANCELLED_MATCH = "tournament_cancelled"  # games' reason for the void (game.voided)
SEED_RATING_PLACES = 2  # a seed rating is kept as ratings are shown (docs/ratings.md "API")


def tournament_start(*, tournament_id: int, actor: Actor) -> Tournament:
    """Start a tournament that is due: a full sit and go, or a scheduled one at its time.
    With fewer than ``min_entries`` it is cancelled and every entry refunded (R14)."""
    with transaction.atomic(durable=True):
        tournament = lock_tournament(tournament_id)
        if tournament.status != Status.REGISTERING:
            return tournament
        entries_on_a_break_withdraw(tournament=tournament, actor=actor)
        entries = list(
            Entry.objects.filter(tournament=tournament, status=Entry.Status.REGISTERED)
            .select_related("player__operator")
            .order_by("number")
        )
        due = len(entries) == tournament.max_entries or (
            tournament.kind == Tournament.Kind.SCHEDULED
            and tournament.starts_at is not None
            and tournament.starts_at <= timezone.now()
        )
        if not due:
            return tournament
        if len(entries) < tournament.min_entries:
            _cancel(tournament=tournament, reason="too_few_entries", actor=actor)
            return tournament
        _draw_and_seat(tournament=tournament, entries=entries, actor=actor)
    return tournament


def _seed_ratings(*, tournament: Tournament, entries: list[Entry]) -> dict[Entry, float]:
    """R14 seeded by rating: each entry's rating in the family of the tournament's first
    round (R15; the start, 1500, for a player never rated in it), to 2 decimals as every
    rating is shown, so the published figures replay the seeding exactly (one query)."""
    family = family_of(variant=tournament.round_setting(1)["variant"], seat_count=tournament.seats)
    found = ratings_of(player_ids=[entry.player_id for entry in entries], family=family)
    return {entry: round(found[entry.player_id].rating, SEED_RATING_PLACES) for entry in entries}


def _draw_and_seat(*, tournament: Tournament, entries: list[Entry], actor: Actor) -> None:
    now = timezone.now()
    tournament.field = len(entries)
    shape = shape_of(tournament)
    seeded = tournament.seeding == Tournament.Seeding.RATING
    ratings = _seed_ratings(tournament=tournament, entries=entries) if seeded else None
    drawn, first_tables = engine.bracket_opening(  # registration order in
        shape, seed=tournament.seed, entries=entries, ratings=ratings
    )
    for position, entry in enumerate(drawn, 1):
        entry.draw_position = position
        entry.seed_rating = ratings[entry] if ratings is not None else None
        entry.status = Entry.Status.IN
    Entry.objects.bulk_update(drawn, ["draw_position", "seed_rating", "status"])
    buy_ins = sum(tournament.buy_in for entry in entries if entry.payment != Entry.Payment.FREE)
    overlay = max(0, tournament.guaranteed - buy_ins)
    if overlay:
        wallet.tournament_overlay_add(
            game_ref=tournament.game_ref,
            currency=tournament.currency,
            amount=overlay,
            operator=tournament.operator,
            reference=f"tournament-overlay:{tournament.pk}",
            actor=actor,
        )
    tournament.overlay = overlay
    tournament.prize_pool = buy_ins + overlay
    tournament.rounds = shape.rounds
    tournament.status = Status.RUNNING
    tournament.started_at = now
    tournament.save(
        update_fields=["field", "overlay", "prize_pool", "rounds", "status", "started_at"]
    )
    BracketTable.objects.bulk_create(
        BracketTable(tournament=tournament, round=round_number, number=number)
        for round_number, count in enumerate(shape.tables, 1)
        for number in range(1, count + 1)
    )
    audit_record(
        actor=actor,
        action="tournament.started",
        obj=tournament,
        operator=tournament.operator,
        data={
            "entries": tournament.field,
            "draw": [entry.number for entry in drawn],
            "seeding": tournament.seeding,
            "seed_ratings": [entry.seed_rating for entry in drawn] if seeded else None,
            "prize_pool": tournament.prize_pool,
            "overlay": overlay,
        },
    )
    tournament_event(
        tournament=tournament,
        event_type="tournament.started",
        data={
            "entries": tournament.field,
            "rounds": tournament.rounds,
            "prize_pool": money_dict(tournament.prize_pool, tournament.currency),
            "overlay": money_dict(overlay, tournament.currency),
            "started_at": now,
        },
    )
    watchers_tell(
        tournament=tournament,
        change="started",
        tables=BracketTable.objects.filter(tournament=tournament),
    )
    first = BracketTable.objects.filter(tournament=tournament, round=1).order_by("number")
    first_round_seat(
        tournament=tournament,
        tables=list(zip(first, first_tables, strict=True)),
        actor=actor,
    )


def breaks_withdraw(*, tournament_id: int, actor: Actor) -> list[Entry]:
    """Withdraw and refund the registered players who have taken a break since (R14)."""
    with transaction.atomic(durable=True):
        tournament = lock_tournament(tournament_id)
        if tournament.status not in Tournament.OPEN_STATUSES:
            return []
        return entries_on_a_break_withdraw(tournament=tournament, actor=actor)


def match_result_take(*, match_id: int, actor: Actor) -> bool:
    """A games match has ended: if it is a tournament's table, take its result to the
    bracket (seating what it feeds, paying a round that ended). Idempotent; True when this
    call recorded it. A match voided by R13 (interrupted past the limit) cancels the
    tournament (R14 "Cancellation"), under the exclusive lock (a cancellation waits for the
    seatings at work); any other result under the results' lock, beside the seatings. An
    ended match's status is final, so it is read before the lock."""
    table = BracketTable.objects.filter(match_id=match_id).only("tournament_id").first()
    if table is None:
        return False
    voided = Match.objects.filter(pk=match_id, status=Match.Status.VOIDED).exists()
    with transaction.atomic(durable=True):
        if voided:
            tournament = lock_tournament(table.tournament_id)
        else:
            tournament = lock_tournament_for_results(table.tournament_id)
        table = BracketTable.objects.select_related("match").get(pk=table.pk)
        if tournament.status != Status.RUNNING or table.match is None:
            return False
        if table.match.status == Match.Status.VOIDED:
            if not voided:  # voided since it was read: the sweep cancels, with the right lock
                return False
            _cancel(tournament=tournament, reason="interrupted", actor=actor)
            return True
        return table_result_record(
            tournament=tournament, table=table, match=table.match, actor=actor
        )


def results_take(*, match_id: int, actor: Actor) -> bool:
    """``match_result_take`` where a match ended (the move or the timer that ended it, after
    its commit): waits for the tournament's lock at most ``RESULT_LOCK_WAIT``, then takes
    every result of the tournament that has come in, its own among them, in bracket order.
    Takers whose matches ended together wait in line behind one holder and mostly find their
    result taken by it; False when the wait ran out (a start, a round's prizes under the
    lock) or a voided match came in (only the task's exclusive lock cancels), and the caller
    queues the task. Results are never left in a worker's queue behind
    settlements while their lock is free: a 1,024-entry run waited 18 s at the median for its
    next table when every result went through the queue, and 11-14 s at p99 when a taker
    finding the lock held queued its task rather than waiting."""
    table = BracketTable.objects.filter(match_id=match_id).only("tournament_id").first()
    if table is None:
        return True  # not a tournament's: nothing to take
    try:
        with transaction.atomic(durable=True):
            tournament = lock_tournament_waiting(table.tournament_id, seconds=RESULT_LOCK_WAIT)
            if tournament.status != Status.RUNNING:
                return True
            return _results_in_take(tournament=tournament, actor=actor)
    except TournamentLockBusy:
        return False


# How long a match's end waits for its tournament's lock before leaving its result to the
# task: longer than a round's results take (tens of ms each), shorter than a player would
# notice on the move that ended the match.
RESULT_LOCK_WAIT = 1.5


def _ended_tables(*, tournament_id: int) -> QuerySet[BracketTable]:
    """The tournament's tables still playing whose match has ended: results come in."""
    return BracketTable.objects.filter(
        tournament_id=tournament_id,
        status=BracketTable.Status.PLAYING,
        match__status__in=(Match.Status.FINISHED, Match.Status.SETTLED, Match.Status.VOIDED),
    )


def _results_in_take(*, tournament: Tournament, actor: Actor) -> bool:
    """Every table of the tournament (locked for results) still playing whose match has
    ended, taken in bracket order, and again for those that ended while these were taken
    (their own takers found the lock held). A voided match cancels the tournament (R14),
    which needs the exclusive lock (seatings running beside a results' take must be waited
    for): the take stops there, False, and the voided match's own task (or the sweep)
    cancels under ``match_result_take``'s lock."""
    for _ in range(RESULT_PASSES):
        ended = list(
            _ended_tables(tournament_id=tournament.pk)
            .select_related("match")
            .order_by("round", "number")
        )
        if not ended:
            return True
        for table in ended:
            assert table.match is not None  # filtered on its status
            if table.match.status == Match.Status.VOIDED:
                return False
            table_result_record(tournament=tournament, table=table, match=table.match, actor=actor)
    return True


RESULT_PASSES = 4


def tournament_cancel(*, tournament_id: int, reason: str, actor: Actor) -> Tournament:
    """Cancel (R14): before any result every entry back in full and the overlay back to the
    owner; after one, the players still in share the pool not yet paid, places paid stand.
    The matches still open are ended after the commit (``aborted_match_void``). Atomic:
    staff cancel through four eyes, and the approval runs this inside its transaction."""
    with transaction.atomic():
        tournament = lock_tournament(tournament_id)
        if tournament.status not in Tournament.ENDED_STATUSES:
            _cancel(tournament=tournament, reason=reason, actor=actor)
    return tournament


def _cancel(*, tournament: Tournament, reason: str, actor: Actor) -> None:
    if tournament.first_result_at is None:
        _refund_all(tournament=tournament, actor=actor)
    else:
        _share_the_rest(tournament=tournament, actor=actor)
        fees_take(tournament=tournament, actor=actor)
    tournament.status = Status.CANCELLED
    tournament.cancel_reason = reason
    tournament.ended_at = timezone.now()
    tournament.save(update_fields=["status", "cancel_reason", "ended_at"])
    aborted = _open_tables_abort(tournament)
    audit_record(
        actor=actor,
        action="tournament.cancelled",
        obj=tournament,
        operator=tournament.operator,
        data={"reason": reason, "seed": tournament.seed, "aborted_matches": aborted},
    )
    tournament_event(
        tournament=tournament, event_type="tournament.cancelled", data=ended_data(tournament)
    )
    watchers_tell(
        tournament=tournament,
        change="cancelled",
        tables=BracketTable.objects.filter(tournament=tournament, match_id__in=aborted),
    )


def _open_tables_abort(tournament: Tournament) -> list[int]:
    """Mark the tables still playing ``aborted`` (their results will never be taken) and
    queue, after the commit, the void of each one's match: a match of a cancelled tournament
    must not run on (or wait for its players) for nothing. Their matches' ids."""
    playing = BracketTable.objects.filter(
        tournament=tournament, status=BracketTable.Status.PLAYING
    ).order_by("round", "number")
    match_ids = [match_id for match_id in playing.values_list("match_id", flat=True) if match_id]
    playing.update(status=BracketTable.Status.ABORTED, finished_at=timezone.now())
    for match_id in match_ids:
        enqueue_on_commit(MATCH_VOID_TASK, match_id)
    return match_ids


def aborted_match_void(*, match_id: int, actor: Actor) -> bool:
    """End the match of a table its tournament's cancellation aborted (games voids it: its
    seats released, its players told, nothing posted). Idempotent: a match that ended
    already (a result, a void, this very call before) is left alone; True when this call
    voided it. The task runs it after the cancellation's commit, the sweep if it was lost."""
    aborted = BracketTable.objects.filter(
        match_id=match_id, status=BracketTable.Status.ABORTED
    ).exists()
    if not aborted:
        return False
    return tournament_match_void(match_id=match_id, reason=CANCELLED_MATCH, actor=actor)


def _refund_all(*, tournament: Tournament, actor: Actor) -> None:
    for entry in Entry.objects.filter(
        tournament=tournament, status__in=Entry.ACTIVE_STATUSES
    ).select_related("player__operator"):
        entry_refund(entry=entry, tournament=tournament, actor=actor)
        entry.status = Entry.Status.REFUNDED
        entry.save(update_fields=["status", "refund_reference"])
        entry_event(entry=entry, event_type="tournament.unregistered")
    watchers_tell(tournament=tournament, change="entries")
    if tournament.overlay:
        wallet.tournament_overlay_return(
            game_ref=tournament.game_ref,
            currency=tournament.currency,
            operator=tournament.operator,
            reference=f"tournament-overlay-return:{tournament.pk}",
            actor=actor,
        )


def _share_the_rest(*, tournament: Tournament, actor: Actor) -> None:
    """The players still in share the prize pool not yet paid equally (R14); a remainder
    goes one unit each to the earlier registrations."""
    still_in = list(
        Entry.objects.filter(tournament=tournament, status=Entry.Status.IN)
        .select_related("player__operator")
        .order_by("number")
    )
    if not still_in:
        return
    rest = tournament.prize_pool - prizes_paid(tournament)
    each, left = divmod(rest, len(still_in))
    prizes = [
        wallet.TournamentPrize(player=entry.player, amount=each + (1 if index < left else 0))
        for index, entry in enumerate(still_in)
    ]
    reference = f"tournament-prize:{tournament.pk}:cancelled"
    posted = [prize for prize in prizes if prize.amount > 0]
    if posted:  # the wallet records a seamless player's credit in the same posting
        wallet.tournament_prizes_pay(
            game_ref=tournament.game_ref,
            currency=tournament.currency,
            prizes=posted,
            reference=reference,
            actor=actor,
            escrow_operator=tournament.operator,
        )
    for entry, prize in zip(still_in, prizes, strict=True):
        entry.place_from, entry.place_to = 1, len(still_in)
        entry.prize = prize.amount
        entry.prize_reference = reference if prize.amount else ""
        entry.save(update_fields=["place_from", "place_to", "prize", "prize_reference"])
