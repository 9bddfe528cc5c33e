"""The database the migrations build has every constraint and index the models declare.

A migration can drop more than it says: Django's AlterField(db_index=False) on a foreign
key drops every single-column index it finds on the column, a unique constraint's partial
index included. The models are the statement of the invariants, so each one is looked up
in the database itself: PostgreSQL's, the one that holds the money (SQLite's introspection
does not report every primary key)."""

import pytest
from django.apps import apps
from django.db import connection

PROJECT_APPS = (
    "platform",
    "wallet",
    "games",
    "settlement",
    "integrity",
    "protection",
    "tournaments",
    "ratings",
    "matchmaking",
    "leaderboards",
)


def _models():
    for label in PROJECT_APPS:
        yield from apps.get_app_config(label).get_models()


def _database_constraints(table: str) -> dict[str, dict]:
    with connection.cursor() as cursor:
        return connection.introspection.get_constraints(cursor, table)


@pytest.mark.postgres
@pytest.mark.django_db
@pytest.mark.parametrize("model", list(_models()), ids=lambda model: model._meta.label)
def test_every_declared_constraint_and_index_exists(model):
    found = _database_constraints(model._meta.db_table)
    declared = [*model._meta.constraints, *model._meta.indexes]
    missing = [item.name for item in declared if item.name not in found]
    assert not missing, f"{model._meta.db_table} lacks {missing}"
    indexed = {
        tuple(info["columns"][:1]) for info in found.values() if info["index"] or info["unique"]
    }
    for field in model._meta.concrete_fields:
        if field.db_index or field.unique:
            assert (field.column,) in indexed, f"{model._meta.db_table}.{field.column} unindexed"
