"""A tournament from registration to its last prize over the real services on PostgreSQL
(R14): the draw equal to the replay of the revealed seed, a table seated the moment its
players are known, byes, places shared by round, prizes + fees = buy-ins + overlay to the
minor unit, the escrow empty at the end, cancellation before and after a result."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Match, Seat
from games.services.timers import match_resign
from games.services.tournament_matches import tournament_seat_claim
from tests.factories import SYSTEM, OperatorFactory, PlayerFactory
from tournaments import engine
from tournaments.models import BracketTable, Entry, Tournament
from tournaments.services.creation import TournamentOptions, tournament_create
from tournaments.services.lifecycle import tournament_cancel, tournament_start
from tournaments.services.registration import entry_register, entry_unregister
from wallet import services as wallet
from wallet.selectors import balances as wallet_selectors

pytestmark = pytest.mark.django_db(transaction=True)

STAKE = 1_000  # 10.00 EUR buy-in
FEE = 100  # 1.00 EUR fee
FUNDS = 100_000
counter = itertools.count()


def funded_player(operator, **fields):
    player = PlayerFactory(operator=operator, **fields)
    wallet.deposit(
        player=player,
        amount=FUNDS,
        currency=player.wallet_currency,
        reference=f"test-deposit-{next(counter)}",
        actor=SYSTEM,
    )
    return player


def balance(player) -> int:
    return wallet_selectors.wallet_balance(player=player)


def sit_and_go(operator, *, entries: int, seats: int = 2, advance: int = 1, **options):
    return tournament_create(
        operator=operator,
        options=TournamentOptions(
            name=f"Sit and go {entries}",
            kind="sit_and_go",
            seats=seats,
            advance=advance,
            currency="EUR",
            max_entries=entries,
            buy_in=options.pop("buy_in", STAKE),
            entry_fee=options.pop("entry_fee", FEE),
            round_settings=[{"variant": "ftk", "target": None}],
            **options,
        ),
        actor=SYSTEM,
    )


def play_out(tournament: Tournament, *, loses: Callable[[list], int] = lambda seats: -1) -> None:
    """Play every seated table until the tournament ends: every player takes their seat,
    then the seat ``loses(seats)`` picks resigns (the last by default)."""
    for _ in range(10_000):
        tournament.refresh_from_db()
        if tournament.status in Tournament.ENDED_STATUSES:
            return
        table = (
            BracketTable.objects.filter(tournament=tournament, status="playing")
            .order_by("round", "number")
            .first()
        )
        assert table is not None, "a running tournament always has a table in play"
        match = table.match
        for seat in Seat.objects.filter(match=match).order_by("position"):
            tournament_seat_claim(player=seat.player, match=match, actor=SYSTEM)
        while Match.objects.get(pk=match.pk).status == Match.Status.RUNNING:
            seats = list(
                Seat.objects.filter(match=match, state=Seat.State.PLAYING).order_by("position")
            )
            match_resign(seat=seats[loses(seats)], actor=SYSTEM)
    raise AssertionError("the tournament did not end")


@pytest.fixture
def operator():
    return OperatorFactory()


def test_eight_heads_up_play_to_a_winner_paid_exactly(operator) -> None:
    players = [funded_player(operator) for _ in range(8)]
    tournament = sit_and_go(operator, entries=8)
    for player in players:
        entry_register(player=player, tournament=tournament, actor=SYSTEM)
    assert all(balance(player) == FUNDS - STAKE - FEE for player in players)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING  # full: started by its task
    assert tournament.prize_pool == 8 * STAKE and tournament.rounds == 3
    assert BracketTable.objects.filter(tournament=tournament, status="playing").count() == 4

    play_out(tournament)

    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    entries = {entry.player_id: entry for entry in Entry.objects.filter(tournament=tournament)}
    # The default table for 8 entries pays 66.67% and 33.33% of 80.00.
    prizes = sorted((entry.prize for entry in entries.values()), reverse=True)
    assert prizes == [5_334, 2_666, 0, 0, 0, 0, 0, 0]
    assert sum(prizes) + 8 * FEE == 8 * (STAKE + FEE)
    for player in players:
        assert balance(player) == FUNDS - STAKE - FEE + entries[player.pk].prize
    assert wallet_selectors.escrow_balance(game_ref=tournament.game_ref, currency="EUR") == 0
    places = sorted((entry.place_from, entry.place_to) for entry in entries.values())
    assert places == [(1, 1), (2, 2), (3, 4), (3, 4), (5, 8), (5, 8), (5, 8), (5, 8)]


def test_the_bracket_is_the_replay_of_the_revealed_seed(operator) -> None:
    players = [funded_player(operator) for _ in range(11)]
    tournament = sit_and_go(operator, entries=11)
    for player in players:
        entry_register(player=player, tournament=tournament, actor=SYSTEM)
    play_out(tournament, loses=lambda seats: 0)  # the first seat loses: not the draw's order
    tournament.refresh_from_db()
    assert engine.seed_commitment(tournament.seed) == tournament.seed_commitment
    tables = {(t.round, t.number): t for t in BracketTable.objects.filter(tournament=tournament)}
    registered = list(Entry.objects.filter(tournament=tournament).order_by("number"))
    ids = [entry.pk for entry in registered]

    def published(round_number, number, players):
        return tables[(round_number, number)].advancing

    replayed = engine.bracket_replay(
        seed=tournament.seed, entries=ids, seats=2, advance=1, ranking=published
    )
    for table in replayed:
        live = tables[(table.round, table.number)]
        assert list(table.players) == live.entries
        assert (live.status == "bye") == (not table.played)
    byes = [t for t in replayed if not t.played]
    assert len(byes) == 5  # 11 in a 16 bracket: the first five of the draw


def test_four_seat_tables_send_one_on_and_the_final_ranks_four(operator) -> None:
    players = [funded_player(operator) for _ in range(16)]
    tournament = sit_and_go(operator, entries=16, seats=4)
    for player in players:
        entry_register(player=player, tournament=tournament, actor=SYSTEM)
    play_out(tournament)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    final = BracketTable.objects.get(tournament=tournament, round=2)
    assert len(final.entries) == 4 and len(final.advancing) == 4
    total = sum(Entry.objects.filter(tournament=tournament).values_list("prize", flat=True))
    assert total == tournament.prize_pool == 16 * STAKE


def test_too_few_entries_at_the_start_cancel_and_refund_in_full(operator) -> None:
    players = [funded_player(operator) for _ in range(3)]
    tournament = tournament_create(
        operator=operator,
        options=TournamentOptions(
            name="Sunday",
            kind="scheduled",
            seats=2,
            currency="EUR",
            min_entries=4,
            max_entries=64,
            buy_in=STAKE,
            entry_fee=FEE,
            guaranteed=10_000,
            starts_at=timezone.now() + timedelta(seconds=1),
            round_settings=[{"variant": "match", "target": 100}],
        ),
        actor=SYSTEM,
    )
    for player in players:
        entry_register(player=player, tournament=tournament, actor=SYSTEM)
    Tournament.objects.filter(pk=tournament.pk).update(starts_at=timezone.now())
    tournament_start(tournament_id=tournament.pk, actor=SYSTEM)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED
    assert tournament.cancel_reason == "too_few_entries"
    assert all(balance(player) == FUNDS for player in players)
    assert wallet_selectors.escrow_balance(game_ref=tournament.game_ref, currency="EUR") == 0


def test_unregistering_refunds_and_registering_twice_charges_once(operator) -> None:
    player = funded_player(operator)
    tournament = sit_and_go(operator, entries=4)
    first = entry_register(player=player, tournament=tournament, actor=SYSTEM)
    again = entry_register(player=player, tournament=tournament, actor=SYSTEM)
    assert first.created and not again.created and again.entry.pk == first.entry.pk
    assert balance(player) == FUNDS - STAKE - FEE
    entry_unregister(player=player, tournament=tournament, actor=SYSTEM)
    assert balance(player) == FUNDS


def test_a_guaranteed_freeroll_pays_its_overlay(operator) -> None:
    players = [funded_player(operator) for _ in range(4)]
    tournament = sit_and_go(operator, entries=4, buy_in=0, entry_fee=0, guaranteed=5_000)
    for player in players:
        entry_register(player=player, tournament=tournament, actor=SYSTEM)
    tournament.refresh_from_db()
    assert tournament.overlay == 5_000 and tournament.prize_pool == 5_000
    play_out(tournament)
    assert sorted(balance(player) - FUNDS for player in players) == [0, 0, 0, 5_000]


def test_a_cancellation_after_a_result_shares_the_rest_among_those_still_in(operator) -> None:
    players = [funded_player(operator) for _ in range(8)]
    tournament = sit_and_go(operator, entries=8)
    for player in players:
        entry_register(player=player, tournament=tournament, actor=SYSTEM)
    table = BracketTable.objects.filter(tournament=tournament, status="playing").first()
    for seat in Seat.objects.filter(match=table.match):
        tournament_seat_claim(player=seat.player, match=table.match, actor=SYSTEM)
    seat = Seat.objects.filter(match=table.match).order_by("position").first()
    match_resign(seat=seat, actor=SYSTEM)
    tournament_cancel(tournament_id=tournament.pk, reason="staff", actor=SYSTEM)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED
    still_in = Entry.objects.filter(tournament=tournament, status=Entry.Status.IN)
    assert still_in.count() == 7
    assert sorted(set(still_in.values_list("prize", flat=True))) == [1_142, 1_143]
    assert sum(still_in.values_list("prize", flat=True)) == 8 * STAKE
    assert wallet_selectors.escrow_balance(game_ref=tournament.game_ref, currency="EUR") == 0


def test_a_satellite_pays_tickets_that_enter_its_target(operator) -> None:
    target = sit_and_go(operator, entries=4, buy_in=2_000, entry_fee=200)
    satellite = tournament_create(
        operator=operator,
        options=TournamentOptions(
            name="Satellite",
            kind="sit_and_go",
            seats=2,
            currency="EUR",
            max_entries=8,
            buy_in=STAKE,
            entry_fee=FEE,
            round_settings=[{"variant": "ftk", "target": None}],
            satellite_for=target.pk,
        ),
        actor=SYSTEM,
    )
    players = [funded_player(operator) for _ in range(8)]
    for player in players:
        entry_register(player=player, tournament=satellite, actor=SYSTEM)
    play_out(satellite)
    entries = Entry.objects.filter(tournament=satellite)
    # 80.00 holds three tickets worth 22.00 and 14.00 in money for 4th (the semi-final's
    # losers share 3rd-4th: the earlier registration takes the ticket).
    assert entries.filter(prize_ticket=True).count() == 3
    assert sorted(entries.filter(prize_ticket=False).values_list("prize", flat=True)) == [
        0,
        0,
        0,
        0,
        1_400,
    ]
    assert wallet_selectors.escrow_balance(game_ref=satellite.game_ref, currency="EUR") == 0
    for entry in entries.filter(prize_ticket=True):
        before = balance(entry.player)
        result = entry_register(player=entry.player, tournament=target, actor=SYSTEM, ticket=True)
        assert result.entry.payment == Entry.Payment.TICKET
        assert balance(entry.player) == before  # the ticket paid
