"""Finding, creating and locking the accounts of a posting (docs/wallet.md "Ledger":
locks). Every posting locks all its accounts at once, in primary-key order, through
wallet/locks.py: postings that share accounts queue in one order and never deadlock."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.db.models import Q

from wallet.ledger.keys import AccountKey, AccountKind
from wallet.locks import lock_accounts, lock_accounts_if_all_exist
from wallet.models import Account
from wallet.problems import EscrowOperatorMismatchProblem

# The one global order in which missing accounts are created (no lock is held then):
# house accounts, then escrows, then wallets and tickets.
_CREATION_ORDER: dict[str, int] = {
    AccountKind.HOUSE_FEE: 0,
    AccountKind.HOUSE_FX: 0,
    AccountKind.OUTSIDE: 0,
    AccountKind.OPERATOR_WALLET: 0,
    AccountKind.NETWORK_POSITION: 0,
    AccountKind.PROMOTION: 0,
    AccountKind.ESCROW: 1,
    AccountKind.PLAYER: 2,
    AccountKind.TICKET: 2,
}


def account_identity(account: Account) -> tuple[Any, ...]:
    """The identity of an account row, as its ``AccountKey`` would say it."""
    return AccountKey(
        kind=account.kind,
        currency=account.currency,
        operator_id=account.operator_id,
        player_id=account.player_id,
        game_ref=account.game_ref,
        shard=account.shard,
    ).identity


def _wanted(keys: Sequence[AccountKey]) -> Q:
    wanted = Q()
    for key in keys:
        wanted |= Q(**key.lookup())
    return wanted


def accounts_get_or_create(*keys: AccountKey) -> list[Account]:
    """The accounts for ``keys`` (in that order): found with one query, the missing ones
    created (no lock is held yet; creation follows one global order: house accounts, then
    escrows, then wallets). Lock them afterwards with ``wallet.locks.lock_accounts``."""
    found = {
        account_identity(account): account for account in Account.objects.filter(_wanted(keys))
    }
    missing = {key.identity: key for key in keys if key.identity not in found}
    for key in sorted(missing.values(), key=lambda k: (_CREATION_ORDER[k.kind], str(k.identity))):
        found[key.identity], _ = Account.objects.get_or_create(
            **key.lookup(), defaults={"operator_id": key.operator_id}
        )
    return in_key_order(keys, found)


def in_key_order(
    keys: Sequence[AccountKey], found: Mapping[tuple[Any, ...], Account]
) -> list[Account]:
    """The accounts of ``keys`` in the keys' order (``found``: identity -> account); an
    escrow of another operator than its key says is ``escrow-operator-mismatch``."""
    accounts = [found[key.identity] for key in keys]
    for key, account in zip(keys, accounts, strict=True):
        if key.kind == AccountKind.ESCROW and account.operator_id != key.operator_id:
            raise EscrowOperatorMismatchProblem(
                f"the escrow of {key.game_ref} belongs to another operator's game"
            )
    return accounts


def resolve_and_lock(
    keys: Sequence[AccountKey], accounts: Iterable[Account]
) -> tuple[list[Account], dict[int, Account]]:
    """The accounts of ``keys`` and ``accounts``, locked in primary-key order: the accounts
    of ``keys`` in their order, and every locked row by primary key. Usually all exist: ONE
    statement finds and locks them. Else the missing ones are created first (holding no
    lock) and all are locked then (``accounts_get_or_create``)."""
    ids = [account.pk for account in accounts]
    if keys:
        rows = lock_accounts_if_all_exist(lookups=[key.lookup() for key in keys], ids=ids)
        if rows:
            locked = {account.pk: account for account in rows}
            found = {account_identity(account): account for account in rows}
            return in_key_order(keys, found), locked
    resolved = accounts_get_or_create(*keys) if keys else []
    return resolved, lock_accounts([*resolved, *accounts])
