"""A tournament's matches (R14; docs/games.md "Tournament matches"), over the real services
on PostgreSQL: opened with their players' seats reserved (idempotent by reference), each
seat taken by its player (the last one deals), the seats not taken by the deadline forfeit
(R14 "Absence": the others play on their own, a walkover, no contest), each end announced
once after its commit, settled with nothing posted, and read back by player
(``tournament_match_outcome``) for every way a match ends."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from games import engine, services
from games.models import Hand, Match, Seat
from games.problems import (
    LinkedPlayersProblem,
    MatchNotInProgressProblem,
    NoShowDeadlinePassedProblem,
    NotSeatedProblem,
)
from games.tournament_selectors import (
    TournamentMatchOutcome,
    tournament_match_get,
    tournament_match_outcome,
)
from gin_platform.models import AuditEvent
from integrity.models import PlayerLink
from settlement.models import Settlement
from settlement.services import unsettled_match_ids
from tests.factories import SYSTEM, PlayerFactory
from tests.games.tournament_world import (
    TIMEOUTS_FORFEIT,
    claim,
    match_open,
    past_the_deadline,
    players_of,
    room_open,
    running,
)
from tests.helpers import assert_problem, session_client
from tests.settlement.helpers import play_out
from wallet.models import LedgerTransaction
from wallet.selectors.reconciliation import reconcile

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


def seats_of(match: Match) -> list[Seat]:
    return list(Seat.objects.filter(match=match).order_by("position", "pk"))


def outcome(**fields) -> TournamentMatchOutcome:
    """An outcome, the fields a test does not name as nothing known and nobody absent."""
    base = {"finished": False, "ranking": (), "places": (), "absent": (), "voided": False}
    return TournamentMatchOutcome(**(base | fields))


def by_position(match: Match) -> dict[int, object]:
    return {
        seat.position: seat.player_id
        for seat in seats_of(match)
        if seat.state not in Seat.GONE_STATES
    }


# --- Opening and taking the seats -------------------------------------------------------------
def test_opening_twice_with_one_reference_gives_the_same_match(operator):
    room = room_open(operator)
    ann, bob = players_of(operator, 2)
    first = match_open(room, [ann, bob], reference="cup:r1:t1")
    again = match_open(room, [ann, bob], reference="cup:r1:t1")
    assert again.pk == first.pk and Match.objects.count() == 1
    assert tournament_match_get(reference="cup:r1:t1").pk == first.pk
    match = Match.objects.get(pk=first.pk)
    assert match.status == Match.Status.WAITING and match.external_ref == "cup:r1:t1"
    assert (match.stake, match.stake_per_point, match.fee_bps) == (None, None, 0)
    assert not match.is_practice and match.prize_table == "winner_takes_all"
    assert match.seat_count == 2 and match.target == 100 and match.currency == "EUR"
    deadline = match.no_show_deadline - match.created_at
    assert timedelta(seconds=119) < deadline <= timedelta(seconds=121)
    assert [
        (seat.position, seat.player_id, seat.state, seat.amount) for seat in seats_of(match)
    ] == [
        (0, ann.pk, Seat.State.RESERVED, 0),
        (1, bob.pk, Seat.State.RESERVED, 0),
    ]
    assert AuditEvent.objects.filter(action="match.opened", object_id=str(match.pk)).count() == 1
    # The same reference for other players is the caller's mistake.
    with pytest.raises(ValueError, match="another match"):
        match_open(room, [bob, ann], reference="cup:r1:t1")
    assert not LedgerTransaction.objects.exists()


def test_both_players_take_their_seats_and_the_match_deals(operator, signals_sent):
    room = room_open(operator)
    ann, bob = players_of(operator, 2)
    match = match_open(room, [ann, bob])
    seat = claim(ann, match)
    assert seat.state == Seat.State.SEATED
    match.refresh_from_db()
    assert match.status == Match.Status.WAITING and not Hand.objects.filter(match=match).exists()
    assert claim(ann, match).pk == seat.pk  # taken already: the same seat
    claim(bob, match)
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING and match.no_show_deadline is None
    hand = Hand.objects.get(match=match)
    state = engine.state_from_json(hand.state)
    assert [len(held) for held in state.hands] == [10, 10] and match.seq > 0
    assert {seat.state for seat in seats_of(match)} == {Seat.State.PLAYING}
    assert claim(bob, match).state == Seat.State.PLAYING
    assert not LedgerTransaction.objects.exists() and signals_sent["finished"] == []
    assert tournament_match_outcome(match=match) == outcome(finished=False)


def test_a_claim_is_refused_without_a_seat_or_past_the_deadline(operator):
    room = room_open(operator)
    ann, bob, eve = players_of(operator, 3)
    match = match_open(room, [ann, bob])
    with pytest.raises(NotSeatedProblem):
        claim(eve, match)
    Match.objects.filter(pk=match.pk).update(no_show_deadline=timezone.now())
    with pytest.raises(NoShowDeadlinePassedProblem):
        claim(ann, match)
    assert {seat.state for seat in seats_of(match)} == {Seat.State.RESERVED}


def test_linked_players_never_share_a_tournament_match(operator):
    room = room_open(operator)
    ann, bob = players_of(operator, 2)
    low, high = sorted((ann.pk, bob.pk))
    PlayerLink.objects.create(
        player_low_id=low,
        player_high_id=high,
        kind="case_block",
        source="staff:1",
        created_at=timezone.now(),
    )
    with pytest.raises(LinkedPlayersProblem):
        match_open(room, [ann, bob])
    assert not Match.objects.exists() and room.tables.count() == 0


def test_a_self_excluded_player_finishes_the_tournament_match(operator, make_player_client):
    """R14: a player who self-excluded while in the tournament may finish it: taking the
    reserved seat is not refused for the break (no money moves)."""
    ann_client = make_player_client()
    ann, bob = ann_client.player, PlayerFactory(operator=operator)
    match = match_open(room_open(operator), [ann, bob])
    response = ann_client.post("/api/v1/me/self-exclusion", {"days": 183}, format="json")
    assert response.status_code == 201, response.json()
    claim(ann, match)
    claim(bob, match)
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING


# --- The no-show sweep (R14 "Absence") -------------------------------------------------------
def test_a_heads_up_no_show_is_a_walkover_announced_once(operator, signals_sent):
    room = room_open(operator)
    ann, bob = players_of(operator, 2)
    match = match_open(room, [ann, bob])
    claim(bob, match)
    assert services.tournament_no_shows_sweep() == 0  # not yet
    later = match.no_show_deadline + timedelta(seconds=1)
    assert services.tournament_no_shows_sweep(now=later) == 1
    assert services.tournament_no_shows_sweep(now=later) == 0  # done once
    match.refresh_from_db()
    assert match.status == Match.Status.SETTLED  # nothing to pay (settlement, on commit)
    result = engine.MatchResult.from_dict(match.result)
    assert (result.reason, result.winner_seat, result.hands_played) == ("forfeit", 1, 0)
    assert result.forfeit == engine.Forfeit(seat=0, reason="absent")
    assert (match.forfeit_seat, match.forfeit_reason) == (0, "absent")
    assert [seat.state for seat in seats_of(match)] == [Seat.State.ABSENT, Seat.State.FINISHED]
    assert signals_sent["finished"] == [match.pk]
    assert not Hand.objects.filter(match=match).exists()
    assert tournament_match_outcome(match=match) == outcome(
        finished=True, ranking=(bob.pk,), places=((bob.pk,),), absent=(ann.pk,)
    )
    for player, seat in ((ann, 0), (bob, 1)):  # both read the result; no hand was dealt
        seen = session_client(player).get(f"/api/v1/matches/{match.pk}/view")
        assert seen.status_code == 200, seen.json()
        body = seen.json()
        assert body["match"]["your_seat"] == seat and body["hand"] is None
        assert body["match"]["result"]["forfeit"] == {"seat": 0, "reason": "absent"}
    with pytest.raises(NoShowDeadlinePassedProblem):  # too late for Ann now
        claim(ann, match)
    assert not LedgerTransaction.objects.exists()


def test_nobody_comes_no_contest(operator, signals_sent):
    ann, bob = players_of(operator, 2)
    match = match_open(room_open(operator, variant="ftk"), [ann, bob], variant="ftk")
    assert past_the_deadline(match) == 1
    match.refresh_from_db()
    result = engine.MatchResult.from_dict(match.result)
    assert (result.reason, result.winner_seat, result.forfeit) == ("no_contest", None, None)
    assert signals_sent["finished"] == [match.pk]
    assert tournament_match_outcome(match=match) == outcome(finished=True, absent=(ann.pk, bob.pk))
    with pytest.raises(NoShowDeadlinePassedProblem):
        claim(bob, match)


@pytest.mark.parametrize("variant", ["ftk", "match"])
def test_four_reserved_and_one_comes_wins_by_walkover(operator, variant):
    players = players_of(operator, 4)
    room = room_open(operator, variant=variant, seats=4)
    match = match_open(room, players, variant=variant)
    claim(players[2], match)
    past_the_deadline(match)
    match.refresh_from_db()
    result = engine.MultiMatchResult.from_dict(match.result)
    assert result.reason == "forfeit" and result.winner_seat == 2
    assert [(f.seat, f.reason) for f in result.forfeits] == [
        (0, "absent"),
        (1, "absent"),
        (3, "absent"),
    ]
    assert (result.pot, result.fee, result.payouts) == (0, 0, (0, 0, 0, 0))
    read = tournament_match_outcome(match=match)
    assert read.ranking == (players[2].pk,)
    assert read.absent == (players[0].pk, players[1].pk, players[3].pk)


def test_four_reserved_and_nobody_comes_shares_no_place(operator):
    players = players_of(operator, 4)
    match = match_open(room_open(operator, variant="ftk", seats=4), players, variant="ftk")
    past_the_deadline(match)
    match.refresh_from_db()
    result = engine.MultiMatchResult.from_dict(match.result)
    assert result.reason == "no_contest" and result.winner_seat is None
    assert result.ranking.groups == ((0, 1, 2, 3),)
    read = tournament_match_outcome(match=match)
    assert read.finished and read.ranking == () and len(read.absent) == 4


def test_four_reserved_and_two_come_play_heads_up(operator, signals_sent):
    players = players_of(operator, 4)
    room = room_open(operator, seats=4, rules={"seats": 4, "knock_limit": 8})
    match = match_open(room, players)
    assert match.rules["seats"] == 4
    claim(players[3], match)
    claim(players[1], match)
    past_the_deadline(match)
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING and match.seat_count == 2
    # The players who came keep their order, renumbered 0 and 1 before the first deal.
    assert by_position(match) == {0: players[1].pk, 1: players[3].pk}
    assert "seats" not in match.rules and match.rules["knock_limit"] == 8
    assert match.rules["stock_exhaustion"] == "void"  # R7's heads-up default, not R12's
    state = engine.state_from_json(Hand.objects.get(match=match).state)
    assert [len(held) for held in state.hands] == [10, 10]
    absent = [seat for seat in seats_of(match) if seat.state == Seat.State.ABSENT]
    assert [seat.player_id for seat in absent] == [players[0].pk, players[2].pk]
    assert match_open(room, players, reference=match.external_ref).pk == match.pk  # unchanged
    for gone in (players[0], players[2]):  # their old positions are others' now, or no more
        view = session_client(gone).get(f"/api/v1/matches/{match.pk}/view")
        assert_problem(view, 404, "not-found")
        move = {"kind": "pass", "card": None, "expected_seq": match.seq}
        act = session_client(gone).post(f"/api/v1/matches/{match.pk}/actions", move, format="json")
        assert_problem(act, 404, "not-found")
    seen = session_client(players[3]).get(f"/api/v1/matches/{match.pk}/view").json()
    assert seen["match"]["your_seat"] == 1 and len(seen["match"]["players"]) == 2
    match = play_out(match)
    read = tournament_match_outcome(match=match)
    winner = by_position(match)[match.winner_seat]
    assert read.finished and read.ranking[0] == winner
    assert set(read.ranking) == {players[1].pk, players[3].pk}
    assert read.absent == (players[0].pk, players[2].pk)
    assert signals_sent["finished"] == [match.pk]


def test_four_reserved_and_three_come_play_three_handed(operator):
    players = players_of(operator, 4)
    match = match_open(room_open(operator, seats=4), players)
    for player in players[1:]:
        claim(player, match)
    past_the_deadline(match)
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING and match.seat_count == 3
    assert match.rules["seats"] == 3 and match.seat_scores["penalty_totals"] == [0, 0, 0]
    assert by_position(match) == {0: players[1].pk, 1: players[2].pk, 2: players[3].pk}
    state = engine.state_from_json(Hand.objects.get(match=match).state)
    assert [len(held) for held in state.hands] == [7, 7, 7]
    match = play_out(match)
    result = engine.MultiMatchResult.from_dict(match.result)
    at = by_position(match)
    read = tournament_match_outcome(match=match)
    assert read.places == tuple(
        tuple(at[seat] for seat in group) for group in result.ranking.groups
    )
    assert read.absent == (players[0].pk,)


def test_the_sweep_leaves_a_match_that_started_meanwhile(operator):
    ann, bob = players_of(operator, 2)
    match = running([ann, bob], room_open(operator))
    later = timezone.now() + timedelta(hours=1)
    assert services.tournament_no_shows_sweep(now=later) == 0
    assert {seat.state for seat in seats_of(match)} == {Seat.State.PLAYING}


def test_the_sweep_runs_each_match_in_its_own_transaction(operator):
    with pytest.raises(RuntimeError, match="durable"), transaction.atomic():
        ann, bob = players_of(operator, 2)
        match = match_open(room_open(operator), [ann, bob])
        past_the_deadline(match)


# --- Every end, read back by player --------------------------------------------------------
@pytest.mark.parametrize("variant", ["ftk", "match"])
def test_a_tournament_match_played_to_the_end(operator, signals_sent, variant):
    ann, bob = players_of(operator, 2)
    room = room_open(operator, variant=variant)
    match = play_out(running([ann, bob], room, variant=variant))
    assert signals_sent["finished"] == [match.pk]
    match.refresh_from_db()
    assert match.status == Match.Status.SETTLED
    at = by_position(match)
    winner, loser = at[match.winner_seat], at[1 - match.winner_seat]
    assert tournament_match_outcome(match=match) == outcome(
        finished=True, ranking=(winner, loser), places=((winner,), (loser,))
    )
    # Settlement posted nothing, left nothing waiting, and the books still reconcile.
    assert not LedgerTransaction.objects.exists()
    assert match.pk not in unsettled_match_ids(older_than_seconds=0)
    assert not Settlement.objects.filter(match=match).exists()
    assert reconcile().ok


@pytest.mark.parametrize("how", ["resign", "leave", "timeout"])
def test_a_forfeit_ranks_the_forfeiter_below(operator, how):
    ann, bob = players_of(operator, 2)
    room = room_open(operator, turn_clock=TIMEOUTS_FORFEIT)
    match = running([ann, bob], room)
    hand = Hand.objects.get(match=match)
    gone = hand.to_act if how == "timeout" else 0
    seat = Seat.objects.get(match=match, position=gone)
    if how == "resign":
        services.match_resign(seat=seat, actor=SYSTEM)
    elif how == "leave":
        services.seat_leave(player=seat.player, table=match.table, actor=SYSTEM)
    else:
        sweep = services.turn_timers_expire(now=timezone.now() + timedelta(minutes=5))
        assert sweep.forfeited == [match.pk]
    match.refresh_from_db()
    reason = {"resign": "resigned", "leave": "left", "timeout": "timeout"}[how]
    assert (match.forfeit_seat, match.forfeit_reason) == (gone, reason)
    stayed = by_position(match)[1 - gone]
    read = tournament_match_outcome(match=match)
    assert read.ranking == (stayed, seat.player_id) and read.absent == ()


def test_three_handed_a_leaver_ranks_last(operator):
    players = players_of(operator, 3)
    match = running(players, room_open(operator, seats=3))
    services.seat_leave(player=players[1], table=match.table, actor=SYSTEM)
    match = play_out(match)
    read = tournament_match_outcome(match=match)
    assert read.finished and read.ranking[-1] == players[1].pk
    assert set(read.ranking) == {player.pk for player in players}


def test_an_interrupted_match_is_voided_without_any_escrow(operator, signals_sent):
    """R13 past the limit: the match is voided; a tournament's match has no escrow, so
    nothing goes back and nothing fails; the tournament hears ``match_voided``."""
    ann, bob = players_of(operator, 2)
    match = running([ann, bob], room_open(operator))
    assert services.match_void(match_id=match.pk) is True
    match.refresh_from_db()
    assert match.status == Match.Status.VOIDED
    assert signals_sent["voided"] == [match.pk] and signals_sent["finished"] == []
    assert not LedgerTransaction.objects.exists()
    assert tournament_match_outcome(match=match) == outcome(finished=True, voided=True)


def test_a_claim_on_a_voided_match_is_refused(operator):
    ann, bob, cat = players_of(operator, 3)
    match = match_open(room_open(operator, seats=3), [ann, bob, cat])
    claim(ann, match)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.VOIDED)
    with pytest.raises(MatchNotInProgressProblem):
        claim(bob, match)
