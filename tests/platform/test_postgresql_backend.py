"""The PostgreSQL backend reads every timestamp as Django's own would, writes JSON as Django's
would, sends a transaction's BEGIN with its first statement, and its COMMIT with its last
when asked (gin_platform/request_path/postgresql)."""

import json
import threading
from datetime import UTC, datetime, timedelta, timezone

import psycopg
import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.backends.postgresql import operations as django_postgresql_ops
from django.db.backends.postgresql.psycopg_any import BaseTzLoader
from django.db.transaction import TransactionManagementError
from psycopg.pq import Format, TransactionStatus

from gin_platform.models import Operator
from gin_platform.request_path.postgresql.base import TIMESTAMPTZ_OID, jsonb_text
from tests.factories import OperatorFactory

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

# As PostgreSQL writes them, and some it writes only in other settings: every offset form,
# 0 to 6 fractional digits, years before 1000, before Christ, the infinities.
LITERALS = [
    "2026-12-07 09:59:52.679791+00",
    "2026-12-07 09:59:52+00",
    "2026-12-07 09:59:52.1+00",
    "2026-12-07 09:59:52.123+02",
    "2026-12-07 09:59:52.5-09:30",
    "1900-01-01 00:00:00+05:53:28",
    "0900-02-28 23:59:59.999999+00",
    "2000-02-29 12:00:00-12",
    "0044-03-15 12:00:00+00 BC",
    "infinity",
    "-infinity",
]


def loaded(sql: str, *, through_django: bool) -> list:
    """Each literal loaded by this connection's loader, or by Django's own (the loader
    Django's backend registers), as a value or as the exception it raised."""
    with connection.cursor() as cursor:
        if through_django:
            zone = connection.timezone

            class DjangoTzLoader(BaseTzLoader):
                timezone = zone

            cursor.cursor.adapters.register_loader("timestamptz", DjangoTzLoader)
        results = []
        for literal in LITERALS:
            try:
                with transaction.atomic():
                    cursor.execute(sql, [literal])
                    results.append(cursor.fetchone()[0])
            except Exception as exc:  # the two must fail alike, whatever it is
                results.append(type(exc))
        return results


def in_session_zone(zone: str, read):
    connection.ensure_connection()
    with connection.cursor() as cursor:
        cursor.execute("SELECT set_config('TimeZone', %s, false)", [zone])
    try:
        return read()
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT set_config('TimeZone', %s, false)", [connection.timezone_name])


def test_every_timestamp_loads_as_djangos_own_loader_loads_it():
    """In the time zone Django keeps its connections in: the same instant, with the same
    tzinfo object, or the same failure."""
    sql = "SELECT %s::timestamptz"
    ours = in_session_zone("UTC", lambda: loaded(sql, through_django=False))
    djangos = in_session_zone("UTC", lambda: loaded(sql, through_django=True))
    assert ours == djangos
    for mine, theirs in zip(ours, djangos, strict=True):
        if isinstance(mine, datetime):
            assert mine.tzinfo is theirs.tzinfo is UTC
    assert sum(isinstance(value, datetime) for value in ours) == 8  # BC, the infinities: errors


@pytest.mark.parametrize("session_zone", ["Asia/Kolkata", "America/St_Johns"])
def test_a_session_in_another_time_zone_still_reads_the_right_instant(session_zone):
    """Should a session's time zone ever differ from Django's, PostgreSQL writes other
    offsets: each value is still the same instant (Django's loader would label the
    session's wall time as UTC)."""
    sql = "SELECT %s::timestamptz"
    elsewhere = in_session_zone(session_zone, lambda: loaded(sql, through_django=False))
    assert elsewhere == in_session_zone("UTC", lambda: loaded(sql, through_django=False))
    assert all(value.tzinfo is UTC for value in elsewhere if isinstance(value, datetime))


def test_the_connections_use_it_and_django_keeps_it_on_each_cursor():
    """Django checks each new cursor's loader against the connection's time zone and
    registers its own when they differ: ours must pass that check, or every cursor would
    pay for a copy of the adapters and parse in Python again."""
    assert connection.settings_dict["ENGINE"] == "gin_platform.request_path.postgresql"
    connection.ensure_connection()
    with connection.cursor() as cursor:
        loader = cursor.cursor.adapters.get_loader(TIMESTAMPTZ_OID, Format.TEXT)
    assert loader.__name__ == "IsoTimestamptzLoader"
    assert issubclass(loader, BaseTzLoader)
    assert loader.timezone is connection.timezone


def test_a_model_reads_back_the_instant_it_saved():
    created = datetime(2026, 12, 7, 9, 59, 52, 679791, tzinfo=timezone(timedelta(hours=-3)))
    operator = OperatorFactory()
    Operator.objects.filter(pk=operator.pk).update(created_at=created)
    read = Operator.objects.get(pk=operator.pk).created_at
    assert read == created
    assert read.tzinfo is UTC


JSON_VALUES = [
    {"hands": [["2S", "3H"], ["KD"]], "seq": 41, "to_act": None, "auto": True},
    {"nested": {"deep": [1, 2.5, -0.0, 1e16, "é\u2028", {"": []}]}, "big": 2**70},
    ["a", 1, None, False],
    "text",
    123,
    {1: 'an int key, written as "1" by both'},
]


@pytest.mark.parametrize("value", JSON_VALUES)
def test_a_json_value_is_stored_as_django_stores_it(value):
    """A JSONField without an encoder is written by orjson: PostgreSQL stores the same jsonb
    as from Django's ``json.dumps`` (compared by PostgreSQL itself), and reads back the same."""
    ours = connection.ops.adapt_json_value(value, None)
    django_json = django_postgresql_ops.get_json_dumps(None)(value)
    with connection.cursor() as cursor:
        cursor.execute("SELECT %s::jsonb = %s::jsonb, %s::jsonb::text", [ours, django_json, ours])
        same, text = cursor.fetchone()
    assert same
    assert json.loads(text) == json.loads(django_json)


def test_a_json_field_with_an_encoder_keeps_djangos_way():
    class Encoder(json.JSONEncoder):
        pass

    adapted = connection.ops.adapt_json_value({"a": 1}, Encoder)
    assert adapted.dumps is not jsonb_text


# --- BEGIN with the transaction's first statement -------------------------------------------
# Real transactions: these tests are not wrapped in one (transaction=True).
in_real_transactions = pytest.mark.django_db(transaction=True)


def spied(monkeypatch, owner: type, name: str, note) -> None:
    """``owner.name`` calls ``note`` with its arguments first, then does what it did."""
    original = getattr(owner, name)

    def spy(self, *args, **kwargs):
        note(self, *args, **kwargs)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(owner, name, spy)


def pipelines_entered(monkeypatch) -> list:
    """The pipelines psycopg's connections open from now on."""
    entered: list = []
    spied(monkeypatch, psycopg.Connection, "pipeline", entered.append)
    return entered


@in_real_transactions
def test_a_transactions_begin_leaves_with_its_first_statement(monkeypatch):
    connection.ensure_connection()
    entered = pipelines_entered(monkeypatch)
    with transaction.atomic():
        assert connection.connection.info.transaction_status == TransactionStatus.IDLE
        Operator.objects.filter(pk=None).exists()  # the first statement: BEGIN rides along
        assert connection.connection.info.transaction_status == TransactionStatus.INTRANS
        Operator.objects.exists()  # the transaction is open: no pipeline again
    assert len(entered) == 1
    assert connection.connection.info.transaction_status == TransactionStatus.IDLE
    assert connection.connection.autocommit  # psycopg never sends BEGIN by itself here
    assert connection.get_autocommit() and not connection.begin_pending
    with transaction.atomic():  # a transaction that runs nothing sends nothing
        pass
    assert len(entered) == 1


@in_real_transactions
def test_what_a_transaction_wrote_goes_with_its_rollback_and_stays_with_its_commit():
    committed = []
    with pytest.raises(RuntimeError), transaction.atomic():
        OperatorFactory(name="rolled back")
        raise RuntimeError("the view failed")
    with transaction.atomic():
        OperatorFactory(name="committed")
        transaction.on_commit(lambda: committed.append(Operator.objects.count()))
        assert committed == []  # after the commit, not before
    assert list(Operator.objects.values_list("name", flat=True)) == ["committed"]
    assert committed == [1]


@in_real_transactions
def test_an_error_of_the_first_statement_is_djangos_and_rolls_the_transaction_back():
    operator = OperatorFactory()
    with pytest.raises(IntegrityError), transaction.atomic():  # Django's class, not psycopg's
        Operator.objects.create(pk=operator.pk, name="the same primary key")
    assert connection.connection.info.transaction_status == TransactionStatus.IDLE
    with transaction.atomic():
        with pytest.raises(IntegrityError), transaction.atomic():  # a savepoint goes first
            Operator.objects.create(pk=operator.pk, name="again")
        OperatorFactory(name="after the savepoint")
    assert Operator.objects.count() == 2


@in_real_transactions
def test_a_row_locked_by_the_first_statement_stays_locked_until_the_commit():
    operator = OperatorFactory()
    locked, release, done = threading.Event(), threading.Event(), threading.Event()

    def holder():
        try:
            with transaction.atomic():
                list(Operator.objects.select_for_update().filter(pk=operator.pk))
                locked.set()
                release.wait(10)
        finally:
            connection.close()
            done.set()

    def row_is_free() -> bool:
        try:
            with transaction.atomic():
                list(Operator.objects.select_for_update(nowait=True).filter(pk=operator.pk))
            return True
        except DatabaseError:
            return False

    thread = threading.Thread(target=holder)
    thread.start()
    try:
        assert locked.wait(10)
        assert not row_is_free()  # inside the holder's transaction, not an autocommit SELECT
    finally:
        release.set()
        thread.join(10)
    assert done.is_set() and row_is_free()


@in_real_transactions
def test_a_named_cursor_reads_inside_the_transaction():
    with transaction.atomic():
        # Its DECLARE first: the BEGIN goes before it, and it sees the transaction's rows.
        assert list(Operator.objects.iterator(chunk_size=1)) == []
        OperatorFactory(name="unseen outside")
        assert [o.name for o in Operator.objects.iterator(chunk_size=1)] == ["unseen outside"]
    assert [o.name for o in Operator.objects.iterator(chunk_size=1)] == ["unseen outside"]


@in_real_transactions
def test_many_rows_at_once_as_the_first_statement():
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("CREATE TEMPORARY TABLE begin_probe (n int) ON COMMIT DROP")
        with connection.cursor() as cursor:
            cursor.executemany("INSERT INTO begin_probe VALUES (%s)", [(1,), (2,)])
            cursor.execute("SELECT count(*) FROM begin_probe")
            assert cursor.fetchone() == (2,)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.executemany("SELECT %s", [(1,)])  # executemany first: BEGIN on its own first
        assert connection.connection.info.transaction_status == TransactionStatus.INTRANS


@in_real_transactions
def test_with_autocommit_off_by_hand_each_commit_begins_the_next_transaction():
    transaction.set_autocommit(False)
    try:
        OperatorFactory(name="kept")
        transaction.commit()
        OperatorFactory(name="rolled back")  # in a new transaction, not autocommitted
        assert connection.connection.info.transaction_status == TransactionStatus.INTRANS
        transaction.rollback()
    finally:
        transaction.set_autocommit(True)
    assert list(Operator.objects.values_list("name", flat=True)) == ["kept"]
    assert not connection.begin_pending


def statements_sent(monkeypatch) -> list[str]:
    """The first word of every statement psycopg's connections execute from now on,
    BEGIN and COMMIT included however they are sent."""
    sent: list[str] = []

    def executed(cursor, query, *ignored, **ignored_options):
        text = query.decode() if isinstance(query, bytes) else str(query)
        sent.append(text.split()[0].upper())

    def committed(connection):  # psycopg sends nothing on an idle connection
        if connection.info.transaction_status != TransactionStatus.IDLE:
            sent.append("COMMIT")

    spied(monkeypatch, psycopg.Cursor, "execute", executed)
    spied(monkeypatch, psycopg.Connection, "commit", committed)
    return sent


@in_real_transactions
def test_a_transactions_commit_leaves_with_the_statement_its_caller_calls_last(monkeypatch):
    connection.ensure_connection()
    entered = pipelines_entered(monkeypatch)
    sent = statements_sent(monkeypatch)
    committed = []
    with transaction.atomic():
        operator = OperatorFactory(name="first")  # BEGIN rides along: one pipeline
        operator.name = "renamed"
        transaction.on_commit(lambda: committed.append(Operator.objects.get().name))
        assert connection.commit_with_next_statement()
        Operator.objects.filter(pk=operator.pk).update(name="renamed")  # COMMIT rides along
        assert connection.connection.info.transaction_status == TransactionStatus.IDLE
        assert committed == []  # the hooks still wait for the block's end
    assert len(entered) == 2
    # No COMMIT of the block's own; the SELECT is the hook's, after the commit.
    assert sent == ["BEGIN", "INSERT", "UPDATE", "COMMIT", "SELECT"]
    assert committed == ["renamed"]
    assert not (connection.commit_pending or connection.committed_early)


@in_real_transactions
def test_nothing_may_run_after_the_statement_that_carried_the_commit():
    with pytest.raises(TransactionManagementError), transaction.atomic():
        operator = OperatorFactory(name="kept")
        assert connection.commit_with_next_statement()
        Operator.objects.filter(pk=operator.pk).update(name="kept, committed")
        OperatorFactory(name="would escape the transaction")
    # The statement that carried the COMMIT is committed, whole; what came after never ran.
    assert list(Operator.objects.values_list("name", flat=True)) == ["kept, committed"]
    with transaction.atomic():  # the connection is as good as new
        OperatorFactory(name="next")
    assert Operator.objects.count() == 2


@in_real_transactions
def test_a_failing_last_statement_commits_nothing():
    operator = OperatorFactory(name="there")
    with pytest.raises(IntegrityError), transaction.atomic():
        OperatorFactory(name="written first")
        assert connection.commit_with_next_statement()
        Operator.objects.create(pk=operator.pk, name="the same primary key")
    assert list(Operator.objects.values_list("name", flat=True)) == ["there"]
    assert connection.connection.info.transaction_status == TransactionStatus.IDLE


@in_real_transactions
def test_the_commit_rides_along_only_at_the_outermost_block():
    with transaction.atomic():
        with transaction.atomic():  # a savepoint: its end is not the transaction's
            assert not connection.commit_with_next_statement()
        OperatorFactory(name="in a savepoint's transaction")
        assert connection.connection.info.transaction_status == TransactionStatus.INTRANS
    assert not connection.commit_with_next_statement()  # no transaction: autocommit
    assert Operator.objects.count() == 1


@in_real_transactions
def test_a_statement_without_parameters_leaves_the_commit_to_the_block():
    with transaction.atomic():
        assert connection.commit_with_next_statement()
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")  # a simple query: no pipeline, no COMMIT with it
        assert connection.connection.info.transaction_status == TransactionStatus.INTRANS
        assert not connection.commit_pending
        OperatorFactory(name="still in the transaction")
    assert Operator.objects.count() == 1
