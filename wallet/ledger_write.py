"""The writes of one posting in ONE statement (docs/wallet.md "Speed").

``_post`` (wallet.services.posting) checks a posting, then ``ledger_write`` sends the
transaction row, its entries, the balance moves of the locked accounts and the audit row as
one PostgreSQL statement of data-modifying CTEs: one round trip instead of four. Nothing is
given up: the rows are the ones the ORM would write (each value prepared by its model
field), the CHECKs and the append-only triggers run per row as before, the deferred
zero-sum trigger at commit, and a duplicate reference still raises ``IntegrityError`` (the
whole statement fails, nothing of it is written).
"""

from __future__ import annotations

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
_LAYOUTS: dict[tuple[type[models.Model], tuple], tuple[list[str], list[str], list[Field]]] = {}


def _layout(
    model: type[models.Model], *, computed: Mapping[str, str], db: BaseDatabaseWrapper
) -> tuple[list[str], list[str], list[Field]]:
    names, values, fields = [], [], []
    for field in model._meta.concrete_fields:
        if field.primary_key and field.get_default() is None:  # the database assigns it
            continue
        names.append(db.ops.quote_name(field.column))
        if field.name in computed:
            values.append(computed[field.name])
            continue
        values.append("%s")
        fields.append(field)
    return names, values, fields


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
    # Identifiers come from the models' metadata and every value is a parameter: the SQL
    # text holds no input (hence the S608 exemptions).
    db = connections[DEFAULT_DB_ALIAS]  # not the proxy: it is asked for every column
    quote = db.ops.quote_name
    txn_table, entry_table, account_table, audit_table = (
        quote(model._meta.db_table)
        for model in (LedgerTransaction, LedgerEntry, Account, AuditEvent)
    )
    names, values, params = _columns(txn, computed={}, db=db)
    sql = [
        f"WITH txn AS (INSERT INTO {txn_table} ({', '.join(names)})"  # noqa: S608
        f" VALUES ({', '.join(values)}) RETURNING id)"
    ]
    if entries:
        rows = []
        for entry in entries:
            names, values, row = _columns(entry, computed=_ENTRY_COMPUTED, db=db)
            rows.append(f"({', '.join(values)})")
            params += row
        sql.append(
            f", entries AS (INSERT INTO {entry_table} ({', '.join(names)})"  # noqa: S608
            f" VALUES {', '.join(rows)})"
        )
    if deltas:
        cases = " ".join("WHEN %s THEN %s" for _ in deltas)
        sql.append(
            f", balances AS (UPDATE {account_table} SET balance = balance + CASE id {cases} END"  # noqa: S608
            f" WHERE id IN ({', '.join('%s' for _ in deltas)}))"
        )
        for pk, delta in deltas.items():
            params += [pk, delta]
        params += list(deltas)
    names, values, row = _columns(audit, computed=_AUDIT_COMPUTED, db=db)
    sql.append(
        f", audit AS (INSERT INTO {audit_table} ({', '.join(names)})"  # noqa: S608
        f" VALUES ({', '.join(values)}))"
    )
    params += row
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
    txn.save(force_insert=True)
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
