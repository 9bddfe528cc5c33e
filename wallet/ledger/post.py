"""The only writers of ledger rows and cached balances: ``post`` writes one balanced
transaction on already-locked accounts, ``post_transfer`` a player's two-leg posting.

``post`` in steps: the plan's lines on their locked rows (zero lines dropped), the sums
(zero per currency and within each operator's books), the entries with their running
balances, the overdraft check, then the transaction, its entries, the balance moves and the
audit row written in ONE statement (``wallet.ledger.write``). Any check that fails is a bug
of the service that built the lines (``LedgerInvariantError``), never user input, and
nothing is written. Once the transaction commits, the players whose wallets it moved are
announced (``wallet.signals.player_money_moved``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol

from gin_platform.audit import audit_event
from gin_platform.models import AuditEvent, Operator, Player
from gin_platform.tenancy.principals import Actor
from wallet.ledger.lines import Line, transfer_lines, unbalanced_books, unbalanced_currencies
from wallet.ledger.write import ledger_write
from wallet.models import Account, LedgerEntry, LedgerTransaction
from wallet.signals import money_moved_on_commit


class LedgerInvariantError(RuntimeError):
    """A service built a posting that breaks a ledger invariant: a bug, never user input."""


class Writer(Protocol):
    """How a posting's rows are written: at once (``wallet.ledger.write.ledger_write``) or
    into a batch (``wallet.ledger.write.LedgerBatch``)."""

    def __call__(
        self,
        *,
        txn: LedgerTransaction,
        entries: Sequence[LedgerEntry],
        deltas: Mapping[int, int],
        audit: AuditEvent,
    ) -> None: ...


def _on_locked_rows(
    lines: Iterable[Line[Account]], locked: Mapping[int, Account]
) -> list[Line[Account]]:
    """The non-zero lines, each on its account's locked row (a line on an account that is
    not locked is a bug)."""
    posted = []
    for line in lines:
        if line.amount == 0:
            continue
        account = locked.get(line.account.pk)
        if account is None:
            raise LedgerInvariantError(f"account #{line.account.pk} was not locked")
        posted.append(line.on(account))
    return posted


def _check_balanced(lines: Sequence[Line[Account]], *, kind: str, reference: str) -> None:
    """Zero per currency, then zero within each operator's books (network play moves money
    between operators only through their network positions, docs/network.md)."""
    if unbalanced := unbalanced_currencies(lines):
        raise LedgerInvariantError(f"{kind} {reference} does not sum to zero: {unbalanced}")
    if unbalanced_in_books := unbalanced_books(lines):
        raise LedgerInvariantError(
            f"{kind} {reference} does not sum to zero in each operator's books: "
            f"{unbalanced_in_books}"
        )


def _entries(
    lines: Sequence[Line[Account]], *, now: datetime
) -> tuple[list[LedgerEntry], dict[int, int]]:
    """The entries of ``lines`` (not saved), each with its account's running balance after
    it, and each account's balance after the posting (account id -> balance)."""
    balances: dict[int, int] = {}
    entries = []
    for line in lines:
        account = line.account
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
    return entries, balances


def _check_no_overdraft(
    balances: Mapping[int, int], locked: Mapping[int, Account], *, kind: str, reference: str
) -> None:
    for pk, balance in balances.items():
        if balance < 0 and not locked[pk].may_go_negative:
            raise LedgerInvariantError(f"{kind} {reference} would overdraw {locked[pk]}")


def post(
    *,
    locked: dict[int, Account],
    operator: Operator,
    kind: str,
    reference: str,
    lines: Iterable[Line[Account]],
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
    write: Writer = ledger_write,
) -> LedgerTransaction:
    """Write one balanced transaction of ``lines`` on the ``locked`` accounts (primary key
    -> locked row) and move their cached balances (the rows in ``locked`` too). The
    transaction's headline (``amount``, ``currency``, ``player``, ``game_ref``, ``escrow``,
    ``reverses``), its rate snapshots and metadata are the service's; ``write``: the
    posting's writer (``Locked.write``: a batch's, or ``ledger_write``). Returns the
    transaction, its entries in ``posted_entries``."""
    posted = _on_locked_rows(lines, locked)
    _check_balanced(posted, kind=kind, reference=reference)
    entries, balances = _entries(posted, now=now)
    _check_no_overdraft(balances, locked, kind=kind, reference=reference)
    # A concurrent posting under the same reference on other accounts (the same request
    # would have queued on our locks and been replayed) makes this INSERT fail; the
    # ``reference_guard`` of the service turns that into ``reference-conflict``.
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
    # The players whose wallet (money or practice chips) this moved learn it after the
    # commit (their page reads the wallet again: docs/realtime.md "The player's socket").
    money_moved_on_commit(player_ids=_players_of(posted), kind=kind)
    return txn


def _players_of(lines: Sequence[Line[Account]]) -> list[Any]:
    """The players whose own wallet accounts ``lines`` move, each once."""
    owners = (line.account.player_id for line in lines if line.account.kind == Account.Kind.PLAYER)
    return list(dict.fromkeys(owner for owner in owners if owner is not None))


def post_transfer(
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
    tagged with the transaction's kind and the player (deposits, withdrawals, adjustments,
    practice grants and top-ups, the mirrors of the operator's wallet)."""
    return post(
        locked=locked,
        operator=player.operator,
        kind=kind,
        reference=reference,
        lines=transfer_lines(
            source=source, target=target, amount=amount, component=kind, player_id=player.pk
        ),
        actor=actor,
        now=now,
        amount=amount,
        currency=currency,
        player=player,
        metadata=metadata,
    )
