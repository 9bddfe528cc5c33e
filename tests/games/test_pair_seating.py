"""Two players seated together, all or nothing (games/services/pair_seating.py, R15's quick
seat): both seats with their buy-ins at one table whose match starts, inside the caller's
claim and record; a refused seat refuses the pair with nothing charged (a seamless player's
debit rolled back); a table where somebody waits alone is never used."""

from __future__ import annotations

import pytest

from games import services
from games.models import Match, Seat
from gin_platform.demo.seamless_wallet import OperatorWalletServer
from tests.factories import SYSTEM, OperatorFactory, PlayerFactory
from tests.games.factories import RoomFactory, TableFactory
from tests.wallet.factories import fund
from tests.wallet.seamless import START, player_client, seamless_mode
from wallet.problems import InsufficientFundsProblem
from wallet.selectors import balances

pytestmark = pytest.mark.django_db


@pytest.fixture
def room(operator):
    return RoomFactory(operator=operator, ftk=True)  # 5.00 EUR


def players(operator, *funds: int):
    made = [PlayerFactory(operator=operator) for _ in funds]
    for player, amount in zip(made, funds, strict=True):
        if amount:
            fund(player, amount)
    return made


def balance(player) -> int:
    return balances.wallet_balance(player=player, currency="EUR")


def test_both_seats_are_taken_at_one_table_and_the_match_starts(room, operator):
    ann, bob = players(operator, 2_000, 2_000)
    seen: dict = {}

    def claim() -> bool:
        seen["claimed"] = True
        return True

    def record(seats) -> None:
        seen["seats"] = [(seat.player_id, seat.state) for seat in seats]

    seats = services.pair_seat(
        room=room,
        pair=[services.PairSeat(ann), services.PairSeat(bob)],
        actor=SYSTEM,
        claim=claim,
        record=record,
    )
    assert seats is not None and seats[0].match_id == seats[1].match_id
    assert [seat.position for seat in seats] == [0, 1]
    assert seen == {
        "claimed": True,
        "seats": [(ann.pk, Seat.State.PLAYING), (bob.pk, Seat.State.PLAYING)],
    }
    assert Match.objects.get(pk=seats[0].match_id).status == Match.Status.RUNNING
    assert balance(ann) == balance(bob) == 2_000 - 500


def test_a_refused_seat_refuses_the_pair_and_charges_nobody(room, operator):
    ann, bob = players(operator, 2_000, 0)
    with pytest.raises(services.PairSeatRefused) as refused:
        services.pair_seat(
            room=room,
            pair=[services.PairSeat(ann), services.PairSeat(bob)],
            actor=SYSTEM,
            claim=lambda: True,
            record=lambda seats: None,
        )
    assert refused.value.player_id == bob.pk
    assert isinstance(refused.value.problem, InsufficientFundsProblem)
    assert balance(ann) == 2_000
    assert not Seat.objects.filter(player__in=[ann, bob]).exists()
    assert not Match.objects.filter(room=room).exists()


def test_a_claim_refused_seats_nobody(room, operator):
    ann, bob = players(operator, 2_000, 2_000)
    recorded = []
    seats = services.pair_seat(
        room=room,
        pair=[services.PairSeat(ann), services.PairSeat(bob)],
        actor=SYSTEM,
        claim=lambda: False,
        record=recorded.append,
    )
    assert seats is None and recorded == []
    assert not Seat.objects.filter(player__in=[ann, bob]).exists()
    assert balance(ann) == balance(bob) == 2_000


def test_a_table_where_somebody_waits_alone_is_left_to_them(room, operator):
    ann, bob, cleo = players(operator, 2_000, 2_000, 2_000)
    alone = TableFactory(room=room)
    services.seat_take(player=cleo, table=alone, actor=SYSTEM)
    seats = services.pair_seat(
        room=room,
        pair=[services.PairSeat(ann), services.PairSeat(bob)],
        actor=SYSTEM,
        claim=lambda: True,
        record=lambda seats: None,
    )
    assert seats is not None and seats[0].table_id != alone.pk
    assert Seat.objects.filter(table=alone).count() == 1


def test_a_pair_is_two_players_at_a_heads_up_table(operator):
    four = RoomFactory(operator=operator, ftk=True, seats=4)
    ann, bob = players(operator, 2_000, 2_000)
    with pytest.raises(ValueError, match="heads-up"):
        services.pair_seat(
            room=four,
            pair=[services.PairSeat(ann), services.PairSeat(bob)],
            actor=SYSTEM,
            claim=lambda: True,
            record=lambda seats: None,
        )


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_seamless_players_are_debited_first_and_a_refusal_rolls_the_other_back():
    """The operator's wallet is asked before the transaction, as for a sit: both debited and
    seated; then a pair whose second player's wallet is short leaves the first one's money
    where it was (the debit rolled back) and nobody seated."""
    operator = OperatorFactory(webhook_url="")
    with OperatorWalletServer(secret=operator.webhook_secret) as server:
        seamless_mode(operator, server)
        room = RoomFactory(operator=operator, ftk=True)  # 5.00 EUR
        ann, bob, cat, dan = (
            player_client(operator, server, name).player for name in ("Ann", "Bob", "Cat", "Dan")
        )
        seats = services.pair_seat(
            room=room,
            pair=[services.PairSeat(ann), services.PairSeat(bob)],
            actor=SYSTEM,
            claim=lambda: True,
            record=lambda seats: None,
        )
        assert seats is not None
        assert server.balance(ann.external_ref) == server.balance(bob.external_ref) == START - 5
        server.set_balance(dan.external_ref, "1.00")
        with pytest.raises(services.PairSeatRefused) as refused:
            services.pair_seat(
                room=room,
                pair=[services.PairSeat(cat), services.PairSeat(dan)],
                actor=SYSTEM,
                claim=lambda: True,
                record=lambda seats: None,
            )
        assert refused.value.player_id == dan.pk
        assert server.balance(cat.external_ref) == START  # debited, then rolled back
        assert not Seat.objects.filter(player__in=[cat, dan]).exists()
