"""Row locks of the wallet, always taken in primary-key order (docs/wallet.md).

Every service that changes balances first resolves all the accounts it will touch, then
locks them with ONE call to ``lock_accounts``: ``SELECT ... WHERE id IN (...) ORDER BY id
FOR UPDATE``. PostgreSQL locks the rows in the ORDER BY order, so two postings that share
accounts always queue in the same order and can never deadlock each other. A service never
takes a second set of account locks after the first (that would break the order): the
skeleton of every posting (``posting_make``, wallet/ledger/skeleton.py) makes that one call.

Every ``select_for_update`` of the wallet is in this module. Besides the accounts, a service
locks at most one other row, and then no account: ``player_limit_set`` one of the player's
limit rows (``lock_player_limit``), ``cashier_caps_set`` one caps row (``lock_cashier_caps``),
``operator_wallet_set`` the operator's wallet settings (``lock_operator_wallet``). The
seamless wallet's call log (``lock_wallet_calls``) is locked first, then the mirror posting's
accounts (a rollback and its debit together, in key order). A four-eyes approval
(``lock_approval``) is locked first, then what its action locks (accounts or one caps row).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.db import connection
from django.db.models import Func, IntegerField, Q, Subquery

from wallet.models import (
    Account,
    ApprovalRequest,
    CashierCaps,
    OperatorWallet,
    PlayerLimit,
    WalletCall,
)


def lock_accounts(accounts: Iterable[Account]) -> dict[int, Account]:
    """Lock the accounts (pk order) and return fresh copies keyed by pk."""
    ids = sorted({account.pk for account in accounts})
    locked = list(Account.objects.select_for_update().filter(pk__in=ids).order_by("pk"))
    if len(locked) != len(ids):  # pragma: no cover - accounts are never deleted
        raise RuntimeError("an account to lock does not exist")
    return {account.pk: account for account in locked}


def lock_accounts_if_all_exist(
    *, lookups: Sequence[Mapping[str, Any]], ids: Iterable[int] = ()
) -> list[Account]:
    """Lock, in ONE statement and pk order, the accounts matching ``lookups`` (field ->
    value, one account each) and the accounts ``ids``, if every lookup's account exists;
    else lock nothing and return [] (the caller creates the missing ones, holding no lock,
    then calls ``lock_accounts``).

    The existence test is a subquery of the same statement, so no row is locked unless
    every row is there: an account is never created while this transaction holds a lock
    (creating one can wait on a concurrent creator, who may be waiting on our locks)."""
    wanted = Q()
    for lookup in lookups:
        wanted |= Q(**lookup)
    count = len({tuple(sorted(lookup.items())) for lookup in lookups})
    ids = sorted(set(ids))
    if connection.vendor != "postgresql":
        present = Account.objects.filter(wanted).order_by().annotate(n=Func("pk", function="COUNT"))
        return list(
            Account.objects.select_for_update()
            .filter(wanted | Q(pk__in=ids))
            .alias(present=Subquery(present.values("n"), output_field=IntegerField()))
            .filter(present=count)
            .order_by("pk")
        )
    # PostgreSQL: the same statement written out (the ORM's compiling it costs more CPU
    # than the round trip it saves). LockRows runs above the sort: rows lock in pk order.
    # The kind is written into the SQL, not bound: the accounts' unique indexes are partial
    # (WHERE kind ...), and a prepared statement's generic plan can use such an index only
    # if the predicate is in its text; with ``kind = $1`` it scanned every account of the
    # operator (61 ms per posting at 100,000 accounts, 0.15 ms with the literal).
    conditions, params = [], []
    for lookup in lookups:
        terms = []
        for name, value in lookup.items():
            if name == "kind":
                terms.append(f"kind = '{Account.Kind(value).value}'")  # a known kind only
            elif value is None:  # an escrow's ``player_id IS NULL``: written, like the kind
                terms.append(f"{_COLUMNS[name]} IS NULL")
            else:
                terms.append(f"{_COLUMNS[name]} = %s")
                params.append(value)
        conditions.append(" AND ".join(terms))
    match = " OR ".join(f"({condition})" for condition in conditions)
    # The ids one parameter each, not ``id = ANY(%s)``: the generic plan guesses an array
    # parameter at ten rows, so PostgreSQL found it dearer than the custom plans and planned
    # every posting again (0.3 ms, five times the lock itself). With every row's estimate
    # the same in both, the generic plan is kept after the fifth execution.
    by_id = f" OR id IN ({', '.join(['%s'] * len(ids))})" if ids else ""
    sql = (
        f"SELECT {_SELECT} FROM wallet_account WHERE ({match}{by_id})"  # noqa: S608
        f" AND (SELECT count(*) FROM wallet_account WHERE {match}) = %s ORDER BY id FOR UPDATE"
    )
    # Rows to instances as the ORM would (no field of Account converts on PostgreSQL);
    # ``raw()`` worked out its column-to-field mapping again on every posting.
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, *ids, *params, count])
        rows = cursor.fetchall()
    return [Account.from_db(connection.alias, _ATTNAMES, row) for row in rows]


# Column names of the lookups above (by field name or attribute name: ``operator`` and
# ``operator_id`` -> ``operator_id``), and the selected columns: every concrete field (a
# concrete field is one with a column: Django's own definition).
_FIELD_COLUMNS = [
    (field, column)
    for field in Account._meta.concrete_fields
    if (column := field.column) is not None
]
_COLUMNS = {
    name: column for field, column in _FIELD_COLUMNS for name in (field.name, field.attname)
}
_SELECT = ", ".join(column for _, column in _FIELD_COLUMNS)
_ATTNAMES = tuple(field.attname for field, _ in _FIELD_COLUMNS)


def lock_player_limit(*, player_id, kind: str, period: str) -> PlayerLimit | None:
    """Lock one of a player's limit rows, if it exists."""
    return (
        PlayerLimit.objects.select_for_update()
        .filter(player_id=player_id, kind=kind, period=period)
        .first()
    )


def lock_cashier_caps(*, operator_id, currency: str) -> CashierCaps:
    """Lock an operator's caps row for one currency (it must exist)."""
    return CashierCaps.objects.select_for_update().get(operator_id=operator_id, currency=currency)


def lock_operator_wallet(*, operator_id) -> OperatorWallet:
    """Lock an operator's wallet settings row (created with the defaults if missing)."""
    OperatorWallet.objects.get_or_create(operator_id=operator_id)
    return OperatorWallet.objects.select_for_update().get(operator_id=operator_id)


def lock_wallet_calls(*ids) -> dict:
    """Lock seamless wallet calls (primary-key order) and return them keyed by id."""
    rows = WalletCall.objects.select_for_update(of=("self",)).filter(pk__in=ids).order_by("pk")
    return {row.pk: row for row in rows.select_related("player", "operator")}


def lock_approval(*, approval_id) -> ApprovalRequest:
    """Lock a four-eyes approval request (wallet.services.approvals): taken before any
    account lock, so two approvers of one request queue here and it executes once."""
    return ApprovalRequest.objects.select_for_update(of=("self",)).get(pk=approval_id)
