"""Reads of the hand history for integrity's detection jobs (docs/integrity.md):
finished heads-up games between two players, read in the order they finished, each with its
hands, their recorded moves and their server times, and a step-by-step replay of a hand from
its server seed and those moves (the pure engine, as ``selectors.hand_replay`` replays it).

Nothing here is shown to anybody: the detection jobs count from it, and what they store as
reasoning is hand ids and figures.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Q

from games import engine
from games.models import Hand, HandEvent, Match, Seat

FINISHED_STATUSES = (Match.Status.FINISHED, Match.Status.SETTLED)


@dataclass(frozen=True)
class RecordedMove:
    """One recorded action of a hand: who played it (``by_player``: the seat's player, not
    R13's auto-play or a timer), when the server recorded it, and when the turn it answers
    opened (the previous event's time): their difference is the server-side think time."""

    seat: int
    action: dict[str, Any]
    at: datetime
    since: datetime
    by_player: bool

    @property
    def think_seconds(self) -> float:
        return max((self.at - self.since).total_seconds(), 0.0)


@dataclass(frozen=True)
class PlayedHand:
    hand_id: int
    number: int
    seed: str
    dealer: int
    ended_at: datetime | None
    outcome: engine.HandOutcome | None
    # The match's score (R9 points per seat) before this hand.
    score_before: tuple[int, int]
    moves: tuple[RecordedMove, ...]


@dataclass(frozen=True)
class FinishedGame:
    """A finished heads-up match between two players (no house bot), with its hands."""

    match_id: int
    finished_at: datetime
    variant: str
    is_practice: bool
    currency: str
    rules: engine.RuleSet
    players: tuple[uuid.UUID, uuid.UUID]  # by seat
    winner_seat: int | None
    forfeit_seat: int | None
    forfeit_reason: str
    hands: tuple[PlayedHand, ...]


@dataclass(frozen=True)
class FinishedPage:
    """A page of finished games and where the read stopped (the last match read, counted or
    not: a match without its two seats is passed over): the next cursor, or None when the
    page is empty."""

    games: list[FinishedGame]
    last: tuple[datetime, int] | None
    read: int


def finished_games_after(
    *, after_at: datetime | None, after_id: int, before: datetime, limit: int
) -> FinishedPage:
    """Heads-up matches between two players that finished after the cursor
    (``after_at``, ``after_id``) and before ``before``, oldest first, at most ``limit`` read
    (ordered by finish time, then id: the cursor's order). Uses the (status, finished_at)
    index of matches."""
    rows = Match.objects.filter(
        status__in=FINISHED_STATUSES,
        finished_at__isnull=False,
        finished_at__lt=before,
        seat_count=2,
        bot_seat__isnull=True,
    )
    if after_at is not None:
        rows = rows.filter(Q(finished_at__gt=after_at) | Q(finished_at=after_at, pk__gt=after_id))
    matches = list(rows.order_by("finished_at", "pk")[:limit])
    if not matches:
        return FinishedPage(games=[], last=None, read=0)
    ids = [match.pk for match in matches]
    players: dict[int, dict[int, uuid.UUID]] = {}
    for match_id, position, player_id in Seat.objects.filter(
        match_id__in=ids, state__in=(Seat.State.PLAYING, Seat.State.FINISHED)
    ).values_list("match_id", "position", "player_id"):
        players.setdefault(match_id, {})[position] = player_id
    hands: dict[int, list[Hand]] = {}
    for hand in Hand.objects.filter(
        match_id__in=ids, status__in=(Hand.Status.ENDED, Hand.Status.ABANDONED)
    ).order_by("match_id", "number"):
        hands.setdefault(hand.match_id, []).append(hand)
    events: dict[int, list[HandEvent]] = {}
    for row in (
        HandEvent.objects.filter(match_id__in=ids)
        .only("hand", "seq", "seat", "action", "actor", "created_at", "kind")
        .order_by("match_id", "match_seq")
    ):
        events.setdefault(row.hand_id, []).append(row)
    games = []
    for match in matches:
        seats = players.get(match.pk, {})
        if set(seats) != {0, 1} or seats[0] == seats[1]:
            continue
        games.append(
            FinishedGame(
                match_id=match.pk,
                finished_at=match.finished_at or before,
                variant=match.variant,
                is_practice=match.is_practice,
                currency=match.currency,
                rules=engine.RuleSet.from_dict(match.rules),
                players=(seats[0], seats[1]),
                winner_seat=match.winner_seat,
                forfeit_seat=match.forfeit_seat,
                forfeit_reason=match.forfeit_reason,
                hands=_played_hands(hands.get(match.pk, []), events),
            )
        )
    last = matches[-1]
    return FinishedPage(games=games, last=(last.finished_at or before, last.pk), read=len(matches))


def _played_hands(
    hands: Sequence[Hand], events: dict[int, list[HandEvent]]
) -> tuple[PlayedHand, ...]:
    played = []
    score = [0, 0]
    for hand in hands:
        outcome = None if hand.outcome is None else engine.HandOutcome.from_dict(hand.outcome)
        played.append(
            PlayedHand(
                hand_id=hand.pk,
                number=hand.number,
                seed=hand.server_seed,
                dealer=hand.dealer,
                ended_at=hand.ended_at,
                outcome=outcome,
                score_before=(score[0], score[1]),
                moves=_moves(events.get(hand.pk, [])),
            )
        )
        if outcome is not None and outcome.winner is not None and not outcome.penalty_scoring:
            score[outcome.winner] += outcome.points
    return tuple(played)


def _moves(rows: Sequence[HandEvent]) -> tuple[RecordedMove, ...]:
    moves = []
    previous: datetime | None = None
    for row in rows:
        if row.action is not None and row.seat is not None and previous is not None:
            moves.append(
                RecordedMove(
                    seat=row.seat,
                    action=row.action,
                    at=row.created_at,
                    since=previous,
                    by_player=row.actor.startswith("player:"),
                )
            )
        previous = row.created_at
    return tuple(moves)


def replay_steps(
    *, game: FinishedGame, hand: PlayedHand
) -> Iterator[tuple[engine.HandState, RecordedMove]]:
    """Each recorded move of ``hand`` with the state it was played in: the hand re-dealt
    from its server seed and the moves applied one by one (docs/fairness.md). Stops at a
    forfeit (heads-up it ends the match, R10)."""
    state = engine.deal(seed=hand.seed, dealer=hand.dealer, rules=game.rules)
    for move in hand.moves:
        if move.action.get("kind") == engine.FORFEIT or state.outcome is not None:
            return
        yield state, move
        state, _ = engine.apply(state, engine.Action.from_dict(move.action, seat=move.seat))
