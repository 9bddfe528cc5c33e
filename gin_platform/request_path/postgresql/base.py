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
A field with an encoder keeps Django's way.

A transaction's ``BEGIN`` travels with its first statement, in one round trip. psycopg,
asked for a transaction (Django's ``atomic``), sends ``BEGIN`` on its own and waits for the
answer before it sends the first statement: a round trip of its own, and on a web process
each round trip a thread waits on costs it the GIL's hand-over and back (a move over REST
makes six or seven; docs/benchmarks.md). Here psycopg's connection stays in autocommit mode
and this backend sends ``BEGIN`` itself, in a psycopg pipeline with the transaction's first
statement: the two leave together and their answers come back together, an error of either
raised as Django raises it. Django keeps its own view of the transaction (``atomic``,
``on_commit``, savepoints) unchanged; ``COMMIT`` and ``ROLLBACK`` are psycopg's, as before. A
named (server-side) cursor, whose ``DECLARE`` must run inside the transaction, sends the
``BEGIN`` first, on its own.

A transaction's ``COMMIT`` can travel with its last statement in the same way, when the
code that runs it knows it is the last (``DatabaseWrapper.commit_with_next_statement``, asked
for by the move's write): the statement and ``COMMIT`` leave in one pipeline, and Django's
own commit at the end of ``atomic`` then finds psycopg's connection idle and sends nothing.
The ``on_commit`` hooks run there as always. Only the outermost ``atomic`` block can end
so, outside any savepoint; anywhere else the request is ignored and the statement runs
alone. A statement run after such a ``COMMIT`` in the same ``atomic`` block would run
outside any transaction: it is refused (``TransactionManagementError``) instead.

Everything else is Django's backend: ``settings.py`` names this one for a ``postgres://``
DATABASE_URL.
"""

from __future__ import annotations

import json
from datetime import datetime
from functools import cached_property, lru_cache
from typing import Any

import orjson
from django.db.backends.postgresql import base as django_postgresql
from django.db.backends.postgresql import operations as django_operations
from django.db.backends.postgresql.psycopg_any import Jsonb, register_tzloader
from django.db.backends.utils import CursorDebugWrapper, CursorWrapper
from django.db.transaction import TransactionManagementError
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


class BeginAndCommitWithStatements:
    """Django's cursor wrapper, sending the pending ``BEGIN`` of its connection
    (``DatabaseWrapper.begin_pending``) with the statement it runs, and ``COMMIT`` after it
    when that was asked for (``DatabaseWrapper.commit_with_next_statement``)."""

    db: DatabaseWrapper
    cursor: Any

    def _execute(self, sql, params, *ignored_wrapper_args):
        db = self.db
        db.refuse_after_early_commit()
        commit = db.commit_pending
        db.commit_pending = False
        if not (db.begin_pending or commit):
            return super()._execute(sql, params, *ignored_wrapper_args)
        if not (params and db.binds_on_server):
            # Without parameters psycopg sends the text as a simple query, which may hold
            # several statements (a pipeline would refuse them), as may a client-bound one:
            # the BEGIN goes first, on its own, as psycopg would send it, and the COMMIT is
            # left to the end of the transaction.
            db.pending_begin_sent()
            return super()._execute(sql, params, *ignored_wrapper_args)
        begin = db.begin_pending
        db.begin_pending = False
        # In a pipeline the statements leave in one write, their answers are read at its
        # end; an error of any is raised there, wrapped as Django wraps it. After an error
        # the pipeline skips what follows: a failed statement is never committed.
        with db.wrap_database_errors, db.connection.pipeline():
            if begin:
                self.cursor.execute(db.begin_statement(), prepare=False)
            result = super()._execute(sql, params, *ignored_wrapper_args)
            if commit:
                db.connection.execute(b"COMMIT", prepare=False)
        db.committed_early = commit
        return result

    def _executemany(self, sql, param_list, *ignored_wrapper_args):
        self.db.before_statement_alone()
        return super()._executemany(sql, param_list, *ignored_wrapper_args)

    def callproc(self, procname, params=None, kparams=None):
        self.db.before_statement_alone()
        return super().callproc(procname, params, kparams)


class DeferredBeginCursorWrapper(BeginAndCommitWithStatements, CursorWrapper):
    pass


class DeferredBeginCursorDebugWrapper(
    BeginAndCommitWithStatements, django_postgresql.CursorDebugWrapper
):
    pass


class DatabaseWrapper(django_postgresql.DatabaseWrapper):
    ops_class = DatabaseOperations
    # Django has asked for a transaction (autocommit off) and nothing has run in it yet:
    # its BEGIN goes with the first statement (the module's docstring).
    begin_pending = False
    # The next statement is the transaction's last: COMMIT goes with it (the docstring).
    commit_pending = False
    # COMMIT went with the last statement; Django's atomic block has not ended yet.
    committed_early = False

    def get_connection_params(self) -> dict[str, Any]:
        params = super().get_connection_params()
        params["context"] = iso_timestamps_adapters(params["context"])
        return params

    def _set_autocommit(self, autocommit: bool) -> None:
        # psycopg's connection stays in autocommit: it must not send BEGIN by itself. Turned
        # on again, nothing is pending (the transaction ended with COMMIT or ROLLBACK).
        self.begin_pending = not autocommit
        self.commit_pending = self.committed_early = False
        if not self.connection.autocommit:
            with self.wrap_database_errors:
                self.connection.autocommit = True

    @cached_property
    def binds_on_server(self) -> bool:
        """Whether statements with parameters go as one prepared or extended-protocol
        statement each (settings.py's DATABASE_SERVER_SIDE_BINDING)."""
        return self.settings_dict["OPTIONS"].get("server_side_binding") is True

    def commit(self) -> None:
        # After a COMMIT sent with the last statement psycopg's connection is idle, and its
        # commit sends nothing.
        super().commit()
        # Still without autocommit (transaction.set_autocommit(False), commit() by hand):
        # the next statement begins the next transaction, as psycopg would begin it.
        self.begin_pending = not self.autocommit
        self.commit_pending = self.committed_early = False

    def rollback(self) -> None:
        # After a COMMIT sent with the last statement there is nothing left to roll back:
        # what the transaction wrote stays, complete (refuse_after_early_commit keeps it so).
        super().rollback()
        self.begin_pending = not self.autocommit
        self.commit_pending = self.committed_early = False

    def commit_with_next_statement(self) -> bool:
        """Ask for the transaction's COMMIT to go with the next statement, in its round trip:
        the caller's promise that nothing else runs in the transaction after it. Granted
        (True) only inside the outermost ``atomic`` block, outside any savepoint, with
        nothing to roll back, when statements bind on the server (a pipeline needs it);
        otherwise (False) the transaction commits when its block ends, as always."""
        granted = (
            self.binds_on_server
            and self.in_atomic_block
            and len(self.atomic_blocks) == 1
            and not self.savepoint_ids
            and self.commit_on_exit
            and not self.needs_rollback
            and not self.committed_early
        )
        self.commit_pending = granted
        return granted

    def refuse_after_early_commit(self) -> None:
        """A statement after a COMMIT sent with the last one would run outside any
        transaction, and escape the block's rollback: refused."""
        if self.committed_early:
            raise TransactionManagementError(
                "This transaction was committed with what its caller said was its last "
                "statement: nothing else may run in it"
            )

    def begin_statement(self) -> bytes:
        """BEGIN, with the isolation level the connection was configured with, if any."""
        level = self.connection.isolation_level
        if level is None:
            return b"BEGIN"
        return b"BEGIN ISOLATION LEVEL " + level.name.replace("_", " ").encode()

    def before_statement_alone(self) -> None:
        """Before what cannot share its round trip (``executemany``, a procedure, a named
        cursor's ``DECLARE``): refused after an early COMMIT, a COMMIT asked for is left to
        the block's end, and a pending BEGIN goes first, on its own."""
        self.refuse_after_early_commit()
        self.commit_pending = False
        self.pending_begin_sent()

    def pending_begin_sent(self) -> None:
        """Send the pending BEGIN now, on its own (before what cannot share its round trip)."""
        if self.begin_pending:
            self.begin_pending = False
            with self.wrap_database_errors:
                self.connection.execute(self.begin_statement(), prepare=False)

    def make_cursor(self, cursor: Any) -> CursorWrapper:
        return DeferredBeginCursorWrapper(cursor, self)

    def make_debug_cursor(self, cursor: Any) -> CursorDebugWrapper:
        return DeferredBeginCursorDebugWrapper(cursor, self)

    def create_cursor(self, name: str | None = None) -> Any:
        if name is None:
            return super().create_cursor(name)
        # A named cursor's DECLARE belongs to the transaction, and Django makes it holdable
        # only outside one (by psycopg's autocommit, always on here: by Django's own).
        self.before_statement_alone()
        withhold = self.get_autocommit()
        if not self.binds_on_server:
            # As Django does: psycopg binds a named cursor's parameters on the server.
            cursor = django_postgresql.ServerSideCursor(  # type: ignore[call-arg]  # django-stubs omit psycopg's arguments
                self.connection, name=name, scrollable=False, withhold=withhold
            )
        else:
            cursor = self.connection.cursor(name, scrollable=False, withhold=withhold)
        tzloader = self.connection.adapters.get_loader(TIMESTAMPTZ_OID, Format.TEXT)
        if tzloader is None or self.timezone != getattr(tzloader, "timezone", None):
            register_tzloader(self.timezone, cursor)
        return cursor


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
