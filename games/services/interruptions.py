"""R13: the platform's own outage never costs a player.

The platform heartbeat (gin_platform/heartbeat.py) records an ``Outage`` when the web tier
could not take moves. Before the turn timer fires anything (``timers.turn_timers_expire``),
``outages_apply`` takes every outage not applied yet, oldest first:

- up to ``GAMES_MAX_INTERRUPTION_SECONDS``: every turn deadline that fell inside it (or was
  due in the timer's latency slack just before it) moves on by its length plus the match's
  ``reconnect_grace_seconds``; no protection is counted, nobody times out because of it;
- of any length: a tournament's match waiting for its players (R14) has its no-show
  deadline moved on the same way, if it fell inside;
- longer: every match it touched (running when it ended, started before it ended) is
  suspended in the very transaction that recorded the outage (``matches_suspend``, the
  heartbeat's ``outage_recorded`` signal: no move reaches it from then on), then voided
  (``match_void``): the hand abandoned, every stake or cashier amount given back in one
  balanced ledger transaction with no fee (``wallet.escrow_void``; a tournament's match,
  R14, has no escrow: nothing to give back), the match ``voided``, ``game.voided`` for the
  operators and ``games.signals.match_voided`` after the commit.

Exactly once: the outage row is locked (skip locked: one sweep applies it) and marked applied
in the transaction that shifted the deadlines; voids run one match per transaction, each
under the match's lock and status (a voided match is not running any more), with the unique
ledger reference ``void:match:<id>``; the outage is marked applied once no touched match is
left running, so a worker killed mid-way leaves the rest to the next sweep.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from functools import partial
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from games.locks import lock_current_hand, lock_match
from games.models import Hand, HandEvent, Match, Seat
from games.realtime import publisher, view_cache
from games.services.hand_lifecycle import hand_abandon
from games.services.network import match_event_enqueue
from games.signals import match_voided
from gin_platform.audit import audit_record
from gin_platform.enqueue import on_commit_logged
from gin_platform.heartbeat import outages_unapplied
from gin_platform.locks import lock_outage
from gin_platform.models import Outage
from gin_platform.tenancy.principals import Actor
from wallet import services as wallet
from wallet.problems import NothingToVoidProblem

if TYPE_CHECKING:
    from wallet.models import LedgerTransaction

logger = logging.getLogger(__name__)

OUTAGE_ACTOR = Actor.system("platform-outage")


def max_interruption() -> timedelta:
    return timedelta(seconds=settings.GAMES_MAX_INTERRUPTION_SECONDS)


def outages_apply() -> int:
    """Apply every outage not applied yet (oldest first); how many were applied now."""
    applied = 0
    for outage in outages_unapplied():
        if outage.ended_at - outage.started_at > max_interruption():
            for match_id in _touched_matches(outage):
                match_void(match_id=match_id, outage_id=outage.pk)
        if _outage_close(outage.pk):
            applied += 1
    return applied


def _touched(outage: Outage) -> QuerySet[Match]:
    """The matches running through the outage (still running or suspended for it, started
    before it ended)."""
    return Match.objects.filter(
        status__in=(Match.Status.RUNNING, Match.Status.SUSPENDED), started_at__lt=outage.ended_at
    )


def _touched_matches(outage: Outage) -> list[int]:
    return list(_touched(outage).order_by("pk").values_list("pk", flat=True))


def matches_suspend(*, outage: Outage, **_signal: object) -> int:
    """``outage_recorded``'s receiver, in the transaction that recorded the outage: past the
    limit, every match it touched is suspended at once, so no move reaches a match that is
    to be voided (the turn timer's next sweep voids them). How many were suspended."""
    if outage.ended_at - outage.started_at <= max_interruption():
        return 0
    touched = _touched(outage).filter(status=Match.Status.RUNNING)
    ids = list(touched.values_list("pk", flat=True))
    Match.objects.filter(pk__in=ids).update(status=Match.Status.SUSPENDED)
    for match_id in ids:
        publisher.match_changed(match_id=match_id)
    return len(ids)


@transaction.atomic(durable=True)
def _outage_close(outage_id: int) -> bool:
    """Shift the deadlines the outage held up (a short one) and mark it applied, once."""
    outage = lock_outage(outage_id)
    if outage is None:  # another sweep holds it or applied it
        return False
    length = outage.ended_at - outage.started_at
    if length > max_interruption():
        if _touched_matches(outage):  # a void failed or raced a start: the next sweep
            return False
    else:
        slack = timedelta(seconds=settings.GAMES_TURN_GRACE_SECONDS)
        shifted = Hand.objects.filter(
            status=Hand.Status.IN_PROGRESS,
            turn_deadline__gte=outage.started_at - slack,
            turn_deadline__lte=outage.ended_at,
        )
        # Each by its own match's grace (its room's option when it opened).
        ids = list(shifted.values_list("pk", flat=True))
        moved = list(Hand.objects.filter(pk__in=ids).select_related("match"))
        view_cache.forget_on_commit(sorted({hand.match_id for hand in moved}))
        for hand in moved:
            assert hand.turn_deadline is not None  # filtered above
            moved_on = length + timedelta(seconds=hand.match.reconnect_grace_seconds)
            Hand.objects.filter(pk=hand.pk).update(
                turn_deadline=hand.turn_deadline + moved_on,
                # A running bank was not usable either: it is charged from after the outage.
                stage_started_at=(
                    None if hand.stage_started_at is None else hand.stage_started_at + length
                ),
            )
        logger.warning(
            "platform outage of %.0f s applied: %d turn deadlines moved on",
            outage.seconds,
            len(ids),
        )
    _no_show_deadlines_shift(outage)
    outage.applied_at = timezone.now()
    outage.save(update_fields=["applied_at"])
    return True


def _no_show_deadlines_shift(outage: Outage) -> None:
    """R14 "Absence" under R13: nobody could take a tournament's seat while the platform
    was down, so each waiting match's no-show deadline that fell inside the outage moves on
    by its length plus the match's reconnect grace (a match not started is never voided)."""
    slack = timedelta(seconds=settings.GAMES_TURN_GRACE_SECONDS)
    waiting = Match.objects.filter(
        status=Match.Status.WAITING,
        no_show_deadline__gte=outage.started_at - slack,
        no_show_deadline__lte=outage.ended_at,
    ).values_list("pk", "no_show_deadline", "reconnect_grace_seconds")
    for match_id, deadline, grace in waiting:
        assert deadline is not None  # filtered above
        moved_on = outage.ended_at - outage.started_at + timedelta(seconds=grace)
        Match.objects.filter(pk=match_id).update(no_show_deadline=deadline + moved_on)


def _stakes_back(*, match: Match, actor: Actor) -> LedgerTransaction | None:
    """Every stake out of the match's escrow in one transaction (None: nothing was left, or
    a tournament's match, R14, which has no escrow)."""
    if match.is_tournament:
        return None
    try:
        refund = wallet.escrow_void(
            game_ref=match.game_ref,
            currency=match.currency,
            reference=f"void:{match.game_ref}",
            actor=actor,
            escrow_operator=match.operator,
        )
    except NothingToVoidProblem:  # every stake already went back (each seat left before)
        return None
    # Seamless players: the credits to their operator's wallet, sent after the commit.
    wallet.seamless_credits_record(ledger_transaction=refund, actor=actor)
    return refund


@transaction.atomic(durable=True)
def match_void(
    *,
    match_id: int,
    outage_id: int | None = None,
    actor: Actor = OUTAGE_ACTOR,
    reason: str = "interrupted",
) -> bool:
    """R13: void a running match interrupted past ``GAMES_MAX_INTERRUPTION_SECONDS``: the hand
    abandoned, every stake back in one balanced transaction, no fee, the match ``voided``.
    False (nothing done) when it is not running (or suspended) any more. Player protection
    voids a match the same way, forfeit-free, when a player's session ended under an
    ``end_of_hand`` profile (``reason`` the session's end, e.g. ``duration_limit``)."""
    match = lock_match(match_id)
    if match.status not in (Match.Status.RUNNING, Match.Status.SUSPENDED):
        return False
    locked_match_void(match=match, outage_id=outage_id, actor=actor, reason=reason)
    return True


def locked_match_void(
    *, match: Match, actor: Actor, reason: str, outage_id: int | None = None
) -> None:
    """Void ``match``, locked by the caller and not over (``match_void``; a tournament's,
    also while it waits for its players: ``tournament_matches.tournament_match_void``): the
    hand being played abandoned, the stakes back, every seat still held released, the match
    ``voided``; ``game.voided``, the push and, after the commit, ``match_voided``."""
    hand = lock_current_hand(match)
    now = timezone.now()
    if hand is not None:
        entry = {
            "kind": HandEvent.MATCH_VOIDED,
            "seat": None,
            "state_seq": hand.seq,
            "payload": {"reason": reason},
        }
        hand_abandon(match=match, hand=hand, entry=entry, actor=actor)
    refund = _stakes_back(match=match, actor=actor)
    # A tournament's reserved seat (R14) is held too: nobody may take it any more.
    held = (*Seat.ACTIVE_STATES, Seat.State.RESERVED)
    seats = list(Seat.objects.filter(match=match, state__in=held))
    for seat in seats:
        seat.state = Seat.State.FINISHED
        seat.left_at = now
        seat.save(update_fields=["state", "left_at"])
    match.status = Match.Status.VOIDED
    match.finished_at = now
    match.no_show_deadline = None
    match.save(update_fields=["status", "finished_at", "no_show_deadline", "seq"])
    audit_record(
        actor=actor,
        action="match.voided",
        obj=match,
        operator=match.operator,
        data={
            "outage": outage_id,
            "reason": reason,
            "refund": None if refund is None else refund.reference,
        },
    )
    voided = {
        "match_id": match.pk,
        "reason": reason,
        "refunded": [
            {"seat": seat.position, "amount": seat.amount, "currency": seat.currency}
            for seat in sorted(seats, key=lambda seat: seat.position)
        ],
    }
    match_event_enqueue(match=match, event_type="game.voided", data=lambda _: voided)
    publisher.match_changed(match_id=match.pk)
    on_commit_logged(
        partial(match_voided.send, sender=Match, match_id=match.pk),
        what=f"match_voided of match {match.pk}",
    )
    logger.warning("match %s voided (%s, outage %s)", match.pk, reason, outage_id)
