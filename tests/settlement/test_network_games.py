"""Network play's money end to end (docs/network.md "Money between operators", "Settling the
network"): three operators in two currencies (A: EUR wallets; B: GBP wallets at EUR tables;
C: seamless, its players' money in the reference operator wallet) play 100 network games
through the service layer (seat_take, resignation) and real settlement
(settlement.services.game_settle). Afterwards every wallet, operator wallet, network
position, fee account and the network statement agree to the minor unit with an
independent computation here; the positions net to zero and ``reconcile`` passes. Each
operator's game.settled webhook shows the other operators' players by screen name only."""

from __future__ import annotations

import json
import math
import random
from collections import defaultdict
from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.db import transaction
from django.utils import timezone

from games import services as games_services
from games.models import Match, Seat
from gin_platform.demo.seamless_wallet import OperatorWalletServer
from gin_platform.models import OperatorEvent
from settlement import network as network_statement
from settlement import services as settlement_services
from settlement.models import Settlement
from settlement.statements import OTHER_OPERATOR_PLAYER_FIELDS
from tests.factories import SYSTEM, PlayerFactory
from tests.games.factories import TableFactory
from tests.games.network_world import member_make, network_make, network_room_make
from tests.settlement.helpers import finish_with, seat_two
from tests.wallet.factories import ExchangeRateFactory, fund
from wallet import services
from wallet.models import Account, WalletCall
from wallet.problems import EscrowUnbalancedProblem
from wallet.selectors import balances, reconciliation
from wallet.selectors import network as network_selectors
from wallet.services import seamless as seamless_module

pytestmark = pytest.mark.django_db(transaction=True)

GAMES = 100
GBP_RATE = Decimal("0.8500")
START = 100_000  # minor units each player starts with
FEE_SHARE_BPS = 2000


@pytest.fixture(autouse=True)
def _fast(monkeypatch):
    monkeypatch.setattr(seamless_module, "QUICK_BACKOFF_SECONDS", 0.001)


@pytest.fixture
def server():

    # The secret is set once the seamless operator exists (its webhook secret).
    running = OperatorWalletServer(secret="")
    running.start()
    yield running
    running.stop()


def _expected_fee_shares(fee: int, stakes_by_operator: dict) -> tuple[dict, int]:
    pot = sum(stakes_by_operator.values())
    shares = {
        op: fee * stake * (10_000 - FEE_SHARE_BPS) // (pot * 10_000)
        for op, stake in stakes_by_operator.items()
    }
    return shares, fee - sum(shares.values())


def _to_gbp(minor: int, rounding) -> int:
    return int(rounding(Decimal(minor) * GBP_RATE))


@pytest.mark.slow
def test_a_hundred_network_games_between_three_operators_agree_to_the_minor_unit(server):
    network = network_make(fee_share_bps=FEE_SHARE_BPS).operator
    ExchangeRateFactory(base="EUR", quote="GBP", rate=GBP_RATE)
    a = member_make(name="Alpha", webhook_url="")
    b = member_make(name="Bravo", base_currency="GBP", webhook_url="")
    c = member_make(name="Charlie", webhook_url="")
    server.secret = c.webhook_secret
    services.operator_wallet_set(
        operator=c, mode="seamless", base_url=server.base_url, timeout_ms=2000, actor=SYSTEM
    )
    players = {
        a: [PlayerFactory(operator=a, screen_name=f"alpha{i}") for i in range(2)],
        b: [
            PlayerFactory(
                operator=b, screen_name=f"bravo{i}", wallet_currency="GBP", display_currency="GBP"
            )
            for i in range(2)
        ],
        c: [PlayerFactory(operator=c, screen_name=f"charlie{i}") for i in range(2)],
    }
    for player in players[a] + players[b]:
        fund(player, START)
    for player in players[c]:
        server.set_balance(player.external_ref, Decimal(START) / 100)
    rooms = [
        network_room_make(stake=500, fee_bps=500),
        network_room_make(name="Network FTK", variant="ftk", target=None, stake=333, fee_bps=250),
    ]
    pairs = [(a, b), (a, c), (b, c), (a, a), (b, b), (c, c)]
    rng = random.Random(20261130)

    wallet = defaultdict(int)  # player pk -> change in the wallet's currency
    position = defaultdict(int)  # operator -> position (EUR)
    fees = defaultdict(int)  # operator -> house fee (EUR), the network's included
    games = defaultdict(int)
    turnover = defaultdict(int)
    payouts = defaultdict(int)
    cross_match = None
    for number in range(GAMES):
        first_op, second_op = pairs[number % len(pairs)]
        room = rooms[number % len(rooms)]
        if first_op == second_op:
            seated = players[first_op]
        else:
            index = (number // len(pairs)) % 2
            seated = [players[first_op][index], players[second_op][1 - index]]
        table = TableFactory(room=room)
        for player in seated:
            games_services.seat_take(player=player, table=table, actor=SYSTEM)
        match = Match.objects.get(table=table)
        assert match.operator_id == network.pk and match.status == Match.Status.RUNNING
        loser = rng.randrange(2)
        seat = Seat.objects.get(match=match, position=loser)
        games_services.match_resign(seat=seat, actor=SYSTEM)
        settlement_services.game_settle(match_id=match.pk)  # settled on commit already: no-op
        settlement = Settlement.objects.get(match=match)
        if first_op != second_op and cross_match is None:
            cross_match = match

        # The independent computation of this game.
        stake = room.stake
        pot = 2 * stake
        fee = pot * room.fee_bps // 10_000
        by_position = {s.position: s.player for s in Seat.objects.filter(match=match)}
        winner = by_position[1 - loser]
        stakes_by_operator = defaultdict(int)
        for player in by_position.values():
            stakes_by_operator[player.operator_id] += stake
        shares, kept = _expected_fee_shares(fee, stakes_by_operator)
        assert settlement.ledger_transaction.metadata["network"]["network_fee"] == kept
        fees[network.pk] += kept
        for player in by_position.values():
            paid = pot - fee if player == winner else 0
            op = player.operator_id
            if player.wallet_currency == "GBP":
                wallet[player.pk] += _to_gbp(paid, math.floor) - _to_gbp(stake, math.ceil)
            else:
                wallet[player.pk] += paid - stake
            position[op] += stake - paid
            turnover[op] += stake
            payouts[op] += paid
        for op, share in shares.items():
            position[op] -= share
            fees[op] += share
            games[op] += 1

    # Seamless credits were sent after each commit; any late one is swept.
    WalletCall.objects.filter(status="pending").update(next_attempt_at=timezone.now())
    services.seamless_calls_sweep(actor=SYSTEM)
    assert not WalletCall.objects.filter(status="pending").exists()

    for op in (a, b):
        for player in players[op]:
            assert balances.wallet_balance(player=player) == START + wallet[player.pk]
    for player in players[c]:
        assert balances.wallet_balance(player=player) == 0  # a transit account
        assert server.balance(player.external_ref) * 100 == START + wallet[player.pk]
    position[network.pk] = -sum(position.values())
    for op in (a, b, c, network):
        got = network_selectors.network_position_balance(operator=op, currency="EUR")
        assert got == position[op.pk], op.name
        fee_kind = Account.Kind.HOUSE_FEE
        assert balances.house_balance(operator=op, kind=fee_kind, currency="EUR") == fees[op.pk]
    assert network_selectors.network_positions_net() == {"EUR": 0}
    assert reconciliation.reconcile().ok
    call_command("reconcile")  # exits non-zero on any drift

    now = timezone.now()
    statement = network_statement.network_statement(
        network=network,
        operators=[a, b, c],
        start=now - timedelta(days=1),
        end=now + timedelta(minutes=1),
        include_network=True,
    )
    totals = defaultdict(lambda: defaultdict(int))
    last_position = {}
    for row in statement.rows:
        for name in ("games", "turnover", "payouts", "fees", "net"):
            totals[row.operator][name] += getattr(row, name)
        last_position[row.operator] = row.position
    for op in (a, b, c):
        assert totals[op.slug]["games"] == games[op.pk]
        assert totals[op.slug]["turnover"] == turnover[op.pk]
        assert totals[op.slug]["payouts"] == payouts[op.pk]
        assert totals[op.slug]["fees"] == fees[op.pk]
        assert totals[op.slug]["net"] == position[op.pk]
        assert last_position[op.slug] == position[op.pk]
    assert totals[network.slug]["games"] == GAMES
    assert totals[network.slug]["fees"] == fees[network.pk]
    assert totals[network.slug]["net"] == -fees[network.pk] == position[network.pk]
    assert totals[network.slug]["turnover"] == sum(turnover.values())
    assert totals[network.slug]["payouts"] == sum(payouts.values())
    assert sum(total["net"] for total in totals.values()) == 0
    assert last_position[network.slug] == position[network.pk]
    assert "owed_to_network" in network_statement.statement_csv(statement).splitlines()[0]

    # game.settled: each participating operator gets it, the others' players masked.
    events = OperatorEvent.objects.filter(
        type="game.settled", data__match_id=cross_match.pk
    ).select_related("operator")
    seated = {s.player.operator_id: s.player for s in Seat.objects.filter(match=cross_match)}
    assert {event.operator_id for event in events} == set(seated)
    for event in events:
        other = next(p for op, p in seated.items() if op != event.operator_id)
        body = json.dumps(event.data)
        assert str(other.pk) not in body and other.external_ref not in body
        assert str(other.operator_id) not in body
        entry = next(e for e in event.data["statement"]["players"] if "player_id" not in e)
        assert set(entry) <= set(OTHER_OPERATOR_PLAYER_FIELDS)
        assert entry["screen_name"] == other.screen_name


def test_a_network_game_that_cannot_be_settled_is_reported_to_each_operator_once():
    """settlement.failed, like the game's other events, goes to the operators whose players
    sat in it (never to the network's own operator, whom nobody reads as), once."""

    network = network_make().operator
    alpha, bravo = member_make(name="Alpha"), member_make(name="Bravo")
    players = [
        PlayerFactory(operator=alpha, screen_name="FailA"),
        PlayerFactory(operator=bravo, screen_name="FailB"),
    ]
    match = seat_two(TableFactory(room=network_room_make(stake=500)), players=players)
    seats = [
        {
            "position": seat.position,
            "seat_id": seat.pk,
            "player_id": str(seat.player_id),
            "amount": seat.amount * 10,  # more than the escrow holds
            "currency": seat.currency,
        }
        for seat in match.seats.order_by("position")
    ]
    with transaction.atomic():
        finish_with(match, winner_seat=0, seats=seats)
    for _ in range(2):  # the straggler sweep retries it
        with pytest.raises(EscrowUnbalancedProblem):
            settlement_services.game_settle(match_id=match.pk)
    for operator in (alpha, bravo):
        failed = OperatorEvent.objects.filter(operator=operator, type="settlement.failed")
        assert [event.data["match_id"] for event in failed] == [match.pk]
    assert not OperatorEvent.objects.filter(operator=network, type="settlement.failed").exists()
