"""Dealing and the event log of a match (R3; R12 with three and four seats): a hand dealt
from a fresh server seed, committed to first, and the events appended to the hand and the
match's feed (pushed after the commit). Imports no sibling: ``play``, ``multi`` and the
others build on it (docs/games.md "Where things are").

Runs inside the caller's transaction (a move, a seat that starts the match, a forfeit).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.utils import timezone

from games import engine
from games.models import Hand, HandEvent, Match
from games.realtime import publisher
from games.signals import match_finished
from gin_platform.audit import audit_record
from gin_platform.enqueue import on_commit_logged
from gin_platform.request_path.precompiled import insert_rows, save_fields
from gin_platform.tenancy.principals import Actor

# What a move (or a forfeit) changes in its hand's row.
HAND_STATE_FIELDS = (
    "state",
    "seq",
    "to_act",
    "turn_deadline",
    "status",
    "outcome",
    "ended_at",
    "event_seq",
)


def _actor_label(actor: Actor) -> str:
    return f"{actor.type}:{actor.id}"


def _deadline(match: Match):
    return timezone.now() + timedelta(seconds=match.turn_seconds)


def _append_events(
    *, match: Match, hand: Hand, entries: Sequence[dict[str, Any]], actor: Actor
) -> None:
    """Append events to the hand and the match's feed; the caller saves hand and match."""
    rows = _event_rows(match=match, hand=hand, entries=entries, actor=actor)
    insert_rows(rows)
    publisher.match_changed(match_id=match.pk, rows=rows)


def _event_rows(
    *, match: Match, hand: Hand, entries: Sequence[dict[str, Any]], actor: Actor
) -> list[HandEvent]:
    """The feed rows of ``entries``, numbered on from the hand's and the match's counters
    (both moved on), not written yet: ``_append_events`` writes them, or the caller with
    its own changes (a move: ``saves_and_inserts``) and then ``publisher.match_changed``."""
    rows = []
    for entry in entries:
        hand.event_seq += 1
        match.seq += 1
        rows.append(
            HandEvent(
                hand=hand,
                match=match,
                seq=hand.event_seq,
                match_seq=match.seq,
                actor=_actor_label(actor),
                **entry,
            )
        )
    return rows


def _engine_event_payload(event: engine.Event) -> dict[str, Any]:
    """The full engine event as JSON (``selectors.engine_event`` reads it back)."""
    payload: dict[str, Any] = {}
    if event.card is not None:
        payload["card"] = str(event.card)
    if event.outcome is not None:
        payload["outcome"] = event.outcome.to_dict()
    if event.hands is not None:
        payload["hands"] = [[str(card) for card in hand] for hand in event.hands]
    if event.seed is not None:
        payload["seed"] = event.seed
    if event.stock_count is not None:
        payload["stock_count"] = event.stock_count
    return payload


def _hand_deal(*, match: Match, number: int, dealer: int, seed: str, actor: Actor) -> Hand:
    """R3: deal a hand from a fresh server seed, committing to the seed first (its SHA-256
    is stored and shown before any card is seen)."""
    state = engine.deal(
        seed=seed,
        dealer=dealer,
        rules=engine.RuleSet.from_dict(match.rules),
        out=match.forfeited_seats,  # R12: seats that forfeited are dealt dead cards
    )
    hand = Hand.objects.create(
        match=match,
        number=number,
        dealer=dealer,
        server_seed=seed,
        seed_commitment=engine.seed_commitment(seed),
        state=engine.state_to_json(state),
        seq=state.seq,
        to_act=state.to_act,
        turn_deadline=_deadline(match),
    )
    _append_events(
        match=match,
        hand=hand,
        entries=[
            {
                "kind": HandEvent.DEALT,
                "seat": dealer,
                "state_seq": state.seq,
                "payload": {
                    "number": number,
                    "dealer": dealer,
                    "seed_commitment": hand.seed_commitment,
                    "to_act": state.to_act,
                    # R3: the upcard is dealt face up (public); the fairness check uses it.
                    "upcard": str(state.upcard),
                },
            }
        ],
        actor=actor,
    )
    save_fields(hand, fields=("event_seq",))
    return hand


def _match_finished_record(
    *,
    match: Match,
    hand: Hand,
    result: engine.MatchResult | engine.MultiMatchResult,
    winner_seat: int | None,
    now: datetime,
    score_fields: Sequence[str],
    audit_data: dict[str, Any],
    actor: Actor,
) -> None:
    """Mark the match finished with ``result`` (heads-up or R12), append the public
    ``match_finished`` event, save the hand and the match (with the variant's
    ``score_fields``), audit it, and announce it on commit (settlement listens)."""
    match.status = Match.Status.FINISHED
    match.finished_at = now
    match.winner_seat = winner_seat
    match.result = result.to_dict()
    _append_events(
        match=match,
        hand=hand,
        entries=[
            {
                "kind": HandEvent.MATCH_FINISHED,
                "seat": winner_seat,
                "state_seq": hand.seq,
                "payload": result.public(),
            }
        ],
        actor=actor,
    )
    save_fields(hand, fields=("event_seq",))
    match.save(
        update_fields=["status", "finished_at", "winner_seat", "result", *score_fields, "seq"]
    )
    audit_record(
        actor=actor, action="match.finished", obj=match, operator=match.operator, data=audit_data
    )
    on_commit_logged(
        partial(match_finished.send, sender=Match, match_id=match.pk),
        what=f"match_finished of match {match.pk}",
    )
