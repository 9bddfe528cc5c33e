"""The writes of one posting in ONE statement (docs/wallet.md "Speed").

``post`` (wallet.ledger.post) checks a posting, then ``ledger_write`` sends the
transaction row, its entries, the balance moves of the locked accounts and the audit row as
one PostgreSQL statement of data-modifying CTEs: one round trip instead of four. Nothing is
given up: the rows are the ones the ORM would write (each value prepared by its model
field), the CHECKs and the append-only triggers run per row as before, the deferred
zero-sum trigger at commit, and a duplicate reference still raises ``IntegrityError`` (the
whole statement fails, nothing of it is written).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connection, connections, models
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import BigIntegerField, Case, F, Field, Value, When

from gin_platform.models import AuditEvent
from wallet.models import Account, LedgerEntry, LedgerTransaction

# The columns a CTE fills from the inserted transaction row instead of a parameter.
_TXN_ID = "(SELECT id FROM txn)"
_ENTRY_COMPUTED = {"transaction": _TXN_ID}
_AUDIT_COMPUTED = {"object_id": f"{_TXN_ID}::text"}


def _columns(
    obj: models.Model, *, computed: Mapping[str, str], db: BaseDatabaseWrapper
) -> tuple[list[str], list[str], list[Any]]:
    """The columns of ``obj``'s row, their SQL (a placeholder, or ``computed[field]``) and
    the parameters, each value prepared by its field as ``Model.save`` would."""
    key = (type(obj), tuple(computed.items()))
    layout = _LAYOUTS.get(key)
    if layout is None:
        layout = _LAYOUTS[key] = _layout(type(obj), computed=computed, db=db)
    names, values, fields = layout
    params = [field.get_db_prep_save(field.pre_save(obj, add=True), db) for field in fields]
    return names, values, params


# (model, computed columns) -> the row's column names, their SQL and the fields whose values
# are parameters: worked out once per process, not once per row.
_LAYOUTS: dict[
    tuple[type[models.Model], tuple[tuple[str, str], ...]],
    tuple[list[str], list[str], list[Field[Any, Any]]],
] = {}


def _column(field: Field[Any, Any] | None) -> str:
    """The column of a concrete field (every field of a row written here has one)."""
    if field is None or field.column is None:  # pragma: no cover - a concrete field has one
        raise TypeError(f"{field!r} has no column")
    return field.column


def _layout(
    model: type[models.Model], *, computed: Mapping[str, str], db: BaseDatabaseWrapper
) -> tuple[list[str], list[str], list[Field[Any, Any]]]:
    names: list[str] = []
    values: list[str] = []
    fields: list[Field[Any, Any]] = []
    for field in model._meta.concrete_fields:
        if field.primary_key and field.get_default() is None:  # the database assigns it
            continue
        names.append(db.ops.quote_name(_column(field)))
        if field.name in computed:
            values.append(computed[field.name])
            continue
        values.append("%s")
        fields.append(field)
    return names, values, fields


def _insert_sql(
    objs: Sequence[models.Model],
    *,
    computed: Mapping[str, str],
    db: BaseDatabaseWrapper,
    params: list[Any],
    with_key: bool = False,
) -> str:
    """``INSERT INTO <table> (...) VALUES (...), ...`` of ``objs`` (new rows of one model),
    their parameters appended to ``params``; ``with_key``: their primary keys, set already,
    are written too. Identifiers come from the models' metadata and every value is a
    parameter: the SQL text holds no input (hence the S608 exemptions)."""
    model = type(objs[0])
    rows = []
    for obj in objs:
        names, values, row = _columns(obj, computed=computed, db=db)
        if with_key:
            names = [db.ops.quote_name(_column(model._meta.pk)), *names]
            values, row = ["%s", *values], [obj.pk, *row]
        rows.append(f"({', '.join(values)})")
        params.extend(row)
    return (
        f"INSERT INTO {db.ops.quote_name(model._meta.db_table)}"  # noqa: S608
        f" ({', '.join(names)}) VALUES {', '.join(rows)}"
    )


def _balances_sql(deltas: Mapping[int, int], *, db: BaseDatabaseWrapper, params: list[Any]) -> str:
    """The UPDATE that adds ``deltas`` (account id -> amount) to the accounts' balances."""
    cases = " ".join("WHEN %s THEN %s" for _ in deltas)
    for pk, delta in deltas.items():
        params += [pk, delta]
    params += list(deltas)
    return (
        f"UPDATE {db.ops.quote_name(Account._meta.db_table)}"  # noqa: S608
        f" SET balance = balance + CASE id {cases} END"
        f" WHERE id IN ({', '.join('%s' for _ in deltas)})"
    )


def ledger_write(
    *,
    txn: LedgerTransaction,
    entries: Sequence[LedgerEntry],
    deltas: Mapping[int, int],
    audit: AuditEvent,
) -> None:
    """Insert ``txn``, its ``entries`` and the ``audit`` row (its ``object_id`` is the new
    transaction's id) and add ``deltas`` to the accounts' balances, in one statement. Sets
    ``txn.pk`` and marks the instances saved."""
    if connection.vendor != "postgresql":  # SQLite (tests, development): no DML in CTEs
        _write_each(txn=txn, entries=entries, deltas=deltas, audit=audit)
        return
    db = connections[DEFAULT_DB_ALIAS]  # not the proxy: it is asked for every column
    params: list[Any] = []
    sql = [f"WITH txn AS ({_insert_sql([txn], computed={}, db=db, params=params)} RETURNING id)"]
    if entries:
        entries_sql = _insert_sql(entries, computed=_ENTRY_COMPUTED, db=db, params=params)
        sql.append(f", entries AS ({entries_sql})")
    if deltas:
        sql.append(f", balances AS ({_balances_sql(deltas, db=db, params=params)})")
    sql.append(
        f", audit AS ({_insert_sql([audit], computed=_AUDIT_COMPUTED, db=db, params=params)})"
    )
    sql.append(" SELECT id FROM txn")
    with db.cursor() as cursor:
        cursor.execute("".join(sql), params)
        (txn.pk,) = cursor.fetchone()
    audit.object_id = str(txn.pk)
    for obj in (txn, audit, *entries):
        obj._state.adding = False
        obj._state.db = db.alias


def _write_each(
    *,
    txn: LedgerTransaction,
    entries: Sequence[LedgerEntry],
    deltas: Mapping[int, int],
    audit: AuditEvent,
) -> None:
    """The same rows written one statement each (databases other than PostgreSQL)."""
    txn.save(force_insert=True)  # type: ignore[no-untyped-call]  # AppendOnlyModel.save: untyped
    for entry in entries:
        entry.transaction = txn
    LedgerEntry.objects.bulk_create(entries)
    if deltas:
        Account.objects.filter(pk__in=list(deltas)).update(
            balance=F("balance")
            + Case(
                *[When(pk=pk, then=Value(delta)) for pk, delta in deltas.items()],
                output_field=BigIntegerField(),
            )
        )
    audit.object_id = str(txn.pk)
    audit.save(force_insert=True)


class LedgerBatch:
    """A writer with ``ledger_write``'s signature for the postings of a batch (several
    games settled in one transaction, docs/settlement.md "Batches"): on PostgreSQL each
    transaction gets its key from the table's sequence at once (``count`` of them taken in
    ONE statement up front), so its entries, its audit row and the caller's own rows can
    refer to it, and ``flush`` writes every posting of the batch in ONE statement. The
    rows, the CHECKs, the triggers and the deferred zero-sum check are those of
    ``ledger_write``. Elsewhere each posting is written at once by ``ledger_write``."""

    def __init__(self, *, count: int) -> None:
        self._pending: list[tuple[LedgerTransaction, Sequence[LedgerEntry], AuditEvent]] = []
        self._deltas: Counter[int] = Counter()
        self._keys: list[int] = []
        if connection.vendor == "postgresql" and count:
            table = LedgerTransaction._meta.db_table
            column = LedgerTransaction._meta.pk.column
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
                    [table, column, count],
                )
                self._keys = [key for (key,) in cursor.fetchall()]
            self._keys.reverse()  # taken from the end: in the order the sequence gave them

    def __call__(
        self,
        *,
        txn: LedgerTransaction,
        entries: Sequence[LedgerEntry],
        deltas: Mapping[int, int],
        audit: AuditEvent,
    ) -> None:
        if connection.vendor != "postgresql":
            ledger_write(txn=txn, entries=entries, deltas=deltas, audit=audit)
            return
        if not self._keys:
            raise RuntimeError("a batch posting beyond the keys taken for it")
        txn.pk = self._keys.pop()
        audit.object_id = str(txn.pk)
        for entry in entries:
            entry.transaction = txn
        self._pending.append((txn, entries, audit))
        self._deltas.update(deltas)

    def flush(self) -> None:
        """Write the batch's postings (PostgreSQL): the transactions, their entries, the
        balance moves summed per account and the audit rows, one statement."""
        if not self._pending:
            return
        db = connections[DEFAULT_DB_ALIAS]
        params: list[Any] = []
        txns = [txn for txn, _, _ in self._pending]
        sql = [f"txns AS ({_insert_sql(txns, computed={}, db=db, params=params, with_key=True)})"]
        entries = [entry for _, txn_entries, _ in self._pending for entry in txn_entries]
        if entries:
            sql.append(f"entries AS ({_insert_sql(entries, computed={}, db=db, params=params)})")
        moved = {pk: delta for pk, delta in sorted(self._deltas.items()) if delta}
        if moved:
            sql.append(f"balances AS ({_balances_sql(moved, db=db, params=params)})")
        audits = [audit for _, _, audit in self._pending]
        sql.append(f"audit AS ({_insert_sql(audits, computed={}, db=db, params=params)})")
        with db.cursor() as cursor:
            cursor.execute(f"WITH {', '.join(sql)} SELECT 1", params)
        for txn, txn_entries, audit in self._pending:
            for obj in (txn, audit, *txn_entries):
                obj._state.adding = False
                obj._state.db = db.alias
        self._pending.clear()
        self._deltas.clear()
