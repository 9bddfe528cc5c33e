"""The plan of a reversal (wallet/services/corrections.py): the exact negation of a
transaction, entry by entry (the same accounts, components and players, so no new rate)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from wallet.ledger.lines import Line


class EntryToUndo(Protocol):
    """An entry of the transaction being reversed (``wallet.models.LedgerEntry``)."""

    @property
    def account_id(self) -> int: ...

    @property
    def amount(self) -> int: ...

    @property
    def component(self) -> str: ...

    @property
    def player_id(self) -> Any: ...


@dataclass(frozen=True)
class ReversalPlan:
    """A reversal's lines, on the account ids of the entries it negates, and what it takes
    back from each account (account id -> the sum of its original entries: > 0 is money
    the reversal takes out of the account, which must hold it)."""

    lines: list[Line[int]]
    takes: dict[int, int]


def reversal_plan(entries: Sequence[EntryToUndo]) -> ReversalPlan:
    """Every entry of ``entries`` negated, in their order."""
    takes: dict[int, int] = defaultdict(int)
    for entry in entries:
        takes[entry.account_id] += entry.amount
    return ReversalPlan(
        lines=[
            Line(entry.account_id, -entry.amount, entry.component, entry.player_id)
            for entry in entries
        ],
        takes=dict(takes),
    )
