"""The one skeleton every posting follows (``posting_make``): resolve the accounts, lock
them in primary-key order, check the reference for a replay, check the service's rules on
the locked rows, post (the steps: wallet/ledger/__init__.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, TypeVar

from django.utils import timezone

from wallet.ledger.accounts import resolve_and_lock
from wallet.ledger.keys import AccountKey
from wallet.ledger.post import Writer
from wallet.ledger.replay import posting_replay
from wallet.ledger.write import ledger_write
from wallet.models import Account, LedgerTransaction


@dataclass(frozen=True)
class Locked:
    """What ``posting_make`` hands to a service's rules: every account of the posting,
    locked (fresh rows by primary key), the accounts of its ``keys`` in the keys' order
    (the same locked rows), the time of the posting (taken after the locks, so postings of
    one account see each other in order) and the writer its ``post`` uses."""

    accounts: dict[int, Account]
    resolved: tuple[Account, ...]
    now: datetime
    reads: Any = None  # what the service's ``reads`` returned, if it has any
    # How ``post`` writes: at once, or into a batch (wallet.ledger.write.LedgerBatch).
    write: Writer = ledger_write

    def by_key(self, keys: Sequence[AccountKey]) -> dict[AccountKey, Account]:
        """The locked row of each of ``keys`` (the keys the posting was made with, in their
        order): what a plan's lines resolve to (``wallet.ledger.lines.lines_on``)."""
        return dict(zip(keys, self.resolved, strict=True))


class Reads(Protocol):
    """What a service's ``reads`` returns: its own facts, and whether a transaction under
    the posting's reference exists (then ``posting_make`` replays it)."""

    @property
    def replayed(self) -> bool: ...


Posted = TypeVar("Posted", bound=LedgerTransaction | None)


def posting_make(
    *,
    reference: str | None,
    same: Mapping[str, Any],
    rules: Callable[[Locked], Posted],
    keys: Sequence[AccountKey] = (),
    accounts: Iterable[Account] = (),
    now: datetime | None = None,
    reads: Callable[[datetime], Reads] | None = None,
) -> Posted | LedgerTransaction:
    """Resolve the accounts of ``keys``, lock them and ``accounts`` all at once in
    primary-key order, return the transaction already posted under ``reference`` (the same
    request; another is ``reference-conflict``), else check the service's ``rules`` on the
    locked rows and post: ``rules`` raises a problem or returns what it posted (``post``).

    Without a ``reference`` there is nothing to replay (a practice top-up without one uses
    its period's reference, built by its rules). ``now`` is the time of the posting if the
    service already used one before locking (a settlement quotes its rates first).

    ``reads`` (with a ``reference``): the service's own reads under the locks, made at the
    posting's time in ONE query that also tells whether the reference was used; only then
    is the replay check run (the round trip a posting saves)."""
    resolved, locked = resolve_and_lock(keys, accounts)
    when = timezone.now() if now is None else now
    found = reads(when) if reads is not None and reference is not None else None
    replay = reference is not None and (found is None or found.replayed)
    if (
        replay
        and reference is not None
        and (existing := posting_replay(reference=reference, same=same)) is not None
    ):
        return existing
    return rules(
        Locked(
            accounts=locked,
            resolved=tuple(locked[account.pk] for account in resolved),
            now=when,
            reads=found,
        )
    )
