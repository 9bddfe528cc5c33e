"""The posting core of the wallet: validation, accounts, the reference replay check, and the
one skeleton every posting follows.

How a posting is made (``posting_make``):
1. the service validates the request (each bad input is its own problem type,
   wallet.problems);
2. every account it touches is resolved and all are locked at once in primary-key order:
   when all exist, ONE statement finds and locks them
   (``wallet.locks.lock_accounts_if_all_exist``); else the missing ones are created first,
   holding no lock, in one global order (house accounts, escrows, wallets: ``_accounts``),
   then all are locked (``wallet.locks.lock_accounts``);
3. a reference seen before returns the first transaction if it was the same request, and
   is ``reference-conflict`` otherwise: every posting is idempotent by its unique
   reference, and checked under the locks, so a concurrent twin has either committed
   (and is returned) or is queued behind us (refunds, settlements and reversals also check
   before locking, with ``posting_replay``, to skip work on a replay). A service with
   ``reads`` asks whether the reference exists in the same query as its own reads
   (wallet.posting_selectors), and the full check runs only if it does;
4. the service's rules are checked against the locked balances (status, self-exclusion,
   caps, limits, funds, escrow state);
5. ``_post`` (or ``_post_transfer`` for a player's two-leg posting) checks the entries sum
   to zero per currency and per operator's books, then writes the transaction, its
   entries, the balance moves of the locked accounts and the audit row in ONE statement
   (``wallet.ledger_write``; the database's CHECKs and deferred zero-sum trigger still
   check every row).
A problem raised at any step leaves nothing posted: each service is one transaction (a
savepoint inside the caller's), and ``_reference_guard`` turns a reference lost to a
concurrent posting on other accounts into ``reference-conflict``.
"""

from __future__ import annotations

import functools
import re
import zlib
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, TypeVar

from django.conf import settings
from django.db import IntegrityError
from django.db.models import Q
from django.utils import timezone

from gin_platform.audit import audit_event
from gin_platform.models import Operator, Player
from gin_platform.money import money_dict
from gin_platform.tenancy.principals import Actor
from wallet.ledger_write import ledger_write
from wallet.locks import lock_accounts, lock_accounts_if_all_exist
from wallet.models import (
    GAME_REF_LENGTH,
    REFERENCE_LENGTH,
    Account,
    LedgerEntry,
    LedgerTransaction,
)
from wallet.problems import (
    AmountInvalidProblem,
    AmountNotPositiveProblem,
    EscrowOperatorMismatchProblem,
    GameRefInvalidProblem,
    InsufficientFundsProblem,
    PlayerInactiveProblem,
    ReferenceConflictProblem,
    ReferenceInvalidProblem,
)

Kind = LedgerTransaction.Kind
AccountKind = Account.Kind

MAX_AMOUNT = 10**15  # minor units; far above any real posting, far below BIGINT overflow


@dataclass(frozen=True)
class _Line:
    account: Account
    amount: int
    component: str
    player_id: Any = None


# --- Validation helpers ------------------------------------------------------------------
def _check_amount(amount: object, *, field: str = "amount") -> int:
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise AmountInvalidProblem(f"{field} must be an integer of minor units", field=field)
    if amount <= 0:
        raise AmountNotPositiveProblem(f"{field} must be greater than zero", field=field)
    if amount > MAX_AMOUNT:
        raise AmountInvalidProblem(f"{field} is larger than any posting allowed", field=field)
    return amount


def _check_reference(reference: object) -> str:
    if not isinstance(reference, str) or not reference.strip():
        raise ReferenceInvalidProblem("reference must be a non-empty string")
    if len(reference) > REFERENCE_LENGTH:
        raise ReferenceInvalidProblem(f"reference is longer than {REFERENCE_LENGTH} characters")
    return reference


def _check_game_ref(game_ref: object) -> str:
    if not isinstance(game_ref, str) or not game_ref.strip() or len(game_ref) > GAME_REF_LENGTH:
        raise GameRefInvalidProblem(
            f"game_ref must be a non-empty string of at most {GAME_REF_LENGTH} characters"
        )
    return game_ref


def _check_metadata(metadata: Mapping[str, Any] | None) -> dict[str, Any]:
    if metadata is None:
        return {}
    if not isinstance(metadata, Mapping):
        raise TypeError("metadata must be a mapping")
    return dict(metadata)


def _check_active(player: Player) -> None:
    if not player.is_active:
        raise PlayerInactiveProblem(f"the player is {player.status}")


def _check_funds(account: Account, needed: int) -> None:
    if account.balance < needed:
        raise InsufficientFundsProblem(
            f"the {account.get_kind_display().lower()} holds "
            f"{money_dict(account.balance, account.currency)['amount']} {account.currency}, "
            f"{money_dict(needed, account.currency)['amount']} is needed",
            available=_money(account.balance, account.currency),
            needed=_money(needed, account.currency),
        )


def _money(amount: int, currency: str) -> dict[str, str]:
    return money_dict(amount, currency)


# --- Idempotency by reference ------------------------------------------------------------
_ANY = object()


def _replay(
    reference: str,
    *,
    kind: str,
    player: Player | object | None = _ANY,
    game_ref: str | object = _ANY,
    amount: int | object = _ANY,
    currency: str | object = _ANY,
    reverses: LedgerTransaction | object = _ANY,
) -> LedgerTransaction | None:
    """The transaction already posted under ``reference`` if it was the same request."""
    existing = LedgerTransaction.objects.filter(reference=reference).first()
    if existing is None:
        return None
    expected = {
        "kind": kind,
        "player_id": player.pk if isinstance(player, Player) else player,
        "game_ref": game_ref,
        "amount": amount,
        "currency": currency,
        "reverses_id": reverses.pk if isinstance(reverses, LedgerTransaction) else reverses,
    }
    differs = [
        name
        for name, value in expected.items()
        if value is not _ANY and getattr(existing, name) != value
    ]
    if differs:
        raise ReferenceConflictProblem(
            f"reference {reference!r} was already used for {existing.kind} "
            f"#{existing.pk} with a different {', '.join(differs)}",
            reference=reference,
            transaction_id=existing.pk,
        )
    return existing


# --- Accounts ----------------------------------------------------------------------------
def house_shards() -> int:
    """How many shards each house account is split into (WALLET_HOUSE_SHARDS, default 8)."""
    return max(1, int(settings.WALLET_HOUSE_SHARDS))


def shard_for(value: object) -> int:
    """The house shard a player's (or a game's) postings use: a stable hash of its id."""
    return zlib.crc32(str(value).encode()) % house_shards()


@dataclass(frozen=True)
class AccountKey:
    """Which account a posting needs (found or created by ``_accounts``)."""

    kind: str
    currency: str
    operator_id: Any
    player_id: Any = None
    game_ref: str | None = None
    shard: int = 0

    @property
    def identity(self) -> tuple:
        if self.kind == AccountKind.PLAYER:
            return (self.kind, self.currency, str(self.player_id))
        if self.kind == AccountKind.ESCROW:
            return (self.kind, self.currency, self.game_ref)
        return (self.kind, self.currency, str(self.operator_id), self.shard)

    def lookup(self) -> dict[str, Any]:
        if self.kind == AccountKind.PLAYER:
            return {"kind": self.kind, "currency": self.currency, "player_id": self.player_id}
        if self.kind == AccountKind.ESCROW:
            return {"kind": self.kind, "currency": self.currency, "game_ref": self.game_ref}
        return {
            "kind": self.kind,
            "currency": self.currency,
            "operator_id": self.operator_id,
            "shard": self.shard,
        }


def _identity(account: Account) -> tuple:
    return AccountKey(
        kind=account.kind,
        currency=account.currency,
        operator_id=account.operator_id,
        player_id=account.player_id,
        game_ref=account.game_ref,
        shard=account.shard,
    ).identity


def _house_key(*, operator_id: Any, kind: str, currency: str, shard: int) -> AccountKey:
    return AccountKey(kind=kind, currency=currency, operator_id=operator_id, shard=shard)


def _player_key(*, player: Player, currency: str) -> AccountKey:
    return AccountKey(
        kind=AccountKind.PLAYER,
        currency=currency,
        operator_id=player.operator_id,
        player_id=player.pk,
    )


def _escrow_key(*, operator_id: Any, game_ref: str, currency: str) -> AccountKey:
    return AccountKey(
        kind=AccountKind.ESCROW, currency=currency, operator_id=operator_id, game_ref=game_ref
    )


_CREATION_ORDER = {
    AccountKind.HOUSE_FEE: 0,
    AccountKind.HOUSE_FX: 0,
    AccountKind.OUTSIDE: 0,
    AccountKind.OPERATOR_WALLET: 0,
    AccountKind.NETWORK_POSITION: 0,
    AccountKind.ESCROW: 1,
    AccountKind.PLAYER: 2,
}


def _wanted(keys: Sequence[AccountKey]) -> Q:
    wanted = Q()
    for key in keys:
        wanted |= Q(**key.lookup())
    return wanted


def _accounts(*keys: AccountKey) -> list[Account]:
    """The accounts for ``keys`` (in that order): found with one query, the missing ones
    created (no lock is held yet; creation follows one global order: house accounts, then
    escrows, then wallets). Lock them afterwards with ``wallet.locks.lock_accounts``."""
    found = {_identity(account): account for account in Account.objects.filter(_wanted(keys))}
    missing = {key.identity: key for key in keys if key.identity not in found}
    for key in sorted(missing.values(), key=lambda k: (_CREATION_ORDER[k.kind], str(k.identity))):
        found[key.identity], _ = Account.objects.get_or_create(
            **key.lookup(), defaults={"operator_id": key.operator_id}
        )
    return _in_key_order(keys, found)


def _in_key_order(keys: Sequence[AccountKey], found: Mapping[tuple, Account]) -> list[Account]:
    accounts = [found[key.identity] for key in keys]
    for key, account in zip(keys, accounts, strict=True):
        if key.kind == AccountKind.ESCROW and account.operator_id != key.operator_id:
            raise EscrowOperatorMismatchProblem(
                f"the escrow of {key.game_ref} belongs to another operator's game"
            )
    return accounts


# --- The posting primitive ---------------------------------------------------------------
class LedgerInvariantError(RuntimeError):
    """A service built a posting that breaks a ledger invariant: a bug, never user input."""


_UNIQUE_POSTING = re.compile(r"wallet_ledgertransaction.?(reference|reverses)", re.IGNORECASE)


def _reference_guard(service: Callable[..., LedgerTransaction]) -> Callable[..., LedgerTransaction]:
    """Outside the service's transaction: a unique-reference race lost to a concurrent
    posting (its transaction, or savepoint, already rolled back) becomes a problem."""

    @functools.wraps(service)
    def guarded(**kwargs: Any) -> LedgerTransaction:
        try:
            return service(**kwargs)
        except IntegrityError as exc:
            if not _UNIQUE_POSTING.search(str(exc)):
                raise
            raise ReferenceConflictProblem(
                "the reference (or the reversal of this transaction) was taken by a "
                "concurrent posting",
                reference=kwargs.get("reference"),
            ) from exc

    return guarded


def _post(
    *,
    locked: dict[int, Account],
    operator: Operator,
    kind: str,
    reference: str,
    lines: Iterable[_Line],
    actor: Actor,
    now: datetime,
    amount: int | None = None,
    currency: str = "",
    player: Player | None = None,
    game_ref: str | None = None,
    escrow: Account | None = None,
    reverses: LedgerTransaction | None = None,
    fx_snapshots: list[dict[str, Any]] | None = None,
    metadata: dict[str, Any] | None = None,
    write: Callable[..., None] = ledger_write,
) -> LedgerTransaction:
    """Write one balanced transaction on already-locked accounts and move their balances.
    ``write``: the posting's writer (``Locked.write``: a batch's, or ``ledger_write``)."""
    lines = [line for line in lines if line.amount != 0]
    totals: dict[str, int] = defaultdict(int)
    balances: dict[int, int] = {}
    entries: list[LedgerEntry] = []
    for line in lines:
        account = locked.get(line.account.pk)
        if account is None:
            raise LedgerInvariantError(f"account #{line.account.pk} was not locked")
        totals[account.currency] += line.amount
        balance = balances.get(account.pk, account.balance) + line.amount
        balances[account.pk] = balance
        entries.append(
            LedgerEntry(
                account=account,
                currency=account.currency,
                amount=line.amount,
                balance_after=balance,
                component=line.component,
                player_id=line.player_id,
                created_at=now,
            )
        )
    unbalanced = {code: total for code, total in totals.items() if total}
    if unbalanced:
        raise LedgerInvariantError(f"{kind} {reference} does not sum to zero: {unbalanced}")
    # Each operator's books balance on their own too (network play moves money between
    # them only through their network positions, docs/network.md).
    books: dict[tuple[Any, str], int] = defaultdict(int)
    for line in lines:
        account = locked[line.account.pk]
        books[(account.operator_id, account.currency)] += line.amount
    unbalanced_books = {key: total for key, total in books.items() if total}
    if unbalanced_books:
        raise LedgerInvariantError(
            f"{kind} {reference} does not sum to zero in each operator's books: {unbalanced_books}"
        )
    for pk, balance in balances.items():
        if balance < 0 and not locked[pk].may_go_negative:
            raise LedgerInvariantError(f"{kind} {reference} would overdraw {locked[pk]}")
    # A concurrent posting under the same reference on other accounts (the same request
    # would have queued on our locks and been replayed) makes this INSERT fail; the
    # ``_reference_guard`` of the service turns that into ``reference-conflict``.
    txn = LedgerTransaction(
        operator=operator,
        kind=kind,
        reference=reference,
        amount=amount,
        currency=currency,
        player=player,
        game_ref=game_ref,
        escrow=escrow,
        reverses=reverses,
        fx=fx_snapshots or [],
        metadata=metadata or {},
        actor_type=actor.type,
        actor_id=actor.id,
        created_at=now,
    )
    for entry in entries:
        entry.transaction = txn
    audit = audit_event(
        actor=actor,
        action=f"ledger.{kind}",
        model=LedgerTransaction,
        operator=operator,
        data={
            "reference": reference,
            "player": str(player.pk) if player else None,
            "game_ref": game_ref,
            "amount": amount,
            "currency": currency,
            "entries": [[e.account_id, e.amount, e.component] for e in entries],
        },
    )
    # The transaction, its entries, the balance moves and the audit row: one round trip
    # (or a share of a batch's one).
    write(
        txn=txn,
        entries=entries,
        deltas={pk: balance - locked[pk].balance for pk, balance in balances.items()},
        audit=audit,
    )
    for pk, balance in balances.items():
        locked[pk].balance = balance
    txn.posted_entries = entries
    return txn


def _post_transfer(
    *,
    locked: dict[int, Account],
    player: Player,
    kind: str,
    reference: str,
    source: Account,
    target: Account,
    amount: int,
    currency: str,
    actor: Actor,
    now: datetime,
    metadata: dict[str, Any] | None = None,
) -> LedgerTransaction:
    """A player's two-leg posting: ``amount`` from ``source`` to ``target``, both lines
    tagged with the transaction's kind and the player (deposits, withdrawals, practice
    grants and top-ups)."""
    return _post(
        locked=locked,
        operator=player.operator,
        kind=kind,
        reference=reference,
        lines=[
            _Line(source, -amount, kind, player.pk),
            _Line(target, amount, kind, player.pk),
        ],
        actor=actor,
        now=now,
        amount=amount,
        currency=currency,
        player=player,
        metadata=metadata,
    )


def _resolve_and_lock(
    keys: Sequence[AccountKey], accounts: Iterable[Account]
) -> tuple[list[Account], dict[int, Account]]:
    """The accounts of ``keys`` and ``accounts``, locked in primary-key order. Usually all
    exist: ONE statement finds and locks them. Else the missing ones are created first
    (holding no lock) and all are locked then, as before (``_accounts``)."""
    ids = [account.pk for account in accounts]
    if keys:
        rows = lock_accounts_if_all_exist(lookups=[key.lookup() for key in keys], ids=ids)
        if rows:
            locked = {account.pk: account for account in rows}
            found = {_identity(account): account for account in rows}
            return _in_key_order(keys, found), locked
    resolved = _accounts(*keys) if keys else []
    return resolved, lock_accounts([*resolved, *accounts])


# --- The skeleton of every posting -------------------------------------------------------
@dataclass(frozen=True)
class Locked:
    """What ``posting_make`` hands to a service's rules: every account of the posting,
    locked (fresh rows by primary key), the accounts of its ``keys`` in the keys' order
    (the same locked rows), the time of the posting (taken after the locks, so postings of
    one account see each other in order) and the writer its ``_post`` uses."""

    accounts: dict[int, Account]
    resolved: tuple[Account, ...]
    now: datetime
    reads: Any = None  # what the service's ``reads`` returned, if it has any
    # How ``_post`` writes: at once, or into a batch (wallet.ledger_write.LedgerBatch).
    write: Callable[..., None] = ledger_write


class Reads(Protocol):
    """What a service's ``reads`` returns: its own facts, and whether a transaction under
    the posting's reference exists (then ``posting_make`` replays it)."""

    replayed: bool


def posting_replay(*, reference: str, same: Mapping[str, Any]) -> LedgerTransaction | None:
    """The transaction already posted under ``reference`` if it was the same request
    (``same``: kind, player, game_ref, amount, currency, reverses), checked before any lock
    by services with work to skip on a replay; ``posting_make`` checks again under the
    locks."""
    return _replay(reference, **same)


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
    locked rows and post: ``rules`` raises a problem or returns what it posted (``_post``).

    Without a ``reference`` there is nothing to replay (a practice top-up without one uses
    its period's reference, built by its rules). ``now`` is the time of the posting if the
    service already used one before locking (a settlement quotes its rates first).

    ``reads`` (with a ``reference``): the service's own reads under the locks, made at the
    posting's time in ONE query that also tells whether the reference was used; only then
    is the replay check run (the round trip a posting saves)."""
    resolved, locked = _resolve_and_lock(keys, accounts)
    when = timezone.now() if now is None else now
    found = reads(when) if reads is not None and reference is not None else None
    replay = reference is not None and (found is None or found.replayed)
    if replay and (existing := _replay(reference, **same)) is not None:
        return existing
    return rules(
        Locked(
            accounts=locked,
            resolved=tuple(locked[account.pk] for account in resolved),
            now=when,
            reads=found,
        )
    )
