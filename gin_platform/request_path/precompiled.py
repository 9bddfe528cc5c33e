"""Hot-path reads whose SQL the ORM compiles once per process, not once per request.

On the action path the ORM's compiler (joins, select lists, lookups, ORDER BY, FOR UPDATE)
cost more CPU than PostgreSQL spent answering the statement: the session lookup, the seats
and match lock and the hands lock were a fifth of a web process's time per move (profile in
docs/benchmarks.md). A ``PrecompiledQuery`` is built from an ordinary queryset, so the query
still reads like the ORM and yields the same model instances (``select_related`` objects
included); only the compilation happens once:

    session_by_token = PrecompiledQuery(
        lambda token_hash: PlayerSession.objects.select_related("player")
        .filter(token_hash=token_hash)[:1]
    )
    sessions = session_by_token.fetch("ab12...")

The builder is called once with stand-in values of the same types as the real ones (an int,
a str, a UUID, or a list of them), the statement is compiled, and each stand-in found among
its parameters marks where the real value goes. A list is compiled once per length. Where a
stand-in does not come out as a parameter unchanged (a lookup that transforms its value, such
as ``icontains``; SQLite, which stores a UUID as text), that query runs through the ORM every
time instead: never with a constant where a caller's value belongs. So does a lookup on a
column too small for the stand-in (the ORM answers an out-of-range value without SQL).

``select_for_update`` keeps the ORM's guard: refused outside a transaction.
``fetch_then(first, args, then, args)`` runs two of them as one statement on PostgreSQL,
the second only once the first has found a row (so its locks come after the first's: a
move's match, then its hands).

``save_fields(instance, fields=(...))`` is ``instance.save(update_fields=...)`` for the same
hot path: the UPDATE of a model's fields by primary key, its SQL built once per model, field
list and database; each value prepared by its field as ``save`` prepares it. Likewise
``insert_rows(rows)`` is ``bulk_create(rows)`` for the few rows a move, a settlement or an
event appends, and ``saves_and_inserts`` both in one statement (a state change with its
audit row; a move's hand, match and events).
"""

from __future__ import annotations

import enum
import itertools
import threading
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Generic, TypeVar

from django.core.exceptions import EmptyResultSet, FullResultSet
from django.db import DatabaseError, connections, router
from django.db.models import NOT_PROVIDED, AutoField, BigAutoField, Field, Model, QuerySet
from django.db.models.expressions import DatabaseDefault
from django.db.models.query import get_related_populators
from django.db.models.signals import post_save, pre_save
from django.db.transaction import TransactionManagementError

from gin_platform.request_path.postgresql.base import DatabaseWrapper as PostgresqlWrapper


class _Unseen(enum.Enum):
    """What a cache of statements answers for a key it has never seen (None there: seen,
    and not buildable ahead)."""

    UNSEEN = enum.auto()


_UNSEEN: Final = _Unseen.UNSEEN
# The model a statement's rows are instances of (the queryset's), and a second one.
M = TypeVar("M", bound=Model)
N = TypeVar("N", bound=Model)
# Stand-ins: values no caller passes (negative ids; marked strings; UUIDs of a reserved range).
_serial = itertools.count(1)
_STAND_IN_INT = -(2**62)
_STAND_IN_UUID = 0x6D1C_0000_0000_0000_0000_0000_0000_0000


def _stand_in(example: Any) -> Any:
    number = next(_serial)
    if isinstance(example, bool):
        raise TypeError("a boolean cannot be told apart from other parameters; use a constant")
    if isinstance(example, int):
        return _STAND_IN_INT - number
    if isinstance(example, str):
        return f"\x00precompiled-stand-in-{number}\x00"
    if isinstance(example, uuid.UUID):
        return uuid.UUID(int=_STAND_IN_UUID + number)
    raise TypeError(f"no stand-in for a {type(example).__name__} parameter")


@dataclass(frozen=True)
class _Compiled(Generic[M]):
    model: type[M]  # the queryset's: the rows are its instances
    alias: str
    sql: str
    # For each parameter: (argument index, item index or None) of a caller's value, or None
    # with the constant in ``constants``.
    slots: tuple[tuple[int, int | None] | None, ...]
    constants: tuple[Any, ...]
    for_update: bool
    compiler: Any
    attnames: tuple[str, ...]
    model_columns: slice
    populators: list
    # What ``compiler.results_iter`` works out per call, worked out once.
    converters: dict
    output_fields: list
    composite: bool

    def params(self, args: Sequence[Any]) -> list[Any]:
        pairs = zip(self.slots, self.constants, strict=True)
        return [_value(args, slot, constant) for slot, constant in pairs]


class PrecompiledQuery(Generic[M]):
    """A queryset of model ``M`` compiled once per process (per length of each list
    argument)."""

    def __init__(self, build: Callable[..., QuerySet[M]]) -> None:
        self.build = build
        # Per thread: a compiler is bound to its thread's connection (the converters it
        # applies to each row come from that connection), so no thread uses another's.
        self._local = threading.local()

    def fetch(self, *args: Any) -> list[M]:
        """The model instances the queryset ``build(*args)`` would yield, in its order."""
        compiled = self.compiled(args)
        if compiled is None:  # not precompilable: the ORM compiles it each time
            return list(self.build(*args))
        connection = connections[compiled.alias]
        _refuse_lock_outside_transaction(compiled, connection)
        with connection.cursor() as cursor:
            cursor.execute(compiled.sql, compiled.params(args))
            rows = cursor.fetchall()
        return _instances(compiled, rows)

    def compiled(self, args: Sequence[Any]) -> _Compiled[M] | None:
        """The statement for arguments of these types (None: not precompilable)."""
        shape = tuple(
            (type(arg), len(arg)) if isinstance(arg, list | tuple) else type(arg) for arg in args
        )
        cache = self._local.__dict__.setdefault("compiled", {})
        compiled = cache.get(shape, _UNSEEN)
        if compiled is _UNSEEN:
            compiled = cache[shape] = self._compile(args)
        return compiled

    def _compile(self, args: Sequence[Any]) -> _Compiled[M] | None:
        stand_ins: list[Any] = []
        where: dict[Any, tuple[int, int | None]] = {}
        for index, arg in enumerate(args):
            if isinstance(arg, list | tuple):
                items = [_stand_in(item) for item in arg]
                stand_ins.append(items)
                where.update({item: (index, position) for position, item in enumerate(items)})
            else:
                stand_ins.append(_stand_in(arg))
                where[stand_ins[-1]] = (index, None)
        queryset = self.build(*stand_ins)
        compiler = queryset.query.get_compiler(using=queryset.db)
        try:
            sql, params = compiler.as_sql()
        except (EmptyResultSet, FullResultSet):
            # The stand-in is out of the field's range (a small integer column): the ORM
            # decides such a lookup without SQL, so it cannot be compiled ahead.
            return None
        slots = tuple(where.get(param) if _hashable(param) else None for param in params)
        if set(where.values()) - set(slots):
            return None  # a value is transformed on its way to the SQL
        klass_info = compiler.klass_info
        fields = klass_info["select_fields"]
        model_columns = slice(fields[0], fields[-1] + 1)
        output_fields = [column[0] for column in compiler.select[0 : compiler.col_count]]
        return _Compiled(
            model=queryset.model,
            alias=queryset.db,
            sql=sql,
            slots=slots,
            constants=tuple(
                None if slot else param for slot, param in zip(slots, params, strict=True)
            ),
            for_update=queryset.query.select_for_update,
            compiler=compiler,
            attnames=tuple(column[0].target.attname for column in compiler.select[model_columns]),
            model_columns=model_columns,
            populators=get_related_populators(klass_info, compiler.select, queryset.db),  # type: ignore[call-arg]  # django-stubs 6 has Django 6.1's signature (fetch_mode added); Django 5.2's takes three arguments
            converters=compiler.get_converters(output_fields),
            output_fields=output_fields,
            composite=compiler.has_composite_fields(output_fields),
        )


def fetch_then(
    first: PrecompiledQuery[M],
    first_args: Sequence[Any],
    then: PrecompiledQuery[N],
    then_args: Sequence[Any],
) -> tuple[list[M], list[N]]:
    """``first.fetch(*first_args)`` and, only when that found rows, ``then.fetch(*then_args)``
    in ONE statement on PostgreSQL (a round trip less on the action path: the match's lock
    and its hands' lock). ``then`` runs only once ``first`` has produced a row, so the rows
    ``first`` locks are locked before any of ``then``'s (the lock order holds). Each list
    in no particular order: the caller sorts. Elsewhere, or for a statement that cannot be
    combined, the two statements one after the other."""
    one, two = first.compiled(first_args), then.compiled(then_args)
    if one is None or two is None or not _combinable(one, two):
        found = first.fetch(*first_args)
        return found, (then.fetch(*then_args) if found else [])
    connection = connections[one.alias]
    _refuse_lock_outside_transaction(one, connection)
    _refuse_lock_outside_transaction(two, connection)
    # Each part MATERIALIZED: computed once, in its own order and with its own locks; the
    # second only behind EXISTS on the first. FULL JOIN ON FALSE: each row is one part's,
    # the other part's columns NULL. Only compiled SQL goes in, no value.
    sql = (
        f"WITH part_one AS MATERIALIZED ({one.sql}), "  # noqa: S608
        f"part_two AS MATERIALIZED (SELECT * FROM ({two.sql}) AS two "
        "WHERE EXISTS (SELECT 1 FROM part_one)) "
        "SELECT part_one.*, part_two.* FROM part_one FULL JOIN part_two ON FALSE"
    )
    width = one.compiler.col_count
    with connection.cursor() as cursor:
        cursor.execute(sql, [*one.params(first_args), *two.params(then_args)])
        rows = cursor.fetchall()
    firsts, thens = [], []
    for row in rows:  # a row of the first part has its key; one of the second, NULLs there
        head = row[:width]
        if any(value is not None for value in head):
            firsts.append(head)
        else:
            thens.append(row[width:])
    return _instances(one, firsts), _instances(two, thens)


def _combinable(one: _Compiled[Any], two: _Compiled[Any]) -> bool:
    return (
        one.alias == two.alias
        and connections[one.alias].vendor == "postgresql"
        and not one.compiler.has_extra_select
        and not two.compiler.has_extra_select
    )


def _refuse_lock_outside_transaction(compiled: _Compiled[Any], connection) -> None:
    """The ORM's own guard for ``select_for_update``."""
    if compiled.for_update and connection.get_autocommit():
        raise TransactionManagementError(
            "select_for_update cannot be used outside of a transaction."
        )


def _value(args: Sequence[Any], slot: tuple[int, int | None] | None, constant: Any) -> Any:
    if slot is None:
        return constant
    argument, item = slot
    return args[argument] if item is None else args[argument][item]


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _instances(compiled: _Compiled[M], rows: list[tuple]) -> list[M]:
    """Model instances from rows, as Django's ModelIterable builds them."""
    compiler = compiled.compiler
    if compiler.has_extra_select:
        rows = [row[: compiler.col_count] for row in rows]
    model = compiled.model
    instances = []
    # As compiler.results_iter(results=[rows]) does, with the converters found once.
    if compiled.converters:
        rows = compiler.apply_converters(rows, compiled.converters)
    if compiled.composite:
        rows = compiler.composite_fields_to_tuples(rows, compiled.output_fields)
    for row in rows:
        instance = model.from_db(compiled.alias, compiled.attnames, row[compiled.model_columns])
        for populator in compiled.populators:
            populator.populate(row, instance)
        for name, position in compiler.annotation_col_map.items():
            setattr(instance, name, row[position])
        instances.append(instance)
    return instances


# (model, field names, database alias) -> (UPDATE statement, its fields); None: not buildable.
_UPDATES: dict[tuple[type[Model], tuple[str, ...], str], tuple[str, tuple[Field, ...]] | None] = {}


def save_fields(instance: Model, *, fields: Sequence[str]) -> None:
    """``instance.save(update_fields=fields)``: the same row change, values prepared by their
    fields (``auto_now`` included), and the same error when no row was updated.

    ``save`` itself runs instead whenever it would do more than the UPDATE: a receiver of the
    model's save signals, a value that is an expression (``F("seq") + 1``), a field with a
    placeholder of its own (binary, array, range and geometry fields), an unsaved instance."""
    names = tuple(fields)
    update = _update_prepared(instance, names)
    if update is None:
        instance.save(update_fields=names)
        return
    alias, sql, params = update
    with connections[alias].cursor() as cursor:
        cursor.execute(sql, params)
        if cursor.rowcount != 1:
            raise DatabaseError(_NO_ROW_UPDATED)


_NO_ROW_UPDATED = "Save with update_fields did not affect any rows."


def save_fields_and_insert(
    instance: Model, *, fields: Sequence[str], rows: Sequence[Model]
) -> None:
    """``save_fields(instance, fields=...)`` and ``insert_rows([row])`` for each of ``rows``
    (new rows, of any models) in ONE statement on PostgreSQL (``saves_and_inserts``)."""
    saves_and_inserts(updates=[(instance, fields)], rows=rows)


def saves_and_inserts(
    *, updates: Sequence[tuple[Model, Sequence[str]]], rows: Sequence[Model], last: bool = False
) -> None:
    """``save_fields(instance, fields=...)`` for each of ``updates`` (rows of any models, each
    locked by the caller, no row twice: one statement cannot change a row twice) and
    ``insert_rows([row])`` for each of ``rows`` (new rows, of any models) in ONE statement on
    PostgreSQL: data-modifying CTEs, so a state change, its audit row and the caller's record
    of it cost one round trip. The statements one by one elsewhere, or whenever one of them
    is not built ahead. The same answers: each row's key and defaults set on it, and the
    error when a row was not updated (the transaction is then only good for rolling back, as
    after any failed statement).

    ``last``: the caller's promise that this is its transaction's last statement, so its
    COMMIT may go with it in the same round trip (the backend's
    ``commit_with_next_statement``: the outermost ``atomic`` block only). Then a row not
    updated fails the statement itself (a division by its count of zero), so nothing of it
    is committed; the block's end sends no COMMIT of its own and runs the ``on_commit``
    hooks as always."""
    changes = [(instance, tuple(fields)) for instance, fields in updates]
    prepared = [_update_prepared(instance, names) for instance, names in changes]
    inserts = [_insert_prepared([row]) for row in rows]
    built_updates = [update for update in prepared if update is not None]
    built_inserts = [insert for insert in inserts if insert is not None]
    aliases = {built[0] for built in (*built_updates, *built_inserts)}
    if (
        len(built_updates) != len(prepared)  # one of them not built ahead
        or len(built_inserts) != len(inserts)
        or len(aliases) != 1
        or connections[next(iter(aliases))].vendor != "postgresql"
    ):
        for instance, names in changes:
            save_fields(instance, fields=names)
        for row in rows:
            insert_rows([row])
        return
    alias = next(iter(aliases))
    database = connections[alias]
    # Asked for here: nothing runs between this and the statement.
    commits = (
        last and isinstance(database, PostgresqlWrapper) and database.commit_with_next_statement()
    )
    # Every statement is built from the models' metadata (precompiled above); every value
    # is a parameter. The final SELECT gives each update's row count and each row's answers;
    # with the COMMIT after it, a count of zero must fail the statement (never a constant
    # expression: PostgreSQL may fold one while planning, taken or not).
    count = "1 / count(*)" if commits else "count(*)"
    ctes: list[str] = []
    answers: list[str] = []
    params: list[Any] = []
    for number, (_, update_sql, update_params) in enumerate(built_updates):
        ctes.append(f"changed_{number} AS ({update_sql} RETURNING 1)")
        answers.append(f"(SELECT {count} FROM changed_{number})")  # noqa: S608 - numbered
        params += update_params
    quote = database.ops.quote_name
    for number, (_, built, insert_params) in enumerate(built_inserts):
        ctes.append(f"inserted_{number} AS ({built.sql})")
        answers += [
            f"(SELECT {quote(_column(field))} FROM inserted_{number})"  # noqa: S608 - metadata
            for field in built.returning
        ]
        params += insert_params
    sql = f"WITH {', '.join(ctes)} SELECT {', '.join(answers)}"
    with database.cursor() as cursor:
        cursor.execute(sql, params)
        values = list(cursor.fetchone())
    updated, values = values[: len(prepared)], values[len(prepared) :]
    if any(count != 1 for count in updated):
        raise DatabaseError(_NO_ROW_UPDATED)
    for row, (_, built, _) in zip(rows, built_inserts, strict=True):
        answer, values = values[: len(built.returning)], values[len(built.returning) :]
        _inserted([row], [answer], built, alias)


def _update_prepared(instance: Model, names: tuple[str, ...]) -> tuple[str, str, list] | None:
    """(database alias, UPDATE, its parameters) of ``save_fields``; None: ``save`` must run."""
    model = type(instance)
    alias = instance._state.db or router.db_for_write(model, instance=instance)
    key = (model, names, alias)
    built = _UPDATES.get(key, _UNSEEN)
    if built is _UNSEEN:
        built = _UPDATES[key] = _update_statement(model, names, alias)
    if (
        built is None
        or instance._state.adding
        or pre_save.has_listeners(model)
        or post_save.has_listeners(model)
    ):
        return None
    sql, targets = built
    connection = connections[alias]
    params = []
    for field in targets:
        value = field.pre_save(instance, False)
        if hasattr(value, "resolve_expression"):
            return None
        value = field.get_db_prep_save(value, connection)
        if hasattr(value, "as_sql"):
            return None
        params.append(value)
    params.append(model._meta.pk.get_db_prep_value(instance.pk, connection))
    return alias, sql, params


def _update_statement(
    model: type[Model], names: tuple[str, ...], alias: str
) -> tuple[str, tuple[Field, ...]] | None:
    meta = model._meta
    named = [meta.get_field(name) for name in names]
    # A relation's other side (a ForeignObjectRel) is no field of the table: never concrete.
    targets = tuple(field for field in named if isinstance(field, Field))
    if (
        not targets
        or len(targets) != len(named)
        or any(
            not field.concrete or field.primary_key or hasattr(field, "get_placeholder")
            for field in targets
        )
    ):
        return None
    quote = connections[alias].ops.quote_name
    assignments = ", ".join(f"{quote(_column(field))} = %s" for field in targets)
    # Identifiers come from the model's metadata; every value is a parameter.
    sql = f"UPDATE {quote(meta.db_table)} SET {assignments} WHERE {quote(_column(meta.pk))} = %s"  # noqa: S608
    return sql, targets


def _column(field: Field) -> str:
    """A concrete field's column (only a field that is not concrete has none)."""
    assert field.column is not None  # the statements here name concrete fields only
    return field.column


@dataclass(frozen=True)
class _Insert:
    sql: str
    targets: tuple[Field, ...]  # the fields whose values are parameters, in VALUES order
    defaults: frozenset[Field]  # database defaults: DEFAULT in the SQL, read back
    returning: tuple[Field, ...]  # what RETURNING gives back, set on each row
    database_assigns_pk: bool


# (model, number of rows, database alias) -> its INSERT; None: not buildable ahead.
_INSERTS: dict[tuple[type[Model], int, str], _Insert | None] = {}


def insert_rows(rows: Sequence[Model]) -> None:
    """``bulk_create(rows)`` for new rows of one model: one INSERT, built once per model, row
    count and database; each value prepared by its field as ``bulk_create`` prepares it. The
    database's answers come back as with ``save``: a key it assigns, and on PostgreSQL the
    columns it fills itself (``db_default``); the rows are marked saved. ``bulk_create``
    itself runs where the statement cannot be built ahead (no RETURNING, generated columns,
    an expression as a value, a value given for a database default)."""
    if not rows:
        return
    insert = _insert_prepared(rows)
    if insert is None:
        model = type(rows[0])
        model._default_manager.using(router.db_for_write(model)).bulk_create(rows)
        return
    alias, built, params = insert
    with connections[alias].cursor() as cursor:
        cursor.execute(built.sql, params)
        answers = cursor.fetchall() if built.returning else [()] * len(rows)
    _inserted(rows, answers, built, alias)


def _insert_prepared(rows: Sequence[Model]) -> tuple[str, _Insert, list] | None:
    """(database alias, INSERT, its parameters) of ``insert_rows``; None: ``bulk_create``."""
    model = type(rows[0])
    alias = router.db_for_write(model)
    key = (model, len(rows), alias)
    built = _INSERTS.get(key, _UNSEEN)
    if built is _UNSEEN:
        built = _INSERTS[key] = _insert_statement(model, len(rows), alias)
    if built is None or any(
        type(row) is not model or (row.pk is None) != built.database_assigns_pk for row in rows
    ):
        return None
    connection = connections[alias]
    params = []
    for row in rows:
        for field in built.targets:
            value = field.pre_save(row, True)
            if field in built.defaults:
                if not isinstance(value, DatabaseDefault):  # a value given: not DEFAULT
                    return None
                continue
            if hasattr(value, "resolve_expression"):
                return None
            params.append(field.get_db_prep_save(value, connection))
    return alias, built, params


def _inserted(rows: Sequence[Model], answers: Sequence[Sequence[Any]], built: _Insert, alias: str):
    """Set the database's answers on the inserted rows and mark them saved, as ``save``."""
    for row, answer in zip(rows, answers, strict=True):
        for field, value in zip(built.returning, answer, strict=True):
            setattr(row, field.attname, value)
        row._state.adding = False
        row._state.db = alias


def _insert_statement(model: type[Model], count: int, alias: str) -> _Insert | None:
    connection = connections[alias]
    meta = model._meta
    database_assigns_pk = isinstance(meta.pk, AutoField | BigAutoField)
    if database_assigns_pk and not connection.features.can_return_rows_from_bulk_insert:
        return None
    targets = tuple(
        field for field in meta.concrete_fields if not (field.primary_key and database_assigns_pk)
    )
    defaults = frozenset(field for field in targets if field.db_default is not NOT_PROVIDED)
    if any(
        getattr(field, "generated", False) or hasattr(field, "get_placeholder") for field in targets
    ):
        return None
    returning = tuple(field for field in targets if field in defaults)
    if database_assigns_pk:
        returning = (meta.pk, *returning)
    if defaults and (
        connection.vendor != "postgresql"  # elsewhere a default's answer needs converting
        or any(hasattr(field, "from_db_value") for field in defaults)
    ):
        return None
    quote = connection.ops.quote_name
    row = f"({', '.join('DEFAULT' if field in defaults else '%s' for field in targets)})"
    # Identifiers come from the model's metadata; every value is a parameter.
    sql = (
        f"INSERT INTO {quote(meta.db_table)} ({', '.join(quote(_column(f)) for f in targets)})"  # noqa: S608
        f" VALUES {', '.join([row] * count)}"
    )
    if returning:
        sql += f" RETURNING {', '.join(quote(_column(field)) for field in returning)}"
    return _Insert(
        sql=sql,
        targets=targets,
        defaults=defaults,
        returning=returning,
        database_assigns_pk=database_assigns_pk,
    )
