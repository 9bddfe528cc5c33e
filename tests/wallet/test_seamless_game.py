"""A whole First To Knock game of two seamless players over HTTP, against the reference
operator wallet with timeouts, 5xx and lost answers injected on every call kind; afterwards
the operator's balances, the ledger's operator_wallet mirror and the players' statements
agree to the minor unit, every debit and credit is applied exactly once, and the ledger
reconciles (docs/wallet.md "Seamless wallet"). Plus concurrent retries of one credit."""

from __future__ import annotations

import threading
from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.utils import timezone

from games.models import Match
from gin_platform.demo.seamless_wallet import OperatorWalletServer
from gin_platform.http.throttling import PrincipalRateThrottle
from tests.factories import SYSTEM, OperatorFactory, PlayerFactory
from tests.games.factories import RoomFactory, TableFactory
from tests.games.helpers import Seats, play_to_end, sit
from tests.wallet.seamless import START, player_client, seamless_mode
from wallet import services
from wallet.models import Account, LedgerEntry, WalletCall
from wallet.selectors import balances, reconciliation
from wallet.services import seamless as seamless_module
from wallet.services import seamless_retry as seamless_retry_module

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _fast(monkeypatch):

    monkeypatch.setitem(PrincipalRateThrottle.THROTTLE_RATES, "player", "1000000/min")
    monkeypatch.setattr(seamless_module, "QUICK_BACKOFF_SECONDS", 0.001)


@pytest.fixture
def operator(db):
    return OperatorFactory(webhook_url="")


@pytest.fixture
def server(operator):
    with OperatorWalletServer(secret=operator.webhook_secret, timeout_sleep=0.45) as running:
        seamless_mode(operator, running)
        yield running


def _sweep_until_done(rounds: int = 12) -> None:
    for _ in range(rounds):
        WalletCall.objects.filter(status="pending").update(next_attempt_at=timezone.now())
        services.seamless_calls_sweep(actor=SYSTEM)
        if not WalletCall.objects.filter(status="pending").exists():
            return
    raise AssertionError("wallet calls still pending")


def _statement_net(client) -> int:
    """The player's own statement (GET /me/wallet/transactions): the net of the seamless
    postings, in minor units (positive: money that came from the operator's wallet)."""
    total, url = 0, "/api/v1/me/wallet/transactions"
    while url:
        page = client.get(url)
        assert page.status_code == 200, page.content
        body = page.json()
        for row in body["results"]:
            if row["kind"].startswith("seamless_"):
                total += int(Decimal(row["wallet_change"]["amount"]) * 100)
        url = body.get("next")
    return total


def test_a_full_game_with_faults_on_every_call_kind_settles_exactly_once(operator, server):
    alice = player_client(operator, server, "Alice")
    bob = player_client(operator, server, "Bob")
    carol = player_client(operator, server, "Carol")
    table = TableFactory(room=RoomFactory(operator=operator, ftk=True, fee_bps=500))

    # Debits: never answered (timeout, then 5xx, then a lost answer) -> 503, rolled back.
    server.fault("debit", "timeout", "5xx", "lost_500")
    refused = sit(alice, table.pk)
    assert refused.status_code == 503, refused.content
    assert refused.json()["type"] == "/problems/wallet-unavailable"
    assert refused.json()["rollback_pending"] is False  # its rollback was acknowledged
    # Applied but the answer lost: the retry with the same id finds it applied.
    server.fault("debit", "lost")
    assert sit(alice, table.pk).status_code == 201
    # Leaving before the start: the refund's credit fails inline, the sweep delivers it.
    server.fault("credit", "5xx", "timeout")
    assert alice.post(f"/api/v1/tables/{table.pk}/leave").status_code == 200
    assert WalletCall.objects.get(kind="credit", reason="refund").status == "pending"
    _sweep_until_done()
    assert server.balance(alice.player.external_ref) == START
    server.fault("debit", "lost_500")
    first = sit(alice, table.pk)
    assert first.status_code == 201, first.content

    # Bob: a debit that never answers and a rollback that does not answer at once either.
    server.fault("debit", "5xx", "5xx", "5xx")
    server.fault("rollback", "timeout", "lost", "5xx")
    refused = sit(bob, table.pk)
    assert refused.status_code == 503 and refused.json()["rollback_pending"] is True
    assert WalletCall.objects.get(kind="rollback", player=bob.player).status == "pending"
    assert bob.get("/api/v1/me/wallet").json()["rollback_pending"] is True
    _sweep_until_done()
    server.fault("debit", "duplicate")
    second = sit(bob, table.pk)
    assert second.status_code == 201, second.content
    match_id = second.json()["match_id"]

    # Carol is debited, then the buy-in is refused under the wallet's lock (her own daily
    # loss limit, checked there only): the debit is rolled back.
    services.player_limit_set(
        player=carol.player, kind="loss", period="day", amount=100, actor=SYSTEM
    )
    other = TableFactory(room=table.room)
    server.fault("rollback", "lost_500")
    assert sit(carol, other.pk).json()["type"] == "/problems/limit-exceeded"
    _sweep_until_done()
    assert server.balance(carol.player.external_ref) == START
    # A break refuses her before her operator's wallet is debited at all.
    services.self_exclusion_create(player=carol.player, days=1, actor=SYSTEM)
    debits = WalletCall.objects.filter(kind="debit", player=carol.player).count()
    assert sit(carol, other.pk).json()["type"] == "/problems/self-excluded"
    assert WalletCall.objects.filter(kind="debit", player=carol.player).count() == debits

    # The game, played to the end by the engine's bot; settled on commit (eager Celery),
    # the payout credits failing in every way before the sweep delivers them.
    server.fault("credit", "timeout", "lost", "lost_500", "5xx", "duplicate")
    assert first.json()["match_id"] == match_id
    seats = Seats({first.json()["position"]: alice, second.json()["position"]: bob})
    play_to_end(seats, match_id)
    match = Match.objects.get(pk=match_id)
    assert match.status == Match.Status.SETTLED
    _sweep_until_done()

    # The operator's wallet, the ledger's mirror and the statements agree to the minor unit.
    fee = match.settlement.fee
    players = [alice, bob, carol]
    moved = sum(server.balance(c.player.external_ref) - START for c in players)
    mirror = sum(
        Account.objects.filter(operator=operator, kind="operator_wallet").values_list(
            "balance", flat=True
        )
    )
    assert moved == Decimal(-fee) / 100
    assert mirror == -fee
    for client in players:
        player = client.player
        assert balances.wallet_balance(player=player) == 0  # the transit wallet is empty
        change = server.balance(player.external_ref) - START
        assert Decimal(-_statement_net(client)) / 100 == change
        mirrored = sum(
            LedgerEntry.objects.filter(account__kind="operator_wallet", player=player).values_list(
                "amount", flat=True
            )
        )
        assert Decimal(mirrored) / 100 == change

    # Each debit and credit applied exactly once, on both sides.
    for kind in ("debit", "credit"):
        ours = set(
            str(pk)
            for pk in WalletCall.objects.filter(
                kind=kind, status__in=("applied", "rolled_back"), ledger_transaction__isnull=False
            ).values_list("pk", flat=True)
        )
        theirs = {tid for tid, applied in server.applied(kind) if not applied.rolled_back}
        rolled = {tid for tid, applied in server.applied(kind) if applied.rolled_back}
        assert theirs | rolled >= ours
        assert ours - rolled == theirs
    # One payout credit per player the settlement paid, of exactly what it paid.
    paid = {
        entry.player_id: entry.amount
        for entry in match.settlement.ledger_transaction.entries.filter(
            account__kind="player", amount__gt=0
        )
    }
    credits = WalletCall.objects.filter(kind="credit", reason="payout", status="applied")
    assert dict(credits.values_list("player_id", "amount")) == paid
    # The seats consumed their debits: however old, the sweep never rolls them back.
    seated = WalletCall.objects.filter(kind="debit", status="applied")
    assert seated.count() == 3  # Alice twice (she left once), Bob
    assert not seated.filter(consumed_by__isnull=True).exists()
    seated.update(created_at=timezone.now() - timedelta(days=1))
    services.seamless_calls_sweep(actor=SYSTEM)
    assert WalletCall.objects.filter(kind="rollback").count() == 3  # Alice, Bob, Carol
    assert server.state.bad_signatures == 0
    report = reconciliation.reconcile()
    assert report.ok, report.render()


@pytest.mark.parametrize("lease", [True, False], ids=["with the lease", "lease bypassed"])
def test_two_credits_retried_at_once_apply_once(operator, server, monkeypatch, lease):
    """Retries of one credit race each other: with the lease only one is sent at a time;
    even with it bypassed (both sent at once, the same id) the operator applies it once and
    the ledger mirrors it once (the call's row lock, the mirror's unique reference)."""
    player = PlayerFactory(operator=operator)
    server.set_balance(player.external_ref, START)
    services.seamless_debit(player=player, amount=800, currency="EUR", purpose="b", actor=SYSTEM)
    server.fault("credit", "5xx", "5xx")
    call = services.seamless_credit(
        player=player, amount=800, currency="EUR", purpose="payout:x", actor=SYSTEM
    )
    assert call.status == "pending"
    if not lease:
        monkeypatch.setattr(seamless_module, "_claim", lambda call_id, timeout_ms: True)
    WalletCall.objects.filter(pk=call.pk).update(next_attempt_at=timezone.now())
    barrier = threading.Barrier(2)
    # Both retries have read the call as pending before either attempts it: otherwise, on a
    # busy machine, one could finish before the other even looked, and nothing would race.
    both_read = threading.Barrier(2, timeout=30)
    attempt = seamless_retry_module.wallet_call_attempt

    def attempt_together(call_id, **kwargs):
        both_read.wait()
        return attempt(call_id, **kwargs)

    monkeypatch.setattr(seamless_retry_module, "wallet_call_attempt", attempt_together)
    errors: list[BaseException] = []

    def retry() -> None:
        try:
            barrier.wait()
            services.seamless_call_retry(call_id=call.pk, actor=SYSTEM)
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=retry) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    call.refresh_from_db()
    assert call.status == "applied"
    sent = [tid for action, tid in server.state.requests if action == "credit"]
    assert sent.count(str(call.pk)) == (1 if lease else 2)  # reached the operator's rules
    assert len(server.applied("credit")) == 1
    assert server.balance(player.external_ref) == START
    assert balances.wallet_balance(player=player) == 0
    assert LedgerEntry.objects.filter(transaction__kind="seamless_credit").count() == 2
    assert reconciliation.reconcile().ok
