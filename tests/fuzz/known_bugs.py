"""Bugs the fuzzer found in apps other engineers are still writing, kept out of the fuzz run
explicitly until they are fixed (docs/api-fuzzing.md repeats this list).

Nothing is excluded silently and no operation is excluded whole: a known bug names the
operations and the *input class* that triggers it; on the database the bug shows on, the
fuzz test does not send those inputs to those operations (every other input still is;
the run's summary counts what was held back), and tests/fuzz/test_known_bugs.py sends one
reproducer per bug as a strict xfail. When the owner fixes a bug its reproducer passes,
the strict xfail fails, and the entry must be deleted here - so the fuzzer covers that
input class again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import connection

INT64 = range(-(2**63), 2**63)


def _values(container: Any) -> list[Any]:
    if not isinstance(container, dict):
        return []
    found: list[Any] = []
    for value in container.values():
        found.extend(value if isinstance(value, list) else [value])
    return found


def nul_in_query(case) -> bool:
    """A query parameter carries a NUL character (PostgreSQL refuses NUL in text)."""
    return any("\x00" in str(value) for value in _values(case.query))


def _beyond_64_bits(values: list[Any]) -> bool:
    for value in values:
        try:
            number = int(str(value))
        except ValueError:
            continue
        if number not in INT64:
            return True
    return False


def int_beyond_64_bits_in_path(case) -> bool:
    """A path parameter is an integer outside the 64-bit range (SQLite raises
    OverflowError on a foreign-key lookup with it)."""
    return _beyond_64_bits(_values(case.path_parameters))


@dataclass(frozen=True)
class KnownBug:
    owner: str  # the app that must fix it
    operations: tuple[str, ...]  # "METHOD /path/template" as in the schema
    triggers: Callable[[Any], bool]  # the input class, on a schemathesis Case
    summary: str
    vendor: str  # the database it fails on ("postgresql", "sqlite"); held back there only
    # One reproducer: (method, path, credential: "operator" | "player" | "staff").
    reproducer: tuple[str, str, str]


KNOWN_BUGS: list[KnownBug] = []


def known_bug_for(case) -> KnownBug | None:
    """The known bug this generated case would trigger on this database, if any."""
    for bug in KNOWN_BUGS:
        if (
            connection.vendor == bug.vendor
            and case.operation.label in bug.operations
            and bug.triggers(case)
        ):
            return bug
    return None
