"""Practice-chip top-up: back up to the grant, at most once per period (docs/wallet.md).

The clock is fixed (``clock``) wherever the period matters, so that no test can straddle a
real hour boundary.
"""

from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest
from django.db.models import Sum
from django.utils import timezone

from gin_platform.http.problems import PROBLEM_CONTENT_TYPE
from gin_platform.models import AuditEvent, Player
from gin_platform.money import PRACTICE_CURRENCY
from tests.factories import PlayerFactory
from tests.helpers import freeze_now
from tests.races import race
from tests.wallet.factories import SYSTEM, fund, ref
from tests.wallet.tables import buy_in, settle
from wallet import services
from wallet.models import LedgerEntry, LedgerTransaction
from wallet.problems import (
    PlayerInactiveProblem,
    PracticeTopUpTooSoonProblem,
    ReferenceConflictProblem,
    ReferenceInvalidProblem,
)
from wallet.selectors import balances, reconciliation
from wallet.services import EscrowPayout
from wallet.windows import fixed_window

pytestmark = pytest.mark.django_db
T0 = datetime(2026, 3, 4, 12, 20, tzinfo=UTC)  # inside the clock hour [12:00, 13:00)
HOUR_END = datetime(2026, 3, 4, 13, 0, tzinfo=UTC)
XGC = PRACTICE_CURRENCY
TOP_UP_URL = "/api/v1/me/wallet/practice-chips/top-up"


@pytest.fixture
def clock(monkeypatch):
    return freeze_now(monkeypatch, T0)


@pytest.fixture(autouse=True)
def _ledger_is_sound_after_each_test(db):
    yield
    report = reconciliation.reconcile()
    assert report.ok, report.render()
    unbalanced = (
        LedgerEntry.objects.values("transaction_id", "currency")
        .annotate(total=Sum("amount"))
        .exclude(total=0)
    )
    assert list(unbalanced) == []


_games = iter(range(1, 10**9))


def practice_game(winner, loser, amount: int) -> None:
    """Both buy ``amount`` chips into a practice game; the winner takes the pot."""
    game = f"practice:{next(_games)}"
    for who in (winner, loser):
        buy_in(who, amount, XGC, game=game)
    settle(
        [EscrowPayout(winner, amount, "stake"), EscrowPayout(winner, amount, "pot")], 0, XGC, game
    )


def chips(player) -> int:
    return balances.wallet_balance(player=player, currency=XGC)


def top_up(player, reference=None):
    return services.practice_chips_top_up(player=player, actor=SYSTEM, reference=reference)


def top_ups() -> int:
    return LedgerTransaction.objects.filter(kind="practice_top_up").count()


def mint(operator) -> int:
    return balances.house_balance(operator=operator, kind="outside", currency=XGC)


# --- The service ----------------------------------------------------------------------------
def test_a_top_up_posts_exactly_the_difference_from_the_grants_mint(
    clock, operator, player, opponent
):
    practice_game(opponent, player, 3000)
    assert chips(player) == 7000
    txn = top_up(player)
    assert txn.kind == "practice_top_up" and txn.player_id == player.pk
    assert (txn.amount, txn.currency) == (3000, XGC)
    assert txn.reference == f"practice-top-up:{player.pk}:2026-03-04T12:00:00Z"
    assert txn.created_at == T0
    assert sorted(txn.entries.values_list("account__kind", "amount", "component")) == [
        ("outside", -3000, "practice_top_up"),
        ("player", 3000, "practice_top_up"),
    ]
    assert chips(player) == 10_000
    assert mint(operator) == -(2 * 10_000 + 3000)  # two grants and the top-up
    assert txn.metadata == {
        "target": 10_000,
        "balance_before": 7000,
        "window_start": "2026-03-04T12:00:00+00:00",
        "window_end": "2026-03-04T13:00:00+00:00",
    }
    audit = AuditEvent.objects.get(action="ledger.practice_top_up")
    assert audit.object_id == str(txn.pk) and audit.data["amount"] == 3000
    assert balances.wallet_balance(player=player) == 0  # the real-money wallet is untouched


def test_nothing_is_posted_when_the_wallet_is_at_or_above_the_grant(clock, player, opponent):
    practice_game(player, opponent, 1000)  # player: 11,000
    before = LedgerTransaction.objects.count()
    assert top_up(player) is None
    assert LedgerTransaction.objects.count() == before
    assert chips(player) == 11_000
    practice_game(opponent, player, 1000)  # back to exactly 10,000
    before = LedgerTransaction.objects.count()
    assert top_up(player) is None
    assert LedgerTransaction.objects.count() == before
    assert top_ups() == 0


def test_one_chip_short_tops_up_one_chip(clock, player, opponent):
    practice_game(opponent, player, 1)
    assert top_up(player).amount == 1
    assert chips(player) == 10_000


def test_chips_at_stake_in_a_running_game_do_not_count(clock, player):
    buy_in(player, 10_000, XGC, game="practice:run")
    assert chips(player) == 0
    assert top_up(player).amount == 10_000
    assert chips(player) == 10_000
    assert balances.escrow_balance(game_ref="practice:run", currency=XGC) == 10_000


def test_a_player_who_never_played_is_topped_up_and_then_gets_no_grant(clock, operator, player):
    txn = top_up(player)
    assert (txn.kind, txn.amount) == ("practice_top_up", 10_000)
    buy_in(player, 500, XGC, game="practice:1")
    assert not LedgerTransaction.objects.filter(kind="practice_grant").exists()
    assert chips(player) == 9500
    assert mint(operator) == -10_000


def test_a_second_top_up_in_the_same_period_is_refused_and_changes_nothing(clock, player, opponent):
    practice_game(opponent, player, 10_000)
    first = top_up(player)
    practice_game(opponent, player, 4000)
    clock.set(HOUR_END - timedelta(microseconds=1))  # the last instant of the period
    transactions, audits = LedgerTransaction.objects.count(), AuditEvent.objects.count()
    with pytest.raises(PracticeTopUpTooSoonProblem) as refused:
        top_up(player)
    assert refused.value.extensions == {
        "transaction_id": first.pk,
        "window_start": "2026-03-04T12:00:00+00:00",
        "window_end": "2026-03-04T13:00:00+00:00",
        "next_top_up_at": "2026-03-04T13:00:00+00:00",
    }
    with pytest.raises(PracticeTopUpTooSoonProblem):
        top_up(player, reference="another-request")
    assert (LedgerTransaction.objects.count(), AuditEvent.objects.count()) == (transactions, audits)
    assert chips(player) == 6000
    clock.set(HOUR_END)  # the first instant of the next period
    second = top_up(player)
    assert second.amount == 4000
    assert second.reference == f"practice-top-up:{player.pk}:2026-03-04T13:00:00Z"
    assert chips(player) == 10_000


def test_the_period_and_the_grant_are_settings(clock, settings, player, opponent):
    settings.WALLET_PRACTICE_GRANT = 500
    settings.WALLET_PRACTICE_TOP_UP_SECONDS = 90
    practice_game(opponent, player, 200)
    assert top_up(player).amount == 200
    practice_game(opponent, player, 500)
    with pytest.raises(PracticeTopUpTooSoonProblem) as refused:
        top_up(player)
    # 12:20:00 lies in [12:19:30, 12:21:00): periods of 90 s counted from the epoch.
    assert refused.value.extensions["next_top_up_at"] == "2026-03-04T12:21:00+00:00"
    clock.advance(seconds=60)
    assert top_up(player).amount == 500


def test_a_reversed_top_up_still_used_its_period(clock, player, opponent):
    practice_game(opponent, player, 10_000)
    first = top_up(player)
    services.transaction_reverse(
        ledger_transaction=first, reference=ref("reversal"), reason="test", actor=SYSTEM
    )
    assert chips(player) == 0
    with pytest.raises(PracticeTopUpTooSoonProblem):
        top_up(player)


def test_an_inactive_player_is_refused(clock, player, opponent):
    practice_game(opponent, player, 10_000)
    Player.objects.filter(pk=player.pk).update(status=Player.Status.SUSPENDED)
    player.refresh_from_db()
    before = LedgerTransaction.objects.count()
    with pytest.raises(PlayerInactiveProblem):
        top_up(player)
    assert LedgerTransaction.objects.count() == before and chips(player) == 0


def test_self_exclusion_does_not_block_practice_chips(clock, player):
    services.self_exclusion_create(player=player, days=30, actor=SYSTEM)
    assert top_up(player).amount == 10_000


# --- Idempotency ---------------------------------------------------------------------------
def test_a_replayed_reference_returns_the_first_transaction(clock, player, opponent):
    practice_game(opponent, player, 2500)
    first = top_up(player, reference="client:req-1")
    assert first.reference == "client:req-1"
    practice_game(opponent, player, 100)
    clock.advance(hours=5)  # even in a later period, and with chips missing again
    assert top_up(player, reference="client:req-1").pk == first.pk
    assert top_ups() == 1 and chips(player) == 9900


def test_a_reference_of_another_posting_is_a_conflict(clock, player):
    deposit = fund(player, 100)
    with pytest.raises(ReferenceConflictProblem):
        top_up(player, reference=deposit.reference)
    with pytest.raises(ReferenceInvalidProblem):
        top_up(player, reference=" ")
    assert top_ups() == 0


def test_the_periods_reference_is_unique_on_the_ledger(clock, player, opponent):
    """The default reference names the period: even past the service's own check, the
    ledger's unique reference refuses a second top-up in it."""
    practice_game(opponent, player, 10_000)
    first = top_up(player)
    with pytest.raises(ReferenceConflictProblem):
        services.deposit(
            player=player,
            amount=100,
            currency=player.wallet_currency,
            reference=first.reference,
            actor=SYSTEM,
        )


# --- Windows -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("moment", "seconds", "start"),
    [
        (T0, 3600, datetime(2026, 3, 4, 12, 0, tzinfo=UTC)),
        (HOUR_END, 3600, HOUR_END),
        (HOUR_END - timedelta(microseconds=1), 3600, datetime(2026, 3, 4, 12, 0, tzinfo=UTC)),
        (T0, 86400, datetime(2026, 3, 4, tzinfo=UTC)),
        (
            T0.astimezone(timezone.get_fixed_timezone(-300)),
            3600,
            datetime(2026, 3, 4, 12, 0, tzinfo=UTC),
        ),
    ],
)
def test_fixed_windows_are_counted_from_the_epoch_in_utc(moment, seconds, start):
    found = fixed_window(moment, seconds=seconds)
    assert (found.start, found.end) == (start, start + timedelta(seconds=seconds))
    assert found.contains(moment)


def test_fixed_windows_refuse_naive_moments_and_empty_lengths():
    with pytest.raises(ValueError):
        fixed_window(datetime(2026, 3, 4, 12, 0), seconds=3600)
    with pytest.raises(ValueError):
        fixed_window(T0, seconds=0)


# --- HTTP: the player ----------------------------------------------------------------------
def test_a_player_tops_up_over_http(clock, player_client, player, opponent):
    practice_game(opponent, player, 6000)
    response = player_client.post(TOP_UP_URL)
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["kind"] == "practice_top_up"
    assert body["amount"] == {"amount": "6000", "currency": "XGC"}
    assert body["wallet_change"] == {"amount": "6000", "currency": "XGC"}
    assert body["balance_after"] == {"amount": "10000", "currency": "XGC"}
    assert "metadata" not in body  # the operator's view only
    wallet = player_client.get("/api/v1/me/wallet").json()
    assert wallet["practice_balance"] == {"amount": "10000", "currency": "XGC"}


def test_nothing_to_top_up_over_http_is_200_with_the_wallet(clock, player_client, player):
    buy_in(player, 10, XGC, game="practice:1")
    services.table_refund(
        player=player, game_ref="practice:1", currency=XGC, reference=ref(), actor=SYSTEM
    )
    response = player_client.post(TOP_UP_URL)
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["player_id"] == str(player.pk)
    assert body["practice_balance"] == {"amount": "10000", "currency": "XGC"}
    assert top_ups() == 0


def test_too_soon_over_http_is_problem_json(clock, player_client, player, opponent):
    practice_game(opponent, player, 10_000)
    first = player_client.post(TOP_UP_URL)
    assert first.status_code == 201
    practice_game(opponent, player, 10_000)
    response = player_client.post(TOP_UP_URL)
    assert response.status_code == 409
    assert response["Content-Type"].startswith(PROBLEM_CONTENT_TYPE)
    body = response.json()
    assert body["type"] == "/problems/practice-top-up-too-soon"
    assert body["transaction_id"] == first.json()["id"]
    assert body["next_top_up_at"] == "2026-03-04T13:00:00+00:00"
    assert chips(player) == 0 and top_ups() == 1


def test_operator_credentials_cannot_use_the_players_endpoint(operator_client):
    assert operator_client.post(TOP_UP_URL).status_code == 403


# --- HTTP: the operator --------------------------------------------------------------------
def operator_url(player) -> str:
    return f"/api/v1/players/{player.pk}/wallet/practice-chips/top-up"


def test_an_operator_tops_up_a_player_idempotently(clock, operator_client, player, opponent, idem):
    practice_game(opponent, player, 2000)
    key = idem()
    first = operator_client.post(operator_url(player), **key)
    assert first.status_code == 201, first.content
    assert first.json()["amount"] == {"amount": "2000", "currency": "XGC"}
    assert first.json()["metadata"]["balance_before"] == 8000
    replay = operator_client.post(operator_url(player), **key)
    assert replay.status_code == 201 and replay.json() == first.json()
    assert replay["Idempotent-Replayed"] == "true"
    assert top_ups() == 1
    nothing = operator_client.post(operator_url(player), **idem())
    assert nothing.status_code == 200
    assert nothing.json()["practice_balance"] == {"amount": "10000", "currency": "XGC"}


def test_the_operator_endpoint_refusals_are_problem_json(clock, operator_client, operator, idem):
    assert operator_client.post(operator_url(PlayerFactory(operator=operator))).status_code == 400
    stranger = PlayerFactory()
    assert operator_client.post(operator_url(stranger), **idem()).status_code == 404
    suspended = PlayerFactory(operator=operator, status=Player.Status.SUSPENDED)
    response = operator_client.post(operator_url(suspended), **idem())
    assert response.status_code == 409
    assert response["Content-Type"].startswith(PROBLEM_CONTENT_TYPE)
    assert response.json()["type"] == "/problems/player-inactive"
    assert top_ups() == 0


# --- PostgreSQL: real threads --------------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("references", ["default", "distinct", "same"])
def test_concurrent_top_ups_of_one_player_post_exactly_once(clock, operator, references):
    player, opponent = PlayerFactory(operator=operator), PlayerFactory(operator=operator)
    practice_game(opponent, player, 10_000)
    reference = {
        "default": lambda i: None,
        "distinct": lambda i: f"client:{i}",
        "same": lambda i: "client:same",
    }[references]
    results = race(12, lambda i: top_up(player, reference=reference(i)))
    posted = {r.pk for r in results if isinstance(r, LedgerTransaction)}
    assert len(posted) == 1, results
    if references == "same":  # every replay answers the one transaction
        assert all(isinstance(r, LedgerTransaction) for r in results), results
    else:  # the others queued on the wallet lock and found it full: nothing to do
        assert Counter(type(r).__name__ for r in results) == {
            "LedgerTransaction": 1,
            "NoneType": 11,
        }, results
    assert top_ups() == 1
    assert chips(player) == 10_000


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_first_top_ups_create_one_wallet_and_post_once(clock, operator):
    player = PlayerFactory(operator=operator)
    results = race(8, lambda i: top_up(player))
    assert Counter(type(r).__name__ for r in results) == {"LedgerTransaction": 1, "NoneType": 7}
    assert chips(player) == 10_000
    assert player.wallet_accounts.filter(currency=XGC).count() == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_top_ups_racing_practice_buy_ins_never_deadlock_or_post_twice(clock, operator):
    player, opponent = PlayerFactory(operator=operator), PlayerFactory(operator=operator)
    practice_game(opponent, player, 10_000)

    def work(i: int):
        if i % 2:
            return top_up(player)
        return buy_in(player, 3000, XGC, game=f"practice:race:{i}", reference=f"race-buy-in:{i}")

    results = race(8, work)
    outcomes = Counter(
        r.kind if isinstance(r, LedgerTransaction) else type(r).__name__ for r in results
    )
    assert outcomes["practice_top_up"] == 1, results
    assert set(outcomes) <= {
        "practice_top_up",
        "buy_in",
        "NoneType",
        "PracticeTopUpTooSoonProblem",
        "InsufficientFundsProblem",
    }, results
    assert top_ups() == 1
    assert chips(player) == 10_000 - 3000 * outcomes["buy_in"]
