"""PostgreSQL plans in tests: the generic plan a prepared statement settles on, and the
statement a call runs (docs/deploy.md "Prepared statements and worker connections").

A statement psycopg prepares (its 5th run on a connection) may be planned once for any
parameter values; such a plan can use a partial index only when the statement's text
implies the index's predicate. These helpers show that plan for what a service or selector
really runs, so a test can say which indexes it reads."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.db import connection, models, transaction
from psycopg import sql


def generic_plan(statement: str, values: list) -> dict:
    """EXPLAIN of ``statement`` (parameters $1..$n) as a prepared statement's generic plan,
    run with ``values``."""
    raw = connection.connection
    with transaction.atomic(), connection.cursor() as cursor:  # SET LOCAL needs a transaction
        cursor.execute("SET LOCAL plan_cache_mode = force_generic_plan")
        # The simple query protocol: in the extended one $1 would be PREPARE's own parameter.
        raw.pgconn.exec_(f"PREPARE plan_probe AS {statement}".encode())
        try:
            arguments = ", ".join(sql.Literal(value).as_string(raw) for value in values)
            cursor.execute(f"EXPLAIN (FORMAT JSON) EXECUTE plan_probe({arguments})")
            (plan,) = cursor.fetchone()[0]
        finally:
            cursor.execute("DEALLOCATE plan_probe")
    return plan["Plan"]


def run_and_plan(call: Callable[[], Any], *, reading: str = "") -> tuple[Any, dict]:
    """What ``call`` returns, and the generic plan of the first statement it ran (that
    mentions ``reading``, a table's name, when given)."""
    executed = []

    def record(execute, statement, params, many, context):
        executed.append((statement, params))
        return execute(statement, params, many, context)

    with connection.execute_wrapper(record):
        result = call()
    statement, values = next(item for item in executed if reading in item[0])
    for number in range(statement.count("%s")):
        statement = statement.replace("%s", f"${number + 1}", 1)
    return result, generic_plan(statement, list(values or ()))


def nodes_of(plan: dict) -> list[dict]:
    """The plan and every node under it."""
    nodes: list[dict] = [plan]
    for node in nodes:
        nodes.extend(node.get("Plans", ()))
    return nodes


def reads_of(plan: dict, table: str) -> list[dict]:
    """The plan's nodes that read ``table``."""
    return [node for node in nodes_of(plan) if node.get("Relation Name") == table]


def indexes_used(plan: dict) -> set[str]:
    """Every index the plan reads (bitmap index scans name no table)."""
    return {node["Index Name"] for node in nodes_of(plan) if "Index Name" in node}


def sequential_scans(plan: dict, table: str) -> list[dict]:
    """The plan's reads of every row of ``table``."""
    return [node for node in reads_of(plan, table) if node["Node Type"] == "Seq Scan"]


def copies(model: type[models.Model], *, of: int, count: int, changes: Mapping[str, str]):
    """``count`` copies of row ``of`` of ``model``'s table, with ``changes`` (column -> SQL
    expression of ``i``, the copy's number from 1), then fresh statistics for the table."""
    table = model._meta.db_table
    columns = [f.column for f in model._meta.concrete_fields if not f.primary_key]
    chosen = ", ".join(changes.get(column, f"row.{column}") for column in columns)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} ({', '.join(columns)})"
            f" SELECT {chosen} FROM {table} row, generate_series(1, %s) AS i"
            f" WHERE row.{model._meta.pk.column} = %s",
            [count, of],
        )
        cursor.execute(f"ANALYZE {table}")
