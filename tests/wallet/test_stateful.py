"""A Hypothesis state machine over deposits, withdrawals, buy-ins, payouts, refunds,
reversals and conversions. After every step the ledger sums to zero per currency, every
cached balance equals its entries (reconcile), and every wallet and escrow holds exactly
what an independent model of the rules says.

Runs on SQLite and PostgreSQL; each example lives in a savepoint that is rolled back.
"""

from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

import pytest
from django.db import transaction
from django.db.models import Sum
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from tests.factories import OperatorFactory, PlayerFactory
from tests.wallet.factories import SYSTEM, ExchangeRateFactory
from wallet import services
from wallet.models import Account
from wallet.problems import (
    EscrowNotFoundProblem,
    EscrowSettledProblem,
    InsufficientFundsProblem,
    NothingToRefundProblem,
)
from wallet.selectors import balances, reconciliation
from wallet.services import EscrowPayout

RATE = Decimal("1.0725")  # 1 EUR = 1.0725 USD; every room plays in EUR
GAMES = ("match:1", "match:2", "match:3")


def eur_to_usd(amount: int, rounding: str) -> int:
    return int((Decimal(amount) * RATE).to_integral_value(rounding=rounding))


class LedgerMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self._savepoint = transaction.atomic()
        self._savepoint.__enter__()
        self.counter = 0
        operator = OperatorFactory(base_currency="EUR")
        ExchangeRateFactory(base="EUR", quote="USD", rate=RATE)
        self.players = [
            PlayerFactory(operator=operator),
            PlayerFactory(operator=operator),
            PlayerFactory(operator=operator, wallet_currency="USD", display_currency="USD"),
        ]
        self.wallet = {p.pk: 0 for p in self.players}
        # game -> player -> (EUR in escrow, what the wallet paid in its own currency)
        self.games = list(GAMES)
        self.stakes: dict[str, dict] = {game: {} for game in GAMES}
        self.participants: dict[str, set] = {game: set() for game in GAMES}
        self.settlement: dict[str, tuple] = {}  # game -> (txn, {pk: wallet credit})
        self.cashier: list[tuple] = []  # (txn, wallet delta) of deposits and withdrawals

    def teardown(self) -> None:
        transaction.set_rollback(True)
        self._savepoint.__exit__(None, None, None)

    def reference(self) -> str:
        self.counter += 1
        return f"sm:{self.counter}"

    def converts(self, player) -> bool:
        return player.wallet_currency != "EUR"

    # --- Rules ------------------------------------------------------------------------------
    @initialize(amounts=st.lists(st.integers(1, 20_000), min_size=3, max_size=3))
    def open_wallets(self, amounts):
        for who, amount in enumerate(amounts):
            self.deposit(who, amount)

    @rule(who=st.integers(0, 2), amount=st.integers(1, 5000))
    def deposit(self, who, amount):
        player = self.players[who]
        txn = services.deposit(
            player=player,
            amount=amount,
            currency=player.wallet_currency,
            reference=self.reference(),
            actor=SYSTEM,
        )
        self.wallet[player.pk] += amount
        self.cashier.append((txn, player.pk, amount))

    @rule(who=st.integers(0, 2), amount=st.integers(1, 6000))
    def withdraw(self, who, amount):
        player = self.players[who]
        call = dict(
            player=player,
            amount=amount,
            currency=player.wallet_currency,
            reference=self.reference(),
            actor=SYSTEM,
        )
        if amount > self.wallet[player.pk]:
            with pytest.raises(InsufficientFundsProblem):
                services.withdraw(**call)
            return
        txn = services.withdraw(**call)
        self.wallet[player.pk] -= amount
        self.cashier.append((txn, player.pk, -amount))

    @rule(who=st.integers(0, 2), game=st.sampled_from(GAMES), amount=st.integers(1, 3000))
    def buy_in(self, who, game, amount):
        player = self.players[who]
        paid = eur_to_usd(amount, ROUND_CEILING) if self.converts(player) else amount
        call = dict(
            player=player,
            game_ref=game,
            amount=amount,
            currency="EUR",
            reference=self.reference(),
            actor=SYSTEM,
        )
        if game in self.settlement:
            with pytest.raises(EscrowSettledProblem):
                services.table_buy_in(**call)
            return
        if paid > self.wallet[player.pk]:
            with pytest.raises(InsufficientFundsProblem):
                services.table_buy_in(**call)
            return
        services.table_buy_in(**call)
        self.wallet[player.pk] -= paid
        held, spent = self.stakes[game].get(player.pk, (0, 0))
        self.stakes[game][player.pk] = (held + amount, spent + paid)
        self.participants[game].add(player.pk)

    @precondition(lambda self: any(self.participants.values()))
    @rule(who=st.integers(0, 2), game=st.sampled_from(GAMES))
    def refund(self, who, game):
        player = self.players[who]
        call = dict(
            player=player, game_ref=game, currency="EUR", reference=self.reference(), actor=SYSTEM
        )
        if not self.participants[game]:
            with pytest.raises(EscrowNotFoundProblem):
                services.table_refund(**call)
            return
        if game in self.settlement:
            with pytest.raises(EscrowSettledProblem):
                services.table_refund(**call)
            return
        if not self.stakes[game].get(player.pk, (0, 0))[0]:
            with pytest.raises(NothingToRefundProblem):
                services.table_refund(**call)
            return
        services.table_refund(**call)
        _, spent = self.stakes[game].pop(player.pk)
        self.wallet[player.pk] += spent  # exactly what the wallet paid: no FX either way

    @rule(data=st.data(), stake=st.integers(1, 2000))
    def play_a_game(self, data, stake):
        """Two players sit down at a new table (each buy-in checked against the model) and,
        if anyone could pay, the game is settled at once: the common path of a real table."""
        game = f"table:{self.reference()}"
        self.games.append(game)
        self.stakes[game], self.participants[game] = {}, set()
        for who in data.draw(st.permutations(range(3)))[:2]:
            self.buy_in(who, game, stake)
        if self.stakes[game] and game not in self.settlement:
            self.settle(data, game=game)

    @precondition(lambda self: any(self.stakes[g] for g in self.games if g not in self.settlement))
    @rule(data=st.data())
    def settle_open_game(self, data):
        self.settle(data)

    def settle(self, data, game=None):
        open_games = [g for g in self.games if self.stakes[g] and g not in self.settlement]
        game = game or data.draw(st.sampled_from(open_games))
        total = sum(held for held, _ in self.stakes[game].values())
        fee = data.draw(st.integers(0, total // 10))
        # In seat order, not by (random) UUID: the same draws must replay the same example.
        payees = [p.pk for p in self.players if p.pk in self.participants[game]]
        winner = data.draw(st.sampled_from(payees))
        explained = data.draw(st.integers(0, total - fee))  # a line and its counter-line
        payouts = [
            EscrowPayout(self.player(winner), total - fee + explained, "points"),
            EscrowPayout(self.player(winner), -explained, "cap_adjustment"),
        ]
        txn = services.escrow_settle(
            game_ref=game,
            currency="EUR",
            reference=self.reference(),
            payouts=payouts,
            fee=fee,
            actor=SYSTEM,
        )
        won = total - fee
        credit = eur_to_usd(won, ROUND_FLOOR) if self.converts(self.player(winner)) else won
        self.wallet[winner] += credit
        self.settlement[game] = (txn, {winner: credit})

    @precondition(lambda self: self.cashier)
    @rule(data=st.data())
    def reverse_cashier(self, data):
        index = data.draw(st.integers(0, len(self.cashier) - 1))
        txn, player_id, delta = self.cashier.pop(index)
        call = dict(ledger_transaction=txn, reference=self.reference(), reason="t", actor=SYSTEM)
        if delta > self.wallet[player_id]:
            with pytest.raises(InsufficientFundsProblem):
                services.transaction_reverse(**call)
            return
        services.transaction_reverse(**call)
        self.wallet[player_id] -= delta

    @precondition(lambda self: self.settlement)
    @rule(data=st.data())
    def reverse_settlement(self, data):
        game = data.draw(st.sampled_from(sorted(self.settlement)))
        txn, credits = self.settlement[game]
        call = dict(ledger_transaction=txn, reference=self.reference(), reason="t", actor=SYSTEM)
        if any(credit > self.wallet[pk] for pk, credit in credits.items()):
            with pytest.raises(InsufficientFundsProblem):
                services.transaction_reverse(**call)
            return
        services.transaction_reverse(**call)
        for pk, credit in credits.items():
            self.wallet[pk] -= credit
        del self.settlement[game]  # the escrow is open again, holding the stakes

    def player(self, pk):
        return next(p for p in self.players if p.pk == pk)

    # --- Invariants ---------------------------------------------------------------------------
    @invariant()
    def ledger_reconciles(self):
        report = reconciliation.reconcile()
        assert report.ok, report.render()

    @invariant()
    def every_currency_sums_to_zero(self):
        per_currency = Account.objects.values("currency").annotate(total=Sum("balance"))
        assert all(row["total"] == 0 for row in per_currency), list(per_currency)

    @invariant()
    def wallets_match_the_model(self):
        for player in self.players:
            assert balances.wallet_balance(player=player) == self.wallet[player.pk]

    @invariant()
    def escrows_match_the_model(self):
        for game in self.games:
            held = 0 if game in self.settlement else sum(h for h, _ in self.stakes[game].values())
            assert balances.escrow_balance(game_ref=game, currency="EUR") == held


@pytest.mark.django_db
@pytest.mark.slow
def test_the_ledger_state_machine():
    runner = LedgerMachine.TestCase
    runner.settings = settings(
        max_examples=30,
        stateful_step_count=30,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    runner().runTest()
