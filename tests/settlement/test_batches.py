"""Settling finished games in batches (docs/settlement.md "Batches"): a batch pays, records
and announces each game exactly as ``game_settle`` does, in a fixed number of statements;
a batch that cannot be settled whole falls back to one game at a time; batches racing each
other and the cashier settle each game once, without deadlocks."""

from __future__ import annotations

import logging
import threading
import uuid

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from games import services as game_services
from games.models import Match
from gin_platform.models import AuditEvent, OperatorEvent
from gin_platform.request_path.cache import redis_client
from settlement import ready, services, tasks
from settlement.models import Settlement
from tests.factories import SYSTEM, OperatorFactory, PlayerFactory
from tests.games.factories import RoomFactory, TableFactory
from tests.games.test_multi_play import seat_all
from tests.settlement.helpers import finish_with, seat_two
from tests.settlement.test_multi_settle import room as multi_room
from tests.wallet.factories import ExchangeRateFactory
from wallet import services as wallet_services
from wallet.models import Account, LedgerTransaction
from wallet.selectors import reconciliation


@pytest.fixture
def operator_eur(db):
    return OperatorFactory(base_currency="EUR")


def finished_games(operator, count: int, *, players=None, fee_bps: int = 500) -> list[Match]:
    """``count`` finished First To Knock games, won by seat 0 and seat 1 in turn."""
    room = RoomFactory(operator=operator, variant="ftk", target=None, stake=700, fee_bps=fee_bps)
    games = []
    for number in range(count):
        match = seat_two(TableFactory(room=room), players=players)
        with transaction.atomic():  # finish_with locks the hand (a test may run autocommit)
            games.append(finish_with(match, winner_seat=number % 2))
    return games


def three_player_forfeit(operator) -> Match:
    """A three-player Match Play game (R12) left by two players: the last one wins it."""
    table = TableFactory(room=multi_room(operator, seats=3, variant="match", prize_table="70_30"))
    players = [PlayerFactory(operator=operator) for _ in range(3)]
    seat_all(table, 3, players=players)
    for player in players[:2]:
        game_services.seat_leave(player=player, table=table, actor=SYSTEM)
    return Match.objects.get(table=table)


# Values that name this game's rows or players rather than say what was settled.
_NAMES = {"match_id", "ledger_transaction_id", "ledger_reference", "game_ref", "external_ref"}
_NAMES |= {"screen_name", "finished_at", "settled_at", "reference"}


def _named(value, seats: dict[str, str]):
    if isinstance(value, dict):
        return {
            key: f"<{key}>" if key in _NAMES else _named(item, seats) for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [_named(item, seats) for item in value]
    if isinstance(value, str | uuid.UUID):
        return seats.get(str(value), value if isinstance(value, str) else str(value))
    return value


def shape(match: Match) -> dict:
    """What settling ``match`` wrote, with its keys, names and times replaced by their
    role: the same for two games settled alike, whichever path settled them."""
    settlement = Settlement.objects.select_related("ledger_transaction").get(match=match)
    txn = settlement.ledger_transaction
    seats = {str(seat.player_id): f"<seat {seat.position}>" for seat in match.seats.all()}
    entries = sorted(
        (
            [entry.account.kind, seats.get(str(entry.player_id)), entry.amount, entry.component]
            for entry in txn.entries.select_related("account")
        ),
        key=str,
    )
    event = OperatorEvent.objects.get(type="game.settled", data__match_id=match.pk)
    audits = sorted(
        AuditEvent.objects.filter(
            object_id__in=[str(match.pk), str(txn.pk)],
            action__in=["match.settled", "ledger.settlement"],
        ).values_list("action", "actor_type", "actor_id")
    )
    return _named(
        {
            "status": Match.objects.get(pk=match.pk).status,
            "txn": [txn.kind, txn.amount, txn.currency, txn.fx, txn.metadata],
            "entries": entries,
            "statement": settlement.statement,
            "event": event.data == {"match_id": match.pk, "statement": settlement.statement},
            "audits": audits,
            "settlement": [settlement.variant, settlement.escrow_total, settlement.fee],
        },
        seats,
    )


@pytest.mark.django_db
def test_a_batch_writes_what_settling_each_game_alone_writes(operator_eur, caplog):
    """Heads-up games won by either seat, one of them paying a player whose wallet is in
    dollars (the FX legs at the latest rate), and a three-player game (R12): the same
    rows, amounts, statements, events and audit rows as ``game_settle``, and the ledger
    reconciles."""
    ExchangeRateFactory(base="EUR", quote="USD")
    dollar = PlayerFactory(operator=operator_eur, wallet_currency="USD", display_currency="USD")
    alone = finished_games(operator_eur, 3)
    alone.append(
        finished_games(operator_eur, 1, players=[PlayerFactory(operator=operator_eur), dollar])[0]
    )
    batched = finished_games(operator_eur, 3)
    batched.append(
        finished_games(operator_eur, 1, players=[PlayerFactory(operator=operator_eur), dollar])[0]
    )

    alone.append(three_player_forfeit(operator_eur))
    batched.append(three_player_forfeit(operator_eur))

    for match in alone:
        services.game_settle(match_id=match.pk)
    with caplog.at_level(logging.INFO, logger="settlement.services"):
        settled = services.games_settle(match_ids=[match.pk for match in batched])
    assert not caplog.records  # one batch, not one game at a time
    assert settled == sorted(match.pk for match in batched)
    again = services.games_settle(match_ids=[match.pk for match in batched])
    assert again == settled  # all settled already: nothing posted twice

    assert [shape(match) for match in batched] == [shape(match) for match in alone]
    assert reconciliation.reconcile().ok


@pytest.mark.django_db
@pytest.mark.postgres
def test_a_batch_is_a_fixed_number_of_statements_whatever_its_size(operator_eur):
    """The matches locked (one statement), the escrows read, every account found and locked
    at once, the reads under those locks, the transactions' keys taken, every posting
    written, then the matches, the Settlements, the events and the audit rows: 10 statements
    for nine games (inside the caller's transaction), where one game alone takes 8."""
    games = finished_games(operator_eur, 10)
    services.game_settle(match_id=games[0].pk)  # the house's fee accounts exist from now on
    wallet_services.deposit(  # and those of every shard
        player=PlayerFactory(operator=operator_eur),
        amount=1,
        currency="EUR",
        reference="warm",
        actor=SYSTEM,
    )
    for shard in range(wallet_services.house_shards()):
        Account.objects.get_or_create(
            kind=Account.Kind.HOUSE_FEE, operator=operator_eur, currency="EUR", shard=shard
        )
    ids = [match.pk for match in games[1:]]
    with CaptureQueriesContext(connection) as captured:
        assert services.games_settle(match_ids=ids) == ids
    sql = [query["sql"] for query in captured.captured_queries]
    # SAVEPOINT and RELEASE: the test's transaction is the caller's.
    assert len(sql) == 2 + 10, "\n".join(sql)
    assert sum("FOR UPDATE" in statement for statement in sql) == 2  # the matches, the accounts
    assert Settlement.objects.filter(match_id__in=ids).count() == len(ids)


@pytest.mark.django_db
def test_settled_games_in_a_batch_are_passed_over(operator_eur):
    games = finished_games(operator_eur, 3)
    first = services.game_settle(match_id=games[0].pk)
    with CaptureQueriesContext(connection) as captured:
        settled = services.games_settle(match_ids=[match.pk for match in games])
    assert settled == [match.pk for match in games]  # settled when it returns
    assert (
        sum(
            "INSERT INTO" in query["sql"] and "settlement_settlement" in query["sql"]
            for query in captured.captured_queries
        )
        == 1
    )  # the two others, in one batch
    assert Settlement.objects.get(match=games[0]) == first
    assert LedgerTransaction.objects.filter(kind="settlement").count() == 3
    assert reconciliation.reconcile().ok


@pytest.mark.django_db
def test_a_game_that_breaks_a_rule_is_settled_alone_and_the_rest_of_its_batch_is_paid(
    operator_eur,
):
    """The escrow of one game holds less than its result pays: the batch rolls back whole,
    each game is then settled on its own, and the bad one is recorded as
    ``settlement.failed`` (``escrow-unbalanced``) with nothing of it posted."""
    games = finished_games(operator_eur, 3)
    bad = games[1]
    bad.result = bad.result | {
        "seats": [seat | {"amount": seat["amount"] + 1} for seat in bad.result["seats"]]
    }
    Match.objects.filter(pk=bad.pk).update(result=bad.result)

    settled = services.games_settle(match_ids=[match.pk for match in games])

    assert settled == [games[0].pk, games[2].pk]
    assert Match.objects.get(pk=bad.pk).status == Match.Status.FINISHED
    assert not LedgerTransaction.objects.filter(reference=f"settlement:match:{bad.pk}").exists()
    failed = OperatorEvent.objects.get(type="settlement.failed", data__match_id=bad.pk)
    assert failed.data["problem"]["type"].endswith("/escrow-unbalanced")
    assert Settlement.objects.filter(match_id__in=[games[0].pk, games[2].pk]).count() == 2
    assert reconciliation.reconcile().ok


@pytest.mark.django_db
def test_a_game_not_finished_sends_its_batch_one_game_at_a_time(operator_eur):
    """A running game's id in a batch (a stale request): the batch is not settled whole;
    each finished game is settled alone, the running one is left as it is."""
    games = finished_games(operator_eur, 2)
    room = RoomFactory(operator=operator_eur, variant="ftk", target=None, stake=700)
    running = seat_two(TableFactory(room=room))

    settled = services.games_settle(match_ids=[games[0].pk, running.pk, games[1].pk])

    assert settled == [games[0].pk, games[1].pk]
    assert Match.objects.get(pk=running.pk).status == Match.Status.RUNNING


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_batches_racing_each_other_and_the_cashier_settle_each_game_once(operator_eur, caplog):
    """Three threads settle overlapping batches of games that share players (so the same
    wallets, and the house's fee shards) while a fourth deposits into those wallets: no
    deadlock, no error, each game posted once, every balance what its entries say."""
    players = [PlayerFactory(operator=operator_eur) for _ in range(4)]
    games = [
        match
        for number in range(12)
        for match in finished_games(
            operator_eur, 1, players=[players[number % 4], players[(number + 1) % 4]]
        )
    ]
    ids = [match.pk for match in games]
    batches = [ids, list(reversed(ids)), ids[::2] + ids[1::2]]
    barrier = threading.Barrier(len(batches) + 1)
    errors: list[BaseException] = []

    def settle(batch):
        try:
            barrier.wait()
            services.games_settle(match_ids=batch)
        except BaseException as error:  # collected and asserted below
            errors.append(error)
        finally:
            connection.close()

    def deposit():
        try:
            barrier.wait()
            for number in range(40):
                wallet_services.deposit(
                    player=players[number % 4],
                    amount=100,
                    currency="EUR",
                    reference=f"race-deposit:{number}",
                    actor=SYSTEM,
                )
        except BaseException as error:  # collected and asserted below
            errors.append(error)
        finally:
            connection.close()

    caplog.set_level(logging.INFO, logger="settlement.services")
    threads = [threading.Thread(target=settle, args=(batch,)) for batch in batches]
    threads.append(threading.Thread(target=deposit))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []
    # No batch fell back to one game at a time (a deadlock would have made it).
    assert not [record for record in caplog.records if record.name == "settlement.services"]
    assert Match.objects.filter(pk__in=ids, status=Match.Status.SETTLED).count() == len(ids)
    for match in games:
        assert (
            LedgerTransaction.objects.filter(reference=f"settlement:match:{match.pk}").count() == 1
        )
    assert reconciliation.reconcile().ok


@pytest.mark.redis
@pytest.mark.django_db
def test_finished_games_wait_in_the_batch_set_and_one_task_drains_them(
    operator_eur, monkeypatch, django_capture_on_commit_callbacks
):
    """With Redis and a real broker, a finished game joins the batch set and only the first
    of a run of them queues a ``settle_ready`` task; that task takes them out a batch at a
    time and settles them, and a game finishing after it started queues the next one."""
    client = redis_client()
    assert client is not None  # REDIS_URL (the marker) makes the cache Redis

    client.delete(*ready.ready_keys())
    queued: list[tuple] = []
    monkeypatch.setitem(tasks.settle_game.app.conf, "task_always_eager", False)
    monkeypatch.setattr(
        services, "enqueue", lambda task, *args: queued.append((task.name, args)) or True
    )
    games = finished_games(operator_eur, 3)
    try:
        with django_capture_on_commit_callbacks(execute=True):  # the request waits for it
            for match in games:
                services.game_payout_request(match_id=match.pk)
        assert queued == [("settlement.tasks.settle_ready", ())]  # one wake-up for three
        assert services.ready_games_settle() == 3
        assert Match.objects.filter(pk__in=[m.pk for m in games], status="settled").count() == 3
        assert not client.exists(ready.ready_keys()[0])
        later = finished_games(operator_eur, 1)[0]
        with django_capture_on_commit_callbacks(execute=True):
            services.game_payout_request(match_id=later.pk)  # the drain cleared the wake-up
        assert queued[-1] == ("settlement.tasks.settle_ready", ()) and len(queued) == 2
    finally:
        client.delete(*ready.ready_keys())
