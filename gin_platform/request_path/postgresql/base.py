"""Django's PostgreSQL backend (psycopg 3), with ``timestamptz`` values parsed in C and
JSON values written in C.

Django registers its own ``timestamptz`` loader on every connection, so that each value
comes back in the time zone Django expects: a subclass of psycopg's pure-Python loader (the
C loader of psycopg-binary cannot be subclassed). Every timestamp a statement returns was
therefore parsed by a regular expression and a dozen ``int()`` calls in Python, and a move
reads a dozen of them (the seats, the match, the players, the hands): a fortieth of a
move's Python CPU (docs/benchmarks.md).

This backend's loader reads PostgreSQL's ISO output with ``datetime.fromisoformat`` (C)
and gives the same instant in the same time zone. Whatever it does not recognise (a BC
date, ``infinity``, a DateStyle other than ISO, no time zone) goes to Django's loader, so
every value loads as it did, or fails as it did.

A ``JSONField`` without an encoder of its own (a hand's state, an event's payload: every move
writes both) is written by orjson instead of the standard library's ``json.dumps``, three
times faster; PostgreSQL stores the same ``jsonb`` whatever the spelling. What orjson will
not write (an integer past 64 bits) is written by ``json.dumps`` as before; a float NaN
or infinity, which PostgreSQL's jsonb refuses, is stored as null (no such field holds one).
A field with an encoder keeps Django's way. Everything else is Django's backend:
``settings.py`` names this one for a ``postgres://`` DATABASE_URL.
"""

from __future__ import annotations

import json
from datetime import datetime
from functools import lru_cache
from typing import Any

import orjson
from django.db.backends.postgresql import base as django_postgresql
from django.db.backends.postgresql import operations as django_operations
from django.db.backends.postgresql.psycopg_any import Jsonb
from psycopg.abc import Loader
from psycopg.adapt import AdaptersMap
from psycopg.pq import Format

TIMESTAMPTZ_OID = django_postgresql.TIMESTAMPTZ_OID


def jsonb_text(value: Any) -> bytes | str:
    """A JSON field's value as ``json.dumps`` writes it, for PostgreSQL to store as jsonb."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
    except orjson.JSONEncodeError:  # what orjson will not write: as before, or the same error
        return json.dumps(value)


class DatabaseOperations(django_operations.DatabaseOperations):
    def adapt_json_value(self, value: Any, encoder: Any) -> Any:
        if encoder is None:
            return Jsonb(value, dumps=jsonb_text)
        return super().adapt_json_value(value, encoder)


class DatabaseWrapper(django_postgresql.DatabaseWrapper):
    ops_class = DatabaseOperations

    def get_connection_params(self) -> dict[str, Any]:
        params = super().get_connection_params()
        params["context"] = iso_timestamps_adapters(params["context"])
        return params


@lru_cache
def iso_timestamps_adapters(django_adapters: AdaptersMap) -> AdaptersMap:
    """Django's adapters for its connections (one map per time zone setting, cached by
    Django), with its ``timestamptz`` loader read by ``iso_timestamptz_loader``."""
    adapters = AdaptersMap(django_adapters)
    django_loader = django_adapters.get_loader(TIMESTAMPTZ_OID, Format.TEXT)
    assert django_loader is not None  # Django's map always has one
    adapters.register_loader(TIMESTAMPTZ_OID, iso_timestamptz_loader(django_loader))
    return adapters


def iso_timestamptz_loader(django_loader: type[Loader]) -> type[Loader]:
    """Django's loader class (its ``timezone``, None when USE_TZ is off, and its fallback),
    parsing ISO output in C first. A subclass, so Django's check of each new cursor's loader
    (``create_cursor``: is its ``timezone`` the connection's?) finds it unchanged."""

    class IsoTimestamptzLoader(django_loader):  # type: ignore[valid-type,misc]  # a class made at run time
        def load(self, data: Any) -> Any:
            zone = self.timezone
            if zone is not None:  # USE_TZ: an aware datetime in Django's time zone
                try:
                    value = datetime.fromisoformat(str(data, "ascii"))
                except ValueError:
                    value = None
                if value is not None and value.tzinfo is not None:
                    return value if value.tzinfo is zone else value.astimezone(zone)
            return super().load(data)

    IsoTimestamptzLoader.__qualname__ = IsoTimestamptzLoader.__name__
    return IsoTimestamptzLoader
