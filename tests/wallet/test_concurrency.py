"""The wallet on PostgreSQL: real threads racing for the same wallet, key and escrow.

Each thread has its own database connection (closed at the end); the tests are
transactional (``transaction=True``) so every thread sees the committed fixtures.
"""

from collections import Counter

import pytest
from django.db import connection

from gin_platform.models import Player
from tests.factories import PlayerFactory
from tests.helpers import bearer_client
from tests.races import race
from tests.wallet.factories import SYSTEM, CashierCapsFactory, ExchangeRateFactory, fund, ref
from wallet import services
from wallet.models import LedgerTransaction
from wallet.problems import CapExceededProblem, InsufficientFundsProblem
from wallet.selectors import balances as wallet_balances
from wallet.selectors import reconciliation

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def outcome(result) -> str:
    return type(result).__name__


def test_fifty_concurrent_withdrawals_take_exactly_what_is_affordable(player):
    fund(player, 1000)

    def withdraw(i: int):
        return services.withdraw(
            player=player, amount=30, currency="EUR", reference=f"w:{i}", actor=SYSTEM
        )

    results = race(50, withdraw)
    counts = Counter(outcome(r) for r in results)
    assert counts == {"LedgerTransaction": 33, "InsufficientFundsProblem": 17}, counts
    assert wallet_balances.wallet_balance(player=player) == 1000 - 33 * 30 == 10
    assert LedgerTransaction.objects.filter(kind="withdrawal").count() == 33
    balances = list(
        wallet_balances.wallet_account(player=player)
        .entries.order_by("pk")
        .values_list("balance_after", flat=True)
    )
    assert min(balances) >= 0 and balances[-1] == 10
    assert reconciliation.reconcile().ok


def test_the_same_idempotency_key_sent_concurrently_posts_once(operator_key, player):
    body = {"amount": "12.50", "currency": "EUR"}

    def post(_):
        client = bearer_client(operator_key)
        response = client.post(
            f"/api/v1/players/{player.pk}/deposits", body, format="json", HTTP_IDEMPOTENCY_KEY="k"
        )
        return response.status_code, response.json()

    results = race(10, post)
    assert all(not isinstance(r, Exception) for r in results), results
    statuses = Counter(status for status, _ in results)
    assert set(statuses) <= {201, 409} and statuses[201] >= 1, statuses
    created = [b for status, b in results if status == 201]
    assert all(b == created[0] for b in created)
    assert all(
        b["type"] == "/problems/idempotency-request-in-flight" for s, b in results if s == 409
    )
    assert LedgerTransaction.objects.filter(kind="deposit").count() == 1
    assert wallet_balances.wallet_balance(player=player) == 1250
    # Once the first finished, every retry gets the identical stored answer.
    retry = post(None)
    connection.close()
    assert retry == (201, created[0])


def test_the_same_reference_from_many_threads_posts_once(player):
    results = race(
        12,
        lambda _: services.deposit(
            player=player, amount=500, currency="EUR", reference="psp:1", actor=SYSTEM
        ),
    )
    assert {r.pk for r in results} == {results[0].pk}
    assert wallet_balances.wallet_balance(player=player) == 500


def test_concurrent_deposits_never_pass_the_daily_cap(operator, player):
    CashierCapsFactory(operator=operator, daily_deposit_cap=1000)
    results = race(
        20,
        lambda i: services.deposit(
            player=player, amount=100, currency="EUR", reference=f"d:{i}", actor=SYSTEM
        ),
    )
    counts = Counter(outcome(r) for r in results)
    assert counts == {"LedgerTransaction": 10, CapExceededProblem.__name__: 10}, counts
    assert wallet_balances.wallet_balance(player=player) == 1000


def test_crossing_postings_on_shared_accounts_never_deadlock(operator):
    """Buy-ins, refunds and settlements of several players in several currencies share
    escrows and house FX accounts; the pk-ordered locks keep them deadlock-free."""
    ExchangeRateFactory(base="EUR", quote="USD", rate="1.0725")
    players = [
        PlayerFactory(operator=operator, wallet_currency=code) for code in ("EUR", "USD") * 8
    ]
    for p in players:
        fund(p, 100_000)

    def play(i: int):
        me = players[i % len(players)]
        done = []
        for round_ in range(6):
            game = f"g:{round_ % 3}:{i % 2}"
            done.append(
                services.table_buy_in(
                    player=me,
                    game_ref=game,
                    amount=100,
                    currency="EUR",
                    reference=ref(),
                    actor=SYSTEM,
                )
            )
            done.append(
                services.table_refund(
                    player=me, game_ref=game, currency="EUR", reference=ref(), actor=SYSTEM
                )
            )
        return done

    results = race(16, play)
    errors = [r for r in results if isinstance(r, Exception)]
    assert errors == []
    for p in players:
        assert wallet_balances.wallet_balance(player=Player.objects.get(pk=p.pk)) == 100_000
    assert reconciliation.reconcile().ok


def test_a_concurrent_buy_in_and_settlement_serialise_on_the_escrow(player, opponent):
    fund(player, 5000)
    fund(opponent, 5000)
    services.table_buy_in(
        player=player, game_ref="m:1", amount=1000, currency="EUR", reference="b:1", actor=SYSTEM
    )
    late = PlayerFactory(operator=player.operator)
    fund(late, 5000)

    def work(i: int):
        if i == 0:
            return services.escrow_settle(
                game_ref="m:1",
                currency="EUR",
                reference="s:1",
                payouts=[services.EscrowPayout(player, 1000, "stake")],
                fee=0,
                actor=SYSTEM,
            )
        return services.table_buy_in(
            player=late, game_ref="m:1", amount=500, currency="EUR", reference="b:2", actor=SYSTEM
        )

    results = race(2, work)
    kinds = sorted(outcome(r) for r in results)
    # Either the settlement went first (the late buy-in is refused: escrow settled) or the
    # buy-in did (the settlement no longer empties the escrow: refused). Never both.
    assert kinds in (
        ["EscrowSettledProblem", "LedgerTransaction"],
        ["EscrowUnbalancedProblem", "LedgerTransaction"],
    ), results
    assert reconciliation.reconcile().ok
    assert not isinstance(results[0], InsufficientFundsProblem)


def test_one_reference_raced_for_two_players_posts_once(operator):
    players = [PlayerFactory(operator=operator) for _ in range(8)]
    results = race(
        8,
        lambda i: services.deposit(
            player=players[i], amount=100, currency="EUR", reference="same", actor=SYSTEM
        ),
    )
    counts = Counter(outcome(r) for r in results)
    assert counts == {"LedgerTransaction": 1, "ReferenceConflictProblem": 7}, results
    assert LedgerTransaction.objects.count() == 1
    assert reconciliation.reconcile().ok
