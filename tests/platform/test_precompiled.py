"""Queries compiled once per process thread give what the ORM gives (precompiled.py)."""

import threading
import uuid
from datetime import timedelta

import pytest
from django.db import DatabaseError, connection, transaction
from django.db.models import F
from django.db.models.signals import pre_save
from django.db.transaction import TransactionManagementError
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games.models import Seat
from games.services import seat_take
from gin_platform.models import (
    AuditEvent,
    LaunchToken,
    Operator,
    OperatorEvent,
    Player,
    PlayerSession,
)
from gin_platform.request_path.precompiled import (
    PrecompiledQuery,
    fetch_then,
    insert_rows,
    save_fields,
    save_fields_and_insert,
    saves_and_inserts,
)
from gin_platform.tenancy.services import launch_token_create, player_session_create
from tests.factories import SYSTEM, OperatorFactory, PlayerFactory
from tests.games.factories import TableFactory

pytestmark = pytest.mark.django_db

SESSIONS = PrecompiledQuery(
    lambda token_hash: PlayerSession.objects.select_related("player__operator").filter(
        token_hash=token_hash
    )[:1]
)
PLAYERS_OF = PrecompiledQuery(
    lambda operators, ref: (
        Player.objects.filter(operator_id__in=operators)
        .exclude(external_ref=ref)
        .order_by("external_ref")
    )
)


def test_yields_the_instances_and_related_objects_the_orm_yields():
    session = player_session_create(player=PlayerFactory(), ttl_seconds=60, actor=SYSTEM).session
    SESSIONS.fetch("warm")  # compiled before the count below
    with CaptureQueriesContext(connection) as queries:
        (found,) = SESSIONS.fetch(session.token_hash)
        # select_related objects are filled in: reaching them runs nothing
        operator_name = found.player.operator.name
    assert len(queries.captured_queries) == 1
    expected = PlayerSession.objects.select_related("player__operator").get(pk=session.pk)
    assert found.pk == expected.pk and found.expires_at == expected.expires_at
    assert found.player.external_ref == expected.player.external_ref
    assert operator_name == expected.player.operator.name
    assert found._state.db == "default" and not found._state.adding
    assert SESSIONS.fetch("no such hash") == []


def test_each_call_binds_its_own_values_and_each_list_length_compiles_apart():
    first, second, third = OperatorFactory(), OperatorFactory(), OperatorFactory()
    for operator, refs in ((first, "abc"), (second, "de"), (third, "f")):
        for ref in refs:
            PlayerFactory(operator=operator, external_ref=ref)

    def refs(operators, excluded):
        return [p.external_ref for p in PLAYERS_OF.fetch([o.pk for o in operators], excluded)]

    assert refs([first], "b") == ["a", "c"]
    assert refs([second], "b") == ["d", "e"]
    assert refs([first, third], "a") == ["b", "c", "f"]
    assert refs([second, third], "f") == ["d", "e"]


@pytest.mark.postgres  # SQLite has no FOR UPDATE, so the ORM lets it through there
@pytest.mark.django_db(transaction=True)
def test_a_lock_outside_a_transaction_is_refused_as_the_orm_refuses_it():
    locks = PrecompiledQuery(lambda pk: Operator.objects.select_for_update().filter(pk=pk))
    operator = OperatorFactory()
    with pytest.raises(TransactionManagementError):
        locks.fetch(operator.pk)
    with transaction.atomic():
        assert [o.pk for o in locks.fetch(operator.pk)] == [operator.pk]


def test_a_lookup_that_transforms_its_value_runs_through_the_orm_each_time():
    contains = PrecompiledQuery(lambda text: Player.objects.filter(display_name__icontains=text))
    anna, _ = PlayerFactory(display_name="Anna"), PlayerFactory(display_name="Bob")
    joanne = PlayerFactory(display_name="Joanne")
    assert {p.pk for p in contains.fetch("ann")} == {anna.pk, joanne.pk}
    assert [p.pk for p in contains.fetch("bo")] == [_.pk]
    assert contains._local.compiled == {(str,): None}  # nothing precompiled for it


@pytest.mark.django_db(transaction=True)
def test_another_thread_compiles_for_its_own_connection():
    session = player_session_create(player=PlayerFactory(), ttl_seconds=60, actor=SYSTEM).session
    SESSIONS.fetch(session.token_hash)  # compiled in this thread first
    found = []

    def other():
        try:
            found.extend(SESSIONS.fetch(session.token_hash))
        finally:
            connection.close()

    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert [s.pk for s in found] == [session.pk]


def test_a_lookup_on_a_small_integer_column_runs_through_the_orm():
    """The stand-in is out of a PositiveSmallIntegerField's range (the ORM answers such a
    lookup without SQL), so it is not compiled ahead, and the answers stay right."""
    table = TableFactory(room__practice=True)
    player = PlayerFactory(operator=table.room.operator)
    seat = seat_take(player=player, table=table, actor=SYSTEM).seat
    by_position = PrecompiledQuery(
        lambda position: Seat.objects.filter(position=position, match__table=table)
    )
    assert [s.pk for s in by_position.fetch(seat.position)] == [seat.pk]
    assert by_position._local.compiled == {(int,): None}
    assert by_position.fetch(seat.position + 1) == []


OPERATOR_LOCKED = PrecompiledQuery(lambda pk: Operator.objects.select_for_update().filter(pk=pk))
PLAYERS_LOCKED = PrecompiledQuery(
    lambda operator_id: (
        Player.objects.select_for_update()
        .select_related("operator")
        .filter(operator_id=operator_id)
    )
)


@pytest.mark.django_db(transaction=True)
def test_fetch_then_answers_both_queries_and_the_second_only_after_rows_of_the_first():
    operator, other = OperatorFactory(), OperatorFactory()
    players = sorted(p.pk for p in PlayerFactory.create_batch(3, operator=operator))
    with transaction.atomic():
        with CaptureQueriesContext(connection) as queries:
            operators, found = fetch_then(
                OPERATOR_LOCKED, (operator.pk,), PLAYERS_LOCKED, (operator.pk,)
            )
        assert [o.pk for o in operators] == [operator.pk]
        assert sorted(p.pk for p in found) == players
        assert all(p.operator.name == operator.name for p in found)  # select_related kept
        assert not any(p._state.adding for p in [*operators, *found])
        assert len(queries.captured_queries) == (1 if connection.vendor == "postgresql" else 2)
        # Nothing first, nothing then: the second query's rows are not even read.
        assert fetch_then(OPERATOR_LOCKED, (uuid.uuid4(),), PLAYERS_LOCKED, (operator.pk,)) == (
            [],
            [],
        )
        assert fetch_then(OPERATOR_LOCKED, (other.pk,), PLAYERS_LOCKED, (other.pk,)) == (
            [other],
            [],
        )


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_fetch_then_locks_the_second_querys_rows_only_after_the_firsts():
    """The lock order of the action path (Match, then its hands) in one statement: while the
    first query's row is held by another transaction, the statement waits without having
    locked any row of the second."""
    operator = OperatorFactory()
    player = PlayerFactory(operator=operator)
    holding, release, finished = threading.Event(), threading.Event(), threading.Event()

    def holder():
        try:
            with transaction.atomic():
                OPERATOR_LOCKED.fetch(operator.pk)
                holding.set()
                release.wait(10)
        finally:
            connection.close()

    def mover():
        try:
            with transaction.atomic():
                fetch_then(OPERATOR_LOCKED, (operator.pk,), PLAYERS_LOCKED, (operator.pk,))
                finished.set()
                release.wait(10)
        finally:
            connection.close()

    def player_is_free() -> bool:
        try:
            with transaction.atomic():
                list(Player.objects.select_for_update(nowait=True).filter(pk=player.pk))
            return True
        except DatabaseError:
            return False

    threads = [threading.Thread(target=holder)]
    threads[0].start()
    assert holding.wait(10)
    threads.append(threading.Thread(target=mover))
    threads[1].start()
    try:
        assert not finished.wait(0.5)  # waiting for the operator's row...
        assert player_is_free()  # ...with the player's row not locked yet
    finally:
        release.set()
    for thread in threads:
        thread.join(10)
    assert finished.is_set()


@pytest.mark.postgres
def test_a_hot_statement_is_prepared_once_per_connection_on_postgresql():
    # Server-side binding alone only binds: Django passes prepare_threshold=None to psycopg
    # unless the settings name one, and then PostgreSQL plans every run again.
    def prepared() -> int:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE %s",
                ['%"platform_playersession"."token_hash" = $1%'],
            )
            return cursor.fetchone()[0]

    before = prepared()
    for attempt in range(6):  # psycopg prepares on the 5th run of a query on a connection
        SESSIONS.fetch(f"hash {attempt}")
    assert prepared() == before + 1


def _launch_token() -> LaunchToken:
    """A row of a model no signal receiver listens to (credentials have receivers:
    gin_platform/request_path/remembered_credentials.py)."""
    return launch_token_create(player=PlayerFactory(), actor=SYSTEM).launch_token


def test_save_fields_writes_the_named_fields_as_save_does_and_nothing_else():
    token = _launch_token()
    stored_hash = token.token_hash
    now = timezone.now()
    token.used_at, token.expires_at = now, now + timedelta(hours=1)
    token.token_hash = "changed in memory only"
    save_fields(token, fields=("used_at", "expires_at"))  # built on the first call
    token.used_at = now + timedelta(seconds=5)
    with CaptureQueriesContext(connection) as queries:
        save_fields(token, fields=("used_at", "expires_at"))
    assert [query["sql"].split()[0] for query in queries.captured_queries] == ["UPDATE"]
    stored = LaunchToken.objects.get(pk=token.pk)
    assert stored.used_at == now + timedelta(seconds=5)
    assert stored.expires_at == now + timedelta(hours=1)
    assert stored.token_hash == stored_hash  # not named: not written
    token.used_at = None  # a NULL is written as one
    save_fields(token, fields=("used_at",))
    assert LaunchToken.objects.get(pk=token.pk).used_at is None


def test_save_fields_refuses_a_row_that_is_gone_as_save_does():
    token = _launch_token()
    LaunchToken.objects.filter(pk=token.pk).delete()
    with pytest.raises(DatabaseError, match="did not affect any rows"):
        save_fields(token, fields=("used_at",))


def test_save_fields_leaves_expressions_and_signal_receivers_to_save():
    token = _launch_token()
    expires_at = token.expires_at
    token.expires_at = F("expires_at") + timedelta(hours=1)
    save_fields(token, fields=("expires_at",))
    assert LaunchToken.objects.get(pk=token.pk).expires_at == expires_at + timedelta(hours=1)

    heard = []

    def receiver(sender, instance, update_fields, **kwargs):
        heard.append(set(update_fields))

    pre_save.connect(receiver, sender=LaunchToken)
    try:
        token.refresh_from_db()
        save_fields(token, fields=("used_at",))
    finally:
        pre_save.disconnect(receiver, sender=LaunchToken)
    assert heard == [{"used_at"}]


def _audit_rows(operator, count: int) -> list[AuditEvent]:
    return [
        AuditEvent(
            operator=operator,
            actor_type=AuditEvent.ActorType.SYSTEM,
            action="test.insert",
            object_type="row",
            object_id=str(number),
            data={"number": number, "cards": ["AS", "TD"], "none": None},
        )
        for number in range(count)
    ]


def test_insert_rows_stores_what_bulk_create_stores_in_one_statement():
    operator = OperatorFactory()
    insert_rows(_audit_rows(operator, 2))  # built on the first call for two rows
    ours, theirs = _audit_rows(operator, 2), _audit_rows(operator, 2)
    with CaptureQueriesContext(connection) as queries:
        insert_rows(ours)
    assert [query["sql"].split()[0] for query in queries.captured_queries] == ["INSERT"]
    AuditEvent.objects.bulk_create(theirs)
    assert all(row.pk is not None and not row._state.adding for row in ours)
    assert ours[0].pk < ours[1].pk  # the keys come back in the rows' order
    fields = ("operator_id", "actor_type", "action", "object_type", "object_id", "data")
    for mine, reference in zip(ours, theirs, strict=True):
        stored = AuditEvent.objects.values(*fields).get(pk=mine.pk)
        assert stored == AuditEvent.objects.values(*fields).get(pk=reference.pk)
        assert stored["data"] == {
            "number": int(mine.object_id),
            "cards": ["AS", "TD"],
            "none": None,
        }
    insert_rows(_audit_rows(operator, 3))  # another count: its own statement
    assert AuditEvent.objects.filter(action="test.insert").count() == 9


@pytest.mark.postgres
def test_insert_rows_reads_back_what_the_database_fills_like_save():
    """A key the model assigns itself (a UUID) and a column the database fills
    (``db_default``, here the transaction's time): one INSERT, the column read back as
    ``save`` reads it; a value given for that column is stored as given (``bulk_create``)."""
    operator = OperatorFactory()
    insert_rows([OperatorEvent(operator=operator, type="test.one", data={})])  # built
    ours = OperatorEvent(operator=operator, type="test.one", data={"n": 1})
    with CaptureQueriesContext(connection) as queries:
        insert_rows([ours])
    (sql,) = [query["sql"] for query in queries.captured_queries]
    assert sql.startswith("INSERT") and "DEFAULT" in sql and sql.endswith('RETURNING "created_at"')
    theirs = OperatorEvent.objects.create(operator=operator, type="test.one", data={"n": 1})
    stored = OperatorEvent.objects.get(pk=ours.pk)
    assert ours.created_at == stored.created_at == theirs.created_at  # one transaction's time
    assert not ours._state.adding and stored.data == {"n": 1}
    earlier = theirs.created_at - timedelta(days=1)
    given = OperatorEvent(operator=operator, type="test.one", data={}, created_at=earlier)
    insert_rows([given])
    assert OperatorEvent.objects.get(pk=given.pk).created_at == earlier


def test_save_fields_and_insert_change_the_row_and_add_the_others_as_the_calls_do():
    """One statement on PostgreSQL (a state change, its audit row and another model's row),
    one per row elsewhere; the same rows either way, each row's answers read back."""
    token = _launch_token()
    operator = token.player.operator
    later = token.expires_at + timedelta(hours=1)
    token.expires_at = later
    (audit,) = _audit_rows(operator, 1)
    event = OperatorEvent(operator=operator, type="test.one", data={"n": 1})
    built = [*_audit_rows(None, 1), OperatorEvent(operator=operator, type="test.one", data={})]
    save_fields_and_insert(token, fields=("expires_at",), rows=built)  # built on first call
    with CaptureQueriesContext(connection) as queries:
        save_fields_and_insert(token, fields=("expires_at",), rows=[audit, event])
    statements = [query["sql"].split()[0] for query in queries.captured_queries]
    postgresql = connection.vendor == "postgresql"
    assert statements == (["WITH"] if postgresql else ["UPDATE", "INSERT", "INSERT"])
    assert LaunchToken.objects.get(pk=token.pk).expires_at == later
    assert audit.pk is not None and not audit._state.adding and not event._state.adding
    assert AuditEvent.objects.get(pk=audit.pk).data == {
        "number": 0,
        "cards": ["AS", "TD"],
        "none": None,
    }
    stored = OperatorEvent.objects.get(pk=event.pk)
    assert stored.data == {"n": 1} and stored.created_at == event.created_at  # read back


def test_saves_and_inserts_change_several_rows_and_add_others_in_one_statement():
    """A move's writes: two rows changed (here two tokens) and a new row, one statement on
    PostgreSQL, the calls one by one elsewhere; the same rows either way."""
    first, second = _launch_token(), _launch_token()
    now = timezone.now()
    first.used_at, second.expires_at = now, now + timedelta(hours=2)
    saves_and_inserts(  # built on the first call
        updates=[(first, ("used_at",)), (second, ("expires_at",))], rows=_audit_rows(None, 1)
    )
    first.expires_at = second.used_at = now + timedelta(hours=3)
    (audit,) = _audit_rows(None, 1)
    with CaptureQueriesContext(connection) as queries:
        saves_and_inserts(updates=[(first, ("expires_at",)), (second, ("used_at",))], rows=[audit])
    statements = [query["sql"].split()[0] for query in queries.captured_queries]
    postgresql = connection.vendor == "postgresql"
    assert statements == (["WITH"] if postgresql else ["UPDATE", "UPDATE", "INSERT"])
    stored = {token.pk: token for token in LaunchToken.objects.filter(pk__in=[first.pk, second.pk])}
    assert stored[first.pk].used_at == now and stored[first.pk].expires_at == first.expires_at
    assert stored[second.pk].expires_at == now + timedelta(hours=2)
    assert stored[second.pk].used_at == second.used_at
    assert audit.pk is not None and AuditEvent.objects.filter(pk=audit.pk).exists()


def test_saves_and_inserts_refuse_when_any_row_is_gone_and_keep_nothing():
    kept, gone = _launch_token(), _launch_token()
    LaunchToken.objects.filter(pk=gone.pk).delete()
    kept.used_at = timezone.now()
    (audit,) = _audit_rows(None, 1)
    with pytest.raises(DatabaseError, match="did not affect any rows"), transaction.atomic():
        saves_and_inserts(updates=[(kept, ("used_at",)), (gone, ("used_at",))], rows=[audit])
    assert LaunchToken.objects.get(pk=kept.pk).used_at is None
    assert not AuditEvent.objects.filter(action="test.insert").exists()


def test_save_fields_and_insert_refuse_a_row_that_is_gone_and_keep_nothing():
    token = _launch_token()
    LaunchToken.objects.filter(pk=token.pk).delete()
    (audit,) = _audit_rows(None, 1)
    with pytest.raises(DatabaseError, match="did not affect any rows"), transaction.atomic():
        save_fields_and_insert(token, fields=("used_at",), rows=[audit])
    assert not AuditEvent.objects.filter(action="test.insert").exists()


def test_save_fields_and_insert_leave_a_signal_receiver_to_save():
    token = _launch_token()
    heard = []

    def receiver(sender, instance, update_fields, **kwargs):
        heard.append(set(update_fields))

    pre_save.connect(receiver, sender=LaunchToken)
    try:
        save_fields_and_insert(token, fields=("used_at",), rows=_audit_rows(None, 1))
    finally:
        pre_save.disconnect(receiver, sender=LaunchToken)
    assert heard == [{"used_at"}]
    assert AuditEvent.objects.filter(action="test.insert").count() == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_saves_and_inserts_as_the_last_statement_commit_with_it_or_keep_nothing():
    kept, gone = _launch_token(), _launch_token()
    LaunchToken.objects.filter(pk=gone.pk).delete()
    kept.used_at = timezone.now()
    (audit,) = _audit_rows(None, 1)
    # A row not updated fails the statement itself: its COMMIT never runs.
    with pytest.raises(DatabaseError), transaction.atomic():
        saves_and_inserts(
            updates=[(kept, ("used_at",)), (gone, ("used_at",))], rows=[audit], last=True
        )
    assert LaunchToken.objects.get(pk=kept.pk).used_at is None
    assert not AuditEvent.objects.filter(action="test.insert").exists()
    (audit,) = _audit_rows(None, 1)
    with transaction.atomic():
        saves_and_inserts(updates=[(kept, ("used_at",))], rows=[audit], last=True)
        assert connection.committed_early  # COMMIT went with the statement
    assert LaunchToken.objects.get(pk=kept.pk).used_at == kept.used_at
    assert AuditEvent.objects.filter(pk=audit.pk).exists()
