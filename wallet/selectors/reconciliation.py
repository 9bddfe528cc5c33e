"""The ledger's reconciliation (``reconcile``): cached balances against entries, zero-sum
transactions overall and within each operator's books, the network positions netting to
zero, entry currencies, non-negative accounts, settled escrows, the seamless mirror. The
network and seamless checks are read in their own concern's module."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Exists, F, OuterRef, QuerySet, Subquery, Sum, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from wallet.models import Account, LedgerEntry, LedgerTransaction
from wallet.selectors.network import network_imbalances, unbalanced_books
from wallet.selectors.seamless import seamless_mismatches

Kind = LedgerTransaction.Kind


# --- Reconciliation --------------------------------------------------------------------
@dataclass(frozen=True)
class AccountDrift:
    account_id: int
    label: str
    cached: int
    entries_sum: int


@dataclass(frozen=True)
class UnbalancedTransaction:
    transaction_id: int
    currency: str
    total: int


@dataclass(frozen=True)
class ReconciliationReport:
    """Result of ``reconcile()``: ``ok`` is True when no check found anything."""

    checked_at: datetime
    accounts_checked: int
    transactions_checked: int
    entries_checked: int
    drifts: list[AccountDrift] = field(default_factory=list)
    unbalanced: list[UnbalancedTransaction] = field(default_factory=list)
    currency_mismatches: list[int] = field(default_factory=list)  # entry ids
    negative_accounts: list[AccountDrift] = field(default_factory=list)
    unsettled_residues: list[AccountDrift] = field(default_factory=list)
    seamless_mismatches: list[str] = field(default_factory=list)
    # Network play: transactions whose entries do not sum to zero within one operator's
    # books, and currencies whose network positions do not net to zero.
    unbalanced_books: list[str] = field(default_factory=list)
    network_imbalances: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not (
            self.unbalanced_books
            or self.network_imbalances
            or self.drifts
            or self.unbalanced
            or self.currency_mismatches
            or self.negative_accounts
            or self.unsettled_residues
            or self.seamless_mismatches
        )

    @property
    def lines(self) -> list[str]:
        out = [
            f"reconciliation at {self.checked_at.isoformat()}: "
            f"{self.accounts_checked} accounts, {self.transactions_checked} transactions, "
            f"{self.entries_checked} entries",
        ]
        for drift in self.drifts:
            out.append(
                f"DRIFT account #{drift.account_id} {drift.label}: cached balance "
                f"{drift.cached}, sum of entries {drift.entries_sum} "
                f"(off by {drift.cached - drift.entries_sum})"
            )
        for bad in self.unbalanced:
            out.append(
                f"UNBALANCED transaction #{bad.transaction_id}: entries in {bad.currency} "
                f"sum to {bad.total}, not 0"
            )
        for entry_id in self.currency_mismatches:
            out.append(f"CURRENCY entry #{entry_id} is not in its account's currency")
        for neg in self.negative_accounts:
            out.append(f"NEGATIVE account #{neg.account_id} {neg.label}: {neg.cached}")
        for residue in self.unsettled_residues:
            out.append(
                f"RESIDUE escrow #{residue.account_id} {residue.label} is settled but holds "
                f"{residue.cached}"
            )
        out.extend(self.seamless_mismatches)
        out.extend(self.unbalanced_books)
        for currency, total in sorted(self.network_imbalances.items()):
            out.append(f"NETWORK positions in {currency} sum to {total}, not 0")
        out.append("OK: the ledger reconciles" if self.ok else "FAILED: the ledger has drifted")
        return out

    def render(self) -> str:
        return "\n".join(self.lines)


def reconcile() -> ReconciliationReport:
    """Check the whole ledger: cached balances equal the sum of their entries; every
    transaction sums to zero per currency, and within each operator's books; the network
    positions net to zero per currency; entries carry their account's currency;
    non-negative accounts are not negative; settled escrows are empty; in seamless mode,
    every acknowledged wallet call is mirrored once in the ledger and nothing else is."""
    entry_sums = (
        LedgerEntry.objects.filter(account=OuterRef("pk"))
        .order_by()
        .values("account")
        .annotate(total=Sum("amount"))
        .values("total")
    )
    drifting = (
        Account.objects.annotate(entries_sum=Coalesce(Subquery(entry_sums), Value(0)))
        .exclude(balance=F("entries_sum"))
        .order_by("pk")
    )
    unbalanced = (
        LedgerEntry.objects.order_by()
        .values("transaction_id", "currency")
        .annotate(total=Sum("amount"))
        .exclude(total=0)
        .order_by("transaction_id", "currency")
    )
    mismatched = LedgerEntry.objects.exclude(currency=F("account__currency")).order_by("pk")
    negative = Account.objects.filter(kind__in=Account.NON_NEGATIVE_KINDS, balance__lt=0).order_by(
        "pk"
    )
    residues = (
        Account.objects.filter(kind=Account.Kind.ESCROW)
        .exclude(balance=0)
        .filter(
            Exists(
                LedgerTransaction.objects.filter(
                    escrow=OuterRef("pk"), kind=Kind.SETTLEMENT, reversal__isnull=True
                )
            )
        )
        .order_by("pk")
    )
    return ReconciliationReport(
        checked_at=timezone.now(),
        accounts_checked=Account.objects.count(),
        transactions_checked=LedgerTransaction.objects.count(),
        entries_checked=LedgerEntry.objects.count(),
        drifts=[AccountDrift(a.pk, str(a), a.balance, int(a.entries_sum)) for a in drifting],
        unbalanced=[
            UnbalancedTransaction(row["transaction_id"], row["currency"], int(row["total"]))
            for row in unbalanced
        ],
        currency_mismatches=list(mismatched.values_list("pk", flat=True)),
        negative_accounts=[AccountDrift(a.pk, str(a), a.balance, a.balance) for a in negative],
        unsettled_residues=[AccountDrift(a.pk, str(a), a.balance, 0) for a in residues],
        seamless_mismatches=seamless_mismatches(),
        unbalanced_books=unbalanced_books(),
        network_imbalances=network_imbalances(),
    )


def escrow_payouts_by_player(
    *, transaction_ids: Collection[int] | QuerySet
) -> dict[tuple[int, str], int]:
    """Per settlement transaction of ``transaction_ids`` (ids, or a subquery of them) and
    player (id as text), what the transaction's escrow lines tagged with that player paid
    out: what settlement checks each statement against (every player, the loser included,
    has lines of their own)."""
    rows = (
        LedgerEntry.objects.filter(
            transaction_id__in=transaction_ids,
            transaction__kind=Kind.SETTLEMENT,
            account__kind=Account.Kind.ESCROW,
            player__isnull=False,
        )
        .values("transaction_id", "player_id")
        .annotate(total=Sum("amount"))
        .order_by()
    )
    return {(row["transaction_id"], str(row["player_id"])): -row["total"] for row in rows}
