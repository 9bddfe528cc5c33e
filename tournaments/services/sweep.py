"""The tournaments' beat job: whatever is due and was not done by its own task (docs/
tournaments.md "Exactly once"). Each step is idempotent under the tournament's lock (a
match's void under the match's), so the sweep and a slow task may meet: the second finds
the work done."""

from __future__ import annotations

from datetime import timedelta

from django.db.models import Count, OuterRef, Q, Subquery
from django.utils import timezone

from games.models import Match
from gin_platform.tenancy.principals import Actor
from tournaments.models import BracketTable, Entry, Tournament
from tournaments.services.bracket import due_table_seat
from tournaments.services.creation import registration_open
from tournaments.services.lifecycle import (
    aborted_match_void,
    breaks_withdraw,
    match_result_take,
    tournament_start,
)
from wallet.selectors.limits import players_on_a_break

# A result younger than this is its own taker's (waiting up to 1.5 s for the lock where the
# match ended, then its task): past it, the process that ended the match is taken to be gone.
RESULT_GRACE = timedelta(seconds=3)
ENDED_MATCH = (Match.Status.FINISHED, Match.Status.SETTLED, Match.Status.VOIDED)
OPEN_MATCH = (Match.Status.WAITING, Match.Status.RUNNING, Match.Status.SUSPENDED)


def tournaments_sweep(*, actor: Actor) -> int:
    """Open registration, start what is due, take results no task took, seat the tables no
    process seated, void the matches a cancellation left open that no task voided. Returns
    the steps."""
    now = timezone.now()
    steps = 0
    for tournament in Tournament.objects.filter(
        status=Tournament.Status.ANNOUNCED, registration_opens_at__lte=now
    ):
        registration_open(tournament=tournament, actor=actor)
        steps += 1
    registered = list(
        Entry.objects.filter(
            status=Entry.Status.REGISTERED, tournament__status=Tournament.Status.REGISTERING
        ).values_list("tournament_id", "player_id")
    )
    on_a_break = players_on_a_break(player_ids=[player for _, player in registered], at=now)
    for tournament_id in sorted({t for t, player in registered if player in on_a_break}):
        steps += len(breaks_withdraw(tournament_id=tournament_id, actor=actor))
    due = Tournament.objects.filter(status=Tournament.Status.REGISTERING).filter(
        Q(kind=Tournament.Kind.SCHEDULED, starts_at__lte=now)
        | Q(kind=Tournament.Kind.SIT_AND_GO, max_entries__lte=_registered())
    )
    for tournament_id in due.values_list("pk", flat=True):
        tournament_start(tournament_id=tournament_id, actor=actor)
        steps += 1
    stranded = (
        BracketTable.objects.filter(
            status=BracketTable.Status.PLAYING, match__status__in=ENDED_MATCH
        )
        .filter(
            Q(match__finished_at__lte=now - RESULT_GRACE) | Q(match__status=Match.Status.VOIDED)
        )
        .values_list("match_id", flat=True)
    )
    for match_id in list(stranded):
        steps += bool(match_result_take(match_id=match_id, actor=actor))
    # A table due is seated after its result's commit, where the result was taken: one left
    # due was lost with that process (killed between the two commits). Its seater, if still
    # at work, holds the table's lock, and this finds it seated.
    left_due = BracketTable.objects.filter(
        status=BracketTable.Status.PENDING, tournament__status=Tournament.Status.RUNNING
    ).exclude(entries=[])
    for table_id in list(left_due.values_list("pk", flat=True)):
        steps += bool(due_table_seat(table_id=table_id, actor=actor))
    left_open = BracketTable.objects.filter(
        status=BracketTable.Status.ABORTED,
        match__status__in=OPEN_MATCH,
        finished_at__lte=now - RESULT_GRACE,  # younger: its own task is on its way
    ).values_list("match_id", flat=True)
    for match_id in list(left_open):
        steps += bool(aborted_match_void(match_id=match_id, actor=actor))
    return steps


def _registered() -> Subquery:
    """A tournament's registered entries, as a column of the query over tournaments."""
    return Subquery(
        Entry.objects.filter(tournament=OuterRef("pk"), status=Entry.Status.REGISTERED)
        .values("tournament")
        .annotate(count=Count("pk"))
        .values("count")[:1]
    )
