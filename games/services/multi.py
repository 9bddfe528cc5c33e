"""Three and four players at the table (R12; docs/games.md "Three and four players"): what
happens after a hand, the dealer rotating clockwise, the ranking and the match's result.

- ``_multi_hand_finished``: after an R12 hand, First To Knock ends with the hand's winner (a
  void hand is redealt by the same dealer); Match Play adds the penalties to
  ``Match.seat_scores`` and deals again until a penalty total reaches the target.
- ``_multi_match_finish``: the result (``engine.MultiMatchResult``: the ranking and the prize
  table's split of the pot less the fee), announced on commit like any match's.
- ``_multi_forfeit_ranking``: the ranking when one seat is left after forfeits
  (``timers._multi_forfeit`` plays the forfeit itself).

The engine decides every rule; this module stores what it decides. It runs inside the
caller's transaction (a move, a forfeit) and imports only ``dealing`` among its siblings.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.utils import timezone

from games import engine
from games.locks import lock_seats
from games.models import Hand, Match, Seat, Variant
from games.services.dealing import _hand_deal, _match_finished_record
from gin_platform.tenancy.principals import Actor


def _multi_outcomes(match: Match) -> list[engine.MultiHandOutcome]:
    """The R12 hands that ended (void ones included; a hand ended by forfeits is abandoned
    and counts nothing)."""
    rows = Hand.objects.filter(match=match, status=Hand.Status.ENDED).order_by("number")
    return [
        engine.MultiHandOutcome.from_dict(data) for data in rows.values_list("outcome", flat=True)
    ]


def _set_seat_scores(match: Match, totals: Sequence[int], won: Sequence[int]) -> None:
    match.seat_scores = {"penalty_totals": list(totals), "hands_won": list(won)}


def _multi_next_deal(
    *, match: Match, hand: Hand, outcome: engine.MultiHandOutcome | None, actor: Actor
) -> Hand:
    """R12: the deal rotates clockwise among the seats still in; a void hand is redealt by
    the same dealer."""
    return _hand_deal(
        match=match,
        number=hand.number + 1,
        dealer=engine.next_multi_dealer(
            hand.dealer, outcome, seats=match.seat_count, out=match.forfeited_seats
        ),
        seed=engine.new_server_seed(),
        actor=actor,
    )


def _multi_hand_finished(
    *, match: Match, hand: Hand, outcome: engine.MultiHandOutcome, actor: Actor
) -> Hand | None:
    """R12 after a hand: First To Knock ends with the hand's winner (a void hand is
    redealt); Match Play adds the penalties and deals again until a penalty total reaches
    the target. Returns the hand dealt next (None: the match is over)."""
    seats, out = match.seat_count, match.forfeited_seats
    if match.variant == Variant.FTK:
        winner = engine.ftk_multi_winner(outcome)
        if winner is None:  # R12: a void hand is redealt
            return _multi_next_deal(match=match, hand=hand, outcome=outcome, actor=actor)
        won = [1 if seat == winner else 0 for seat in range(seats)]
        _set_seat_scores(match, outcome.penalties, won)
        _multi_match_finish(
            match=match,
            hand=hand,
            ranking=engine.ftk_multi_ranking(winner, seats=seats, out=out),
            reason=engine.REASON_FIRST_TO_KNOCK,
            actor=actor,
        )
        return None
    progress = engine.penalty_progress(
        _multi_outcomes(match), seats=seats, target=match.target, out=out
    )
    _set_seat_scores(match, progress.totals, progress.hands_won)
    if not progress.finished:
        return _multi_next_deal(match=match, hand=hand, outcome=outcome, actor=actor)
    _multi_match_finish(
        match=match,
        hand=hand,
        ranking=progress.ranking,
        reason=engine.REASON_TARGET_REACHED,
        actor=actor,
    )
    return None


def _multi_forfeit_ranking(match: Match) -> engine.Ranking:
    """R12 "Leaving" when one seat is left: it wins; the leavers rank last, the latest
    first (Match Play ranks by the penalty totals so far: only the last seat is still in)."""
    seats, out = match.seat_count, match.forfeited_seats
    if match.variant == Variant.FTK:
        winner = next(seat for seat in range(seats) if seat not in out)
        return engine.ftk_multi_ranking(winner, seats=seats, out=out)
    return engine.rank_penalty_play(match.points, match.hands_won, out=out)


_BPS = 10_000


def _multi_match_finish(
    *, match: Match, hand: Hand, ranking: engine.Ranking, reason: str, actor: Actor
) -> None:
    """Record the R12 result (``engine.MultiMatchResult``, docs/games.md "Three and four
    players"): the ranking and the prize table's split of the pot less the fee (R10: the fee
    rounded down; R12: the split's rounding), and announce it on commit."""
    active = Seat.objects.filter(match=match, state__in=Seat.ACTIVE_STATES)
    now = timezone.now()
    for seat in lock_seats(active.values_list("pk", flat=True)):
        seat.state = Seat.State.FINISHED
        seat.left_at = now
        seat.save(update_fields=["state", "left_at"])
    seats = list(Seat.objects.filter(match=match, state=Seat.State.FINISHED).order_by("position"))
    pot = sum(seat.amount for seat in seats)
    fee = pot * match.fee_bps // _BPS
    result = engine.MultiMatchResult(
        match_id=match.pk,
        game_ref=match.game_ref,
        variant=match.variant,
        reason=reason,
        ranking=ranking,
        penalty_totals=tuple(match.points),
        hands_won=tuple(match.hands_won),
        hands_played=hand.number,
        target=match.target if match.variant == Variant.MATCH else None,
        forfeits=tuple(
            engine.Forfeit(seat=entry["seat"], reason=entry["reason"]) for entry in match.forfeits
        ),
        currency=match.currency,
        is_practice=match.is_practice,
        fee_bps=match.fee_bps,
        stake=match.stake,
        prize_table=match.prize_table,
        pot=pot,
        fee=fee,
        payouts=engine.split_pot(pot - fee, ranking, match.prize_table),
        seats=tuple(
            engine.SeatStake(
                position=seat.position,
                seat_id=seat.pk,
                player_id=str(seat.player_id),
                amount=seat.amount,
                currency=seat.currency,
            )
            for seat in seats
        ),
        finished_at=now.isoformat(),
    )
    _match_finished_record(
        match=match,
        hand=hand,
        result=result,
        winner_seat=ranking.winner,
        now=now,
        score_fields=("seat_scores", "forfeits"),
        audit_data={
            "reason": reason,
            "winner_seat": ranking.winner,
            "ranking": ranking.to_list(),
        },
        actor=actor,
    )
