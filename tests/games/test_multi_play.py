"""Three and four players at the table (R12) through the games services: room options,
seating until the table is full, whole games of First To Knock and Match Play played by the
engine's bot from each seat's own view, forfeits (leaving, resigning, timing out) that rank
the leaver last while the game goes on, the dealer rotating clockwise, every hand replaying
from its seed and recorded actions, and the house bots filling a practice table."""

from __future__ import annotations

import itertools
from datetime import timedelta

import pytest
from django.utils import timezone

from games import engine, selectors
from games import services as game_services
from games.api import presenters
from games.models import Hand, HandEvent, Match, Room, Seat
from games.problems import InvalidRoomOptionsProblem, NotSeatedProblem, TableFullProblem
from gin_platform.http.problems import NotFoundProblem
from tests.factories import SYSTEM, PlayerFactory
from tests.games.factories import TIMEOUTS_FORFEIT, TableFactory
from tests.wallet.factories import fund

pytestmark = pytest.mark.django_db


def multi_room(operator, *, seats=3, variant="match", practice=True, **options) -> Room:
    return game_services.room_create(
        operator=operator,
        name=f"{seats} players {variant}",
        variant=variant,
        is_practice=practice,
        stake=options.pop("stake", 100),
        seats=seats,
        actor=SYSTEM,
        **options,
    )


def seat_all(table, count: int, *, players=None) -> Match:
    """Seat ``count`` players (funded at a real-money table); return the match."""
    players = players or [PlayerFactory(operator=table.room.operator) for _ in range(count)]
    for player in players:
        if not table.room.is_practice:
            fund(player, 10**7)
        game_services.seat_take(player=player, table=table, actor=SYSTEM)
    return Match.objects.filter(table=table).order_by("-pk").first()


def bot_move(match: Match, policy=engine.choose_action_from_view) -> None:
    """The seat to act plays the engine's bot from its own view only."""
    hand = Hand.objects.get(match=match, status=Hand.Status.IN_PROGRESS)
    state = engine.state_from_json(hand.state)
    seat = state.to_act
    move = policy(engine.player_view(state, seat))
    game_services.hand_apply_action(
        match=match.pk, seat=seat, action=move, expected_seq=match.seq, actor=SYSTEM
    )


def play_out(match: Match, *, max_actions: int = 20_000, policy=None) -> Match:
    for _ in range(max_actions):
        match.refresh_from_db()
        if match.status != Match.Status.RUNNING:
            return match
        bot_move(match, **({"policy": policy} if policy else {}))
    raise AssertionError("the match did not end")


def assert_replayable(match: Match) -> None:
    for hand in match.hands.all():
        assert engine.state_to_json(selectors.hand_replay(hand)) == hand.state
        assert engine.verify_deck(hand.server_seed, hand.seed_commitment)


def assert_dealers_rotate(match: Match) -> None:
    """R12: the first dealer from the first seed; then clockwise among the seats still in;
    a void hand is redealt by the same dealer."""
    hands = list(match.hands.order_by("number"))
    assert hands[0].dealer == selectors.first_dealer_for(hands[0].server_seed, match.seat_count)
    for hand in hands:
        assert selectors.expected_dealer(hand) == hand.dealer
    for before, after in itertools.pairwise(hands):
        if before.outcome["kind"] == "void":
            assert after.dealer == before.dealer
        else:
            assert after.dealer != before.dealer


# --- Rooms ---------------------------------------------------------------------------------
def test_a_room_option_seats_three_or_four_and_the_rules_carry_it(operator):
    room = multi_room(operator, seats=4, prize_table="50_30_20")
    assert (room.seats, room.prize_table, room.target) == (4, "50_30_20", 100)
    rules = engine.RuleSet.from_dict(room.rules)
    assert rules.seats == 4 and rules.stock_exhaustion == "reshuffle"
    heads_up = multi_room(operator, seats=2, target=250)
    assert (heads_up.seats, heads_up.prize_table) == (2, "winner_takes_all")
    assert "seats" not in heads_up.rules
    ftk = multi_room(operator, seats=3, variant="ftk")
    assert ftk.target is None and ftk.prize_table == "winner_takes_all"


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"seats": 5}, "seats"),
        ({"seats": 3, "variant": "money"}, "seats"),
        ({"seats": 3, "prize_table": "65_35"}, "prize_table"),
        ({"seats": 4, "prize_table": "70_30"}, "prize_table"),
        ({"seats": 3, "variant": "ftk", "prize_table": "70_30"}, "prize_table"),
        ({"seats": 2, "prize_table": "70_30"}, "prize_table"),
        ({"seats": 3, "rules": {"seats": 4}}, "rules"),
        ({"seats": 3, "rules": {"tie_rule": "no_score"}}, "rules"),
    ],
)
def test_room_options_that_r12_refuses(operator, options, field):
    options = dict(options)
    variant = options.pop("variant", "match")
    extra = {}
    if variant == "money":
        extra = {"stake": None, "target": 100, "stake_per_point_choices": [1]}
        extra |= {"cashier_min": 100, "cashier_max": 1000}
    with pytest.raises(InvalidRoomOptionsProblem) as error:
        multi_room(operator, variant=variant, **extra, **options)
    assert error.value.extensions["field"] == field


# --- Seating ---------------------------------------------------------------------------------
def test_the_match_starts_when_the_table_is_full(operator, seeds):
    table = TableFactory(room=multi_room(operator, seats=4))
    players = [PlayerFactory(operator=operator) for _ in range(5)]
    for count, player in enumerate(players[:3], start=1):
        game_services.seat_take(player=player, table=table, actor=SYSTEM)
        match = Match.objects.get(table=table)
        assert match.status == Match.Status.WAITING and match.seats.count() == count
    game_services.seat_take(player=players[3], table=table, actor=SYSTEM)
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING and match.seat_count == 4
    assert sorted(match.seats.values_list("position", flat=True)) == [0, 1, 2, 3]
    hand = match.hands.get()
    state = engine.state_from_json(hand.state)
    assert [len(cards) for cards in state.hands] == [7, 7, 7, 7]
    assert len(state.stock) == 52 - 28 - 1
    assert hand.dealer == selectors.first_dealer_for(hand.server_seed, 4)
    assert state.to_act == (hand.dealer + 1) % 4  # R12: the dealer's left is offered first
    with pytest.raises(TableFullProblem):
        game_services.seat_take(player=players[4], table=table, actor=SYSTEM)


def test_the_first_dealer_of_three_or_four_seats_is_every_seat_alike():
    for seats in (3, 4):
        counts = [0] * seats
        for number in range(1200):
            counts[selectors.first_dealer_for(f"seed-{number}", seats)] += 1
        assert min(counts) > 1200 / seats * 0.8, counts


def test_house_bots_fill_a_practice_table_and_play_it_out(
    operator, seeds, django_capture_on_commit_callbacks
):
    room = multi_room(operator, seats=3, variant="ftk", bot_enabled=True)
    table = TableFactory(room=room)
    player = PlayerFactory(operator=operator)
    with django_capture_on_commit_callbacks(execute=True):  # the bots move on commit
        game_services.seat_take(player=player, table=table, actor=SYSTEM)
    match = Match.objects.get(table=table)
    assert match.status == Match.Status.RUNNING
    assert len(match.house_bot_seats) == 2 and match.bot_seat == match.house_bot_seats[0]
    bots = {seat.player_id for seat in match.seats.exclude(player=player)}
    assert len(bots) == 2  # two different bot players (R12: up to three per operator)
    mine = match.seats.get(player=player).position
    for _ in range(500):
        match.refresh_from_db()
        if match.status != Match.Status.RUNNING:
            break
        hand = match.hands.get(status=Hand.Status.IN_PROGRESS)
        assert hand.to_act == mine  # the bots answered on commit (eager Celery)
        with django_capture_on_commit_callbacks(execute=True):
            bot_move(match)
    assert match.status == Match.Status.SETTLED  # settled on commit too (a practice pot)
    assert selectors.match_result(match.result).ranking.seats == 3


# --- Whole games -----------------------------------------------------------------------------
def test_three_player_first_to_knock_ends_with_the_hands_winner(operator, seeds):
    match = play_out(seat_all(TableFactory(room=multi_room(operator, variant="ftk")), 3))
    result = selectors.match_result(match.result)
    hands = list(match.hands.order_by("number"))
    last = selectors.hand_outcome(hands[-1].outcome)
    assert all(hand.outcome["kind"] == "void" for hand in hands[:-1])  # void: redealt
    assert result.reason == engine.REASON_FIRST_TO_KNOCK
    assert result.winner_seat == last.winner == match.winner_seat
    assert result.ranking.groups[0] == (last.winner,)
    assert result.penalty_totals == last.penalties and result.target is None
    assert result.payouts[last.winner] == result.pot - result.fee
    assert set(match.seats.values_list("state", flat=True)) == {Seat.State.FINISHED}
    assert_replayable(match)
    assert_dealers_rotate(match)


@pytest.mark.parametrize("seats", [3, 4])
def test_match_play_runs_to_the_penalty_target_and_ranks_by_lowest_total(operator, seeds, seats):
    table = TableFactory(room=multi_room(operator, seats=seats))
    match = play_out(seat_all(table, seats))
    result = selectors.match_result(match.result)
    outcomes = [
        selectors.hand_outcome(hand.outcome)
        for hand in match.hands.filter(status=Hand.Status.ENDED).order_by("number")
    ]
    progress = engine.penalty_progress(outcomes, seats=seats, target=100)
    assert progress.finished and max(progress.totals) >= 100
    assert result.reason == engine.REASON_TARGET_REACHED
    assert result.ranking == progress.ranking
    assert list(result.penalty_totals) == match.seat_scores["penalty_totals"]
    assert list(progress.totals) == match.seat_scores["penalty_totals"]
    assert list(progress.hands_won) == match.seat_scores["hands_won"]
    assert match.points_0 == match.points_1 == 0  # the heads-up columns stay unused
    assert result.hands_played == match.hands.count() > 1
    assert_replayable(match)
    assert_dealers_rotate(match)


# --- Forfeits (R12 "Leaving") ------------------------------------------------------------
def _running_hand(match: Match) -> Hand:
    return match.hands.get(status=Hand.Status.IN_PROGRESS)


def test_a_leaver_is_ranked_last_and_the_game_goes_on_while_two_remain(operator, seeds):
    table = TableFactory(room=multi_room(operator, seats=4))
    match = seat_all(table, 4)
    for _ in range(9):  # a few moves into the first hand
        bot_move(match)
        match.refresh_from_db()
    hand = _running_hand(match)
    leaver = (hand.to_act + 2) % 4  # not the seat to act
    player = match.seats.get(position=leaver).player
    game_services.seat_leave(player=player, table=table, actor=SYSTEM)
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING
    assert match.forfeits == [{"seat": leaver, "reason": "left"}]
    assert match.seats.get(position=leaver).state == Seat.State.FINISHED
    state = engine.state_from_json(_running_hand(match).state)
    assert state.out == (leaver,) and state.hands[leaver] == ()
    assert HandEvent.objects.filter(match=match, kind="forfeit", seat=leaver).exists()
    with pytest.raises(NotSeatedProblem):
        game_services.match_resign(seat=match.seats.get(position=leaver), actor=SYSTEM)
    # The one to act resigns on their turn: the turn passes on.
    to_act = _running_hand(match).to_act
    game_services.match_resign(seat=match.seats.get(position=to_act), actor=SYSTEM)
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING
    assert _running_hand(match).to_act not in (to_act, leaver)
    match = play_out(match)
    result = selectors.match_result(match.result)
    assert result.ranking.groups[-2:] == ((to_act,), (leaver,))  # the latest leaver above
    assert [f.seat for f in result.forfeits] == [leaver, to_act]
    assert result.reason == engine.REASON_TARGET_REACHED
    for hand in match.hands.all():  # the fairness check holds, forfeits included
        fairness = presenters.hand_fairness(match=match, number=hand.number)
        assert fairness["verified"], fairness["checks"]
        history = presenters.finished_hand_history(match=match, number=hand.number)
        assert len(history["points"]) == 4 and len(history["hands"]) == 4
    for hand in match.hands.exclude(number=1):  # dealt to the two still in only
        assert set(engine.state_from_json(hand.state).out) == {leaver, to_act}
        assert hand.dealer not in (leaver, to_act)
    assert_replayable(match)
    assert_dealers_rotate(match)


def test_when_one_player_is_left_they_win_by_forfeit(operator, seeds):
    table = TableFactory(room=multi_room(operator, seats=3, variant="ftk"))
    match = seat_all(table, 3)
    bot_move(match)
    first, second = [(seat + 1) % 3 for seat in (0, 1)]
    for position in (first, second):
        seat = Seat.objects.get(match=match, position=position)
        game_services.match_resign(seat=seat, actor=SYSTEM)
    match.refresh_from_db()
    result = selectors.match_result(match.result)
    winner = ({0, 1, 2} - {first, second}).pop()
    assert match.status == Match.Status.FINISHED and match.winner_seat == winner
    assert result.reason == engine.REASON_FORFEIT
    assert result.ranking.to_list() == [[winner], [second], [first]]
    hand = match.hands.get()
    assert hand.status == Hand.Status.ABANDONED and hand.outcome["kind"] == "forfeit"
    assert_replayable(match)


def test_a_player_who_times_out_forfeits_and_the_next_seat_plays(operator, seeds):
    table = TableFactory(room=multi_room(operator, seats=3, turn_clock=TIMEOUTS_FORFEIT))
    match = seat_all(table, 3)
    hand = _running_hand(match)
    late = hand.to_act
    Hand.objects.filter(pk=hand.pk).update(turn_deadline=timezone.now() - timedelta(minutes=1))
    sweep = game_services.turn_timers_expire()
    assert sweep.forfeited == [match.pk]
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING
    assert match.forfeits == [{"seat": late, "reason": "timeout"}]
    hand.refresh_from_db()
    assert hand.to_act not in (late, None) and hand.turn_deadline > timezone.now()
    assert game_services.turn_timers_expire().forfeited == []


def test_a_player_who_left_before_the_start_never_sees_the_seat_taken_after_them(operator):
    """R12: at a three-seat table a player leaves before the start and another takes the
    position they freed. The leaver's old seat shows them nothing of the newcomer's game:
    no view, no move (404), never the newcomer's cards."""
    table = TableFactory(room=multi_room(operator, seats=3))
    leaver, stays, newcomer, third = (PlayerFactory(operator=operator) for _ in range(4))
    for player in (leaver, stays):
        game_services.seat_take(player=player, table=table, actor=SYSTEM)
    game_services.seat_leave(player=leaver, table=table, actor=SYSTEM)
    match = seat_all(table, 2, players=[newcomer, third])
    assert Seat.objects.get(match=match, player=newcomer).position == 0  # the leaver's
    with pytest.raises(NotFoundProblem):
        selectors.player_match_seat(player=leaver, match_id=match.pk)
    with pytest.raises(NotFoundProblem):
        game_services.player_action_apply(
            player=leaver,
            match_id=match.pk,
            action={"kind": "pass", "card": None},
            expected_seq=match.seq,
            actor=SYSTEM,
        )
    assert selectors.player_match_seat(player=newcomer, match_id=match.pk).position == 0
