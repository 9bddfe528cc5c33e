"""A posting's lines and the sums every posting must make (pure Python: no database).

A plan (wallet/services/plans/) names each account of its lines by its ``AccountKey``;
the service resolves the keys to the locked rows (``Line.on``, ``lines_on``) and posts the
lines (``wallet.ledger.post.post``), which checks them with ``unbalanced_currencies`` and
``unbalanced_books`` before it writes anything.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

A = TypeVar("A")
B = TypeVar("B")
K = TypeVar("K", bound=Hashable)


class BookAccount(Protocol):
    """What the sums need of an account: its currency and whose books it is in (an
    ``Account`` row, or the ``AccountKey`` a plan names it by)."""

    @property
    def currency(self) -> str: ...

    @property
    def operator_id(self) -> Any: ...


Booked = TypeVar("Booked", bound=BookAccount)


@dataclass(frozen=True)
class Line(Generic[A]):
    """One entry of a posting: ``amount`` signed minor units (+ into ``account``, - out of
    it), tagged with what it stands for (``component``) and whose line it is
    (``player_id``). ``account`` is the locked ``Account`` row when posted; a plan names it
    by its ``AccountKey``."""

    account: A
    amount: int
    component: str
    player_id: Any = None

    def on(self, account: B) -> Line[B]:
        """The same line on ``account`` (a plan's key resolved to its locked row)."""
        return Line(account, self.amount, self.component, self.player_id)


def lines_on(lines: Iterable[Line[K]], accounts: Mapping[K, B]) -> list[Line[B]]:
    """A plan's lines on the accounts its keys name (``accounts``: key -> locked row), in
    the plan's order (the order of the entries, and of each account's running balance)."""
    return [line.on(accounts[line.account]) for line in lines]


def transfer_lines(
    *, source: A, target: A, amount: int, component: str, player_id: Any
) -> list[Line[A]]:
    """``amount`` from ``source`` to ``target``: the two lines of a player's transfer (a
    deposit, a withdrawal, a practice grant or top-up, a mirror of the operator's wallet),
    both tagged ``component`` and the player."""
    return [
        Line(source, -amount, component, player_id),
        Line(target, amount, component, player_id),
    ]


def unbalanced_currencies(lines: Iterable[Line[Booked]]) -> dict[str, int]:
    """The currencies whose lines do not sum to zero, with their totals (empty: the lines
    balance in every currency)."""
    totals: dict[str, int] = defaultdict(int)
    for line in lines:
        totals[line.account.currency] += line.amount
    return {code: total for code, total in totals.items() if total}


def unbalanced_books(lines: Iterable[Line[Booked]]) -> dict[tuple[Any, str], int]:
    """The operators' books, (operator id, currency), whose lines do not sum to zero, with
    their totals (empty: each operator's books balance on their own; network play moves
    money between them only through their network positions, docs/network.md)."""
    books: dict[tuple[Any, str], int] = defaultdict(int)
    for line in lines:
        books[(line.account.operator_id, line.account.currency)] += line.amount
    return {key: total for key, total in books.items() if total}
