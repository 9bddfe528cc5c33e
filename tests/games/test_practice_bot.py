"""Practice rooms (R11: play-money chips, never money) and the house bot, which
sits through the same seat service, plays through the same action service on the (eager)
Celery worker after each commit, decides from its own player view only, and never sits at a
real-money table."""

from __future__ import annotations

import inspect
from datetime import timedelta

import pytest
from django.db.models import Q
from django.utils import timezone

from games import engine, selectors, services
from games.models import Hand, HandEvent, HouseBot, Match, Room, Seat
from games.problems import BotNotAllowedProblem
from games.tasks import bot_move
from gin_platform.money import PRACTICE_CURRENCY
from tests.games.factories import RoomFactory, TableFactory
from tests.games.helpers import HiddenInformationChecker, act, sit, view
from tests.wallet.factories import fund
from wallet import services as wallet_services
from wallet.models import LedgerEntry, LedgerTransaction
from wallet.selectors import balances

pytestmark = pytest.mark.django_db


def _invite(client, table_id: int):
    return client.post(f"/api/v1/tables/{table_id}/bot")


def _play_against_the_bot(client, match_id: int, *, max_actions: int = 3_000) -> int:
    """The human plays the engine's bot policy from their own view; the house bot answers on
    its own (eager Celery, after each commit). Whenever the game is running, it is the
    human's turn: the bot never leaves its turn pending."""
    checker = HiddenInformationChecker(match_id)
    for count in range(max_actions):
        response = view(client, match_id)
        checker.check(response, response.json()["match"]["your_seat"])
        look = response.json()
        if look["match"]["status"] != Match.Status.RUNNING:
            return count
        assert look["hand"]["your_turn"], "the bot left its turn pending"
        move = engine.choose_action_from_view(look["hand"])
        answer = act(client, match_id, **move, expected_seq=look["seq"])
        assert answer.status_code == 200, answer.json()
        checker.check(answer, look["match"]["your_seat"])
    raise AssertionError("the game against the bot did not end")


def _real_money_entries(players) -> set[int]:
    ids = [player.pk for player in players]
    return set(
        LedgerEntry.objects.filter(account__player_id__in=ids)
        .exclude(account__currency=PRACTICE_CURRENCY)
        .values_list("pk", flat=True)
    )


def _assert_chips_never_reach_money(players, real_entries_before: set[int]) -> None:
    """Every ledger row touching chips is in XGC on XGC accounts; no transaction mixes chips
    and money; the players' real-money accounts got no entry during the practice game."""
    chip_rows = LedgerEntry.objects.filter(
        Q(currency=PRACTICE_CURRENCY) | Q(account__currency=PRACTICE_CURRENCY)
    )
    assert chip_rows.exists()
    assert not chip_rows.exclude(currency=PRACTICE_CURRENCY).exists()
    assert not chip_rows.exclude(account__currency=PRACTICE_CURRENCY).exists()
    chip_transactions = LedgerTransaction.objects.filter(entries__in=chip_rows).distinct()
    mixed = LedgerEntry.objects.filter(transaction__in=chip_transactions).exclude(
        account__currency=PRACTICE_CURRENCY
    )
    assert not mixed.exists(), "a practice chip transaction touched a real-money account"
    assert not chip_transactions.exclude(currency=PRACTICE_CURRENCY).exists()
    assert _real_money_entries(players) == real_entries_before
    kinds = set(chip_transactions.values_list("kind", flat=True))
    assert kinds <= {"practice_grant", "buy_in", "settlement"}, kinds
    assert "settlement" in kinds


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_a_practice_game_against_the_bot_runs_to_the_end_through_the_api(
    alice, operator, seeds, settings, monkeypatch
):
    settings.BOT_MOVE_DELAY_SECONDS = 0
    fund(alice.player, 5_000)  # real money in the wallet must stay untouched
    table = TableFactory(room=RoomFactory(operator=operator, practice=True, stake=100, fee_bps=500))
    depths: list[int] = []
    real_bot_play = services.bot_play

    def measured(**kwargs):
        depths.append(len(inspect.stack(0)))
        return real_bot_play(**kwargs)

    monkeypatch.setattr(services, "bot_play", measured)
    real_before = _real_money_entries([alice.player])
    seat = sit(alice, table.pk).json()
    assert seat["state"] == "seated"
    invited = _invite(alice, table.pk)
    assert invited.status_code == 201, invited.json()
    assert invited.json()["match_status"] == "running"
    match_id = seat["match_id"]
    actions = _play_against_the_bot(alice, match_id)
    match = Match.objects.get(pk=match_id)
    assert match.status == Match.Status.SETTLED  # settled on commit, in chips
    bot = HouseBot.objects.get(operator=operator).player
    bot_seat = Seat.objects.get(match=match, player=bot)
    bot_moves = HandEvent.objects.filter(match=match, seat=bot_seat.position, action__isnull=False)
    assert bot_moves.count() > 5 and actions > 5
    assert set(bot_moves.values_list("actor", flat=True)) == {"system:house-bot"}
    for hand in match.hands.all():  # the bot's moves replay like anybody's
        assert engine.state_to_json(selectors.hand_replay(hand)) == hand.state
    # Eager Celery: every bot move runs after a commit, from a loop, never nested deeper.
    assert len(depths) >= bot_moves.count()
    assert max(depths) - min(depths) <= 40, (min(depths), max(depths))
    _assert_chips_never_reach_money([alice.player, bot], real_before)
    assert balances.wallet_balance(player=alice.player) == 5_000  # EUR untouched
    chips = [balances.wallet_balance(player=p, currency="XGC") for p in (alice.player, bot)]
    fee = 100 * 2 * 500 // 10_000
    assert sum(chips) == 2 * 10_000 - fee  # the grants, less the fee in chips


@pytest.mark.django_db(transaction=True)
def test_a_bot_enabled_room_seats_the_bot_as_soon_as_a_player_sits(
    alice, operator, seeds, settings
):
    settings.BOT_MOVE_DELAY_SECONDS = 0
    room = RoomFactory(operator=operator, practice=True, variant="ftk", target=None, stake=100)
    Room.objects.filter(pk=room.pk).update(bot_enabled=True)
    table = TableFactory(room=room)
    response = sit(alice, table.pk)
    assert response.status_code == 201 and response.json()["state"] == "playing"
    match_id = response.json()["match_id"]
    players = Seat.objects.filter(match_id=match_id).values_list("player__display_name", flat=True)
    assert sorted(players) == sorted([alice.player.display_name, services.HOUSE_BOT_NAME])
    assert view(alice, match_id).json()["hand"]["your_turn"]  # the bot answered at once
    _play_against_the_bot(alice, match_id)
    assert Match.objects.get(pk=match_id).status == Match.Status.SETTLED


def test_the_bot_enabled_option_is_for_practice_rooms_only(operator_client, idem):
    body = {"name": "Bot", "variant": "ftk", "stake": "1.00", "bot_enabled": True}
    refused = operator_client.post("/api/v1/rooms", body, format="json", **idem())
    assert refused.status_code == 422
    assert refused.json()["type"] == "/problems/invalid-room-options"
    assert refused.json()["field"] == "bot_enabled"
    ok = operator_client.post(
        "/api/v1/rooms", {**body, "is_practice": True, "stake": "100"}, format="json", **idem()
    )
    assert ok.status_code == 201, ok.json()
    assert ok.json()["bot_enabled"] is True and ok.json()["currency"] == "XGC"


def test_real_money_tables_never_seat_the_bot(alice, operator, seeds):
    fund(alice.player, 1_000)
    table = TableFactory(room=RoomFactory(operator=operator, stake=500))
    assert sit(alice, table.pk).status_code == 201
    response = _invite(alice, table.pk)
    assert response.status_code == 409
    assert response.json()["type"] == "/problems/bot-not-allowed"
    bot = services.house_bot_player(operator=operator)
    with pytest.raises(BotNotAllowedProblem):
        services.seat_take(player=bot, table=table, actor=services.BOT_ACTOR)
    assert not Seat.objects.filter(player=bot).exists()
    assert not LedgerEntry.objects.filter(account__player=bot).exists()
    assert Match.objects.get(table=table).status == Match.Status.WAITING


def test_inviting_the_bot_needs_a_seat_at_that_table(alice, bob, practice_table, seeds):
    response = _invite(alice, practice_table.pk)
    assert response.status_code == 409 and response.json()["type"] == "/problems/not-seated"
    sit(alice, practice_table.pk)
    sit(bob, practice_table.pk)  # a human took the second seat: no room for the bot
    full = _invite(alice, practice_table.pk)
    assert full.status_code == 409 and full.json()["type"] == "/problems/table-full"


def test_the_house_bot_is_one_player_per_operator(operator):
    first = services.house_bot_player(operator=operator)
    assert services.house_bot_player(operator=operator) == first
    assert first.display_name == services.HOUSE_BOT_NAME and services.is_house_bot(first)
    assert HouseBot.objects.filter(operator=operator).count() == 1


def _bot_game(alice, practice_table, django_capture_on_commit_callbacks, *, execute: bool):
    sit(alice, practice_table.pk)
    with django_capture_on_commit_callbacks(execute=execute):
        response = _invite(alice, practice_table.pk)
    match = Match.objects.get(pk=response.json()["match_id"])
    return match, match.bot_seat


def test_a_stale_or_repeated_bot_task_does_nothing(
    alice, practice_table, seeds, django_capture_on_commit_callbacks
):
    match, bot = _bot_game(alice, practice_table, django_capture_on_commit_callbacks, execute=False)
    hand = match.hands.get()
    if hand.to_act != bot:  # make it the bot's turn: the human passes the upcard
        with django_capture_on_commit_callbacks(execute=False):
            act(alice, match.pk, kind="pass", expected_seq=match.seq)
        match.refresh_from_db()
    seq = match.seq
    assert bot_move.apply(args=(match.pk, seq - 1)).get() is False  # stale: nothing
    assert Match.objects.get(pk=match.pk).seq == seq
    with django_capture_on_commit_callbacks(execute=False):
        assert bot_move.apply(args=(match.pk, seq)).get() is True
    assert Match.objects.get(pk=match.pk).seq > seq
    moved = Match.objects.get(pk=match.pk).seq
    assert bot_move.apply(args=(match.pk, seq)).get() is False  # redelivered: nothing
    assert Match.objects.get(pk=match.pk).seq == moved


def test_the_bot_decides_from_its_own_player_view_only(
    alice, practice_table, seeds, django_capture_on_commit_callbacks, monkeypatch
):
    seen: list[dict] = []
    real = engine.choose_bot_action

    def spy(view_, **kwargs):
        seen.append(view_)
        return real(view_, **kwargs)

    def no_peeking(*args, **kwargs):  # the full-state bot would see the opponent's cards
        raise AssertionError("the house bot used the full hand state")

    monkeypatch.setattr(engine, "choose_bot_action", spy)
    monkeypatch.setattr(engine, "choose_action", no_peeking)
    match, bot = _bot_game(alice, practice_table, django_capture_on_commit_callbacks, execute=True)
    for _ in range(6):
        look = view(alice, match.pk).json()
        if look["match"]["status"] != "running":
            break
        move = engine.choose_action_from_view(look["hand"])
        with django_capture_on_commit_callbacks(execute=True):
            act(alice, match.pk, **move, expected_seq=look["seq"])
    assert seen
    for bot_view in seen:
        assert bot_view["seat"] == bot
        assert "hands" not in bot_view or bot_view["phase"] == "ended"
        assert "stock" not in bot_view and "seed" not in bot_view


def test_an_expired_bot_turn_is_queued_again_not_forfeited(
    alice, practice_table, seeds, django_capture_on_commit_callbacks
):
    match, bot = _bot_game(alice, practice_table, django_capture_on_commit_callbacks, execute=False)
    hand = match.hands.get()
    if hand.to_act != bot:
        with django_capture_on_commit_callbacks(execute=False):
            act(alice, match.pk, kind="pass", expected_seq=match.seq)
    seq = Match.objects.get(pk=match.pk).seq
    Hand.objects.filter(pk=hand.pk).update(turn_deadline=timezone.now() - timedelta(minutes=5))
    with django_capture_on_commit_callbacks(execute=False):
        sweep = services.turn_timers_expire()  # the bot's lost message is sent again
    assert sweep.bot_nudged == [match.pk] and sweep.forfeited == []
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING and match.forfeit_seat is None
    assert match.seq > seq  # the bot moved


def _drain_the_bot(alice, operator, django_capture_on_commit_callbacks):
    """The bot's whole grant goes into one table's escrow; returns a second table."""
    stake = wallet_services.practice_grant_amount()
    room = RoomFactory(operator=operator, practice=True, stake=stake)
    first, second = TableFactory(room=room), TableFactory(room=room)
    sit(alice, first.pk)
    with django_capture_on_commit_callbacks(execute=False):
        assert _invite(alice, first.pk).status_code in (200, 201)
    bot = services.house_bot_player(operator=operator)
    assert balances.wallet_balance(player=bot, currency=PRACTICE_CURRENCY) == 0
    return bot, second


def _top_ups(bot) -> int:
    return LedgerTransaction.objects.filter(player=bot, kind="practice_top_up").count()


def test_inviting_a_bot_out_of_chips_tops_them_up_and_seats_it(
    alice, bob, operator, seeds, django_capture_on_commit_callbacks
):
    bot, table = _drain_the_bot(alice, operator, django_capture_on_commit_callbacks)
    sit(bob, table.pk)
    with django_capture_on_commit_callbacks(execute=False):
        invited = _invite(bob, table.pk)
    assert invited.status_code in (200, 201), invited.json()
    assert Match.objects.get(pk=invited.json()["match_id"]).bot_seat is not None
    assert _top_ups(bot) == 1
    assert balances.wallet_balance(player=bot, currency=PRACTICE_CURRENCY) == 0


def test_inviting_a_bot_out_of_chips_and_already_topped_up_is_refused(
    alice, bob, operator, seeds, django_capture_on_commit_callbacks
):
    bot, table = _drain_the_bot(alice, operator, django_capture_on_commit_callbacks)
    topped_up = wallet_services.practice_chips_top_up(player=bot, actor=services.BOT_ACTOR)
    wallet_services.table_buy_in(  # ...and staked all of it in another game
        player=bot,
        game_ref="match:999999",
        amount=topped_up.amount,
        currency=PRACTICE_CURRENCY,
        reference="test:spend-the-top-up",
        actor=services.BOT_ACTOR,
    )
    sit(bob, table.pk)
    refused = _invite(bob, table.pk)
    assert refused.status_code == 409 and refused.json()["type"] == "/problems/insufficient-funds"
    assert _top_ups(bot) == 1  # at most one a period: the player waits for a human instead
    assert Seat.objects.filter(player=bob.player, table=table, state="seated").exists()


def test_a_bot_out_of_chips_in_a_bot_room_is_topped_up_after_the_players_seat_commits(
    alice, bob, operator, seeds, django_capture_on_commit_callbacks
):
    bot, table = _drain_the_bot(alice, operator, django_capture_on_commit_callbacks)
    Room.objects.filter(pk=table.room_id).update(bot_enabled=True)
    with django_capture_on_commit_callbacks(execute=True):
        seated = sit(bob, table.pk)  # the bot cannot join: bob waits, seated
    assert seated.status_code in (200, 201)
    assert seated.json()["state"] == "seated"
    assert _top_ups(bot) == 1
    assert balances.wallet_balance(player=bot, currency=PRACTICE_CURRENCY) == (
        wallet_services.practice_grant_amount()
    )
