"""The reads of a posting under its locks, each folded into one statement (docs/wallet.md
"Speed"): a deposit's replay, wallet-mode, breaks (self-exclusion, time-out), caps and limits
checks; a refund's or settlement's escrow, replay, settled, participants and wallet-mode
checks. Read by the wallet's services only (the entries a posting just wrote:
``transactions.transaction_entries``).
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, TypedDict

from django.db import connection
from django.db.models import Exists, OuterRef, Subquery

from gin_platform.models import Operator, Player
from gin_platform.request_path.precompiled import PrecompiledQuery
from wallet.models import (
    Account,
    CashierCaps,
    LedgerTransaction,
    LimitKind,
    OperatorWallet,
    PlayerLimit,
    SelfExclusion,
)
from wallet.selectors.balances import ENTRY_KINDS
from wallet.selectors.limits import breaks_in_force

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

Kind = LedgerTransaction.Kind
BreakKind = SelfExclusion.Kind


class EscrowReplayAnnotations(TypedDict):
    """What ``escrow_with_replay`` adds to the escrow it reads."""

    replayed: bool


def escrow_with_replay(
    *, game_ref: str, currency: str, reference: str
) -> WithAnnotations[Account, EscrowReplayAnnotations] | None:
    """The game's escrow with its operator, ``replayed`` set (a transaction under
    ``reference`` exists): the first read of a refund or settlement, one query."""
    return next(iter(_ESCROW_WITH_REPLAY.fetch(game_ref, currency, reference)), None)


# Compiled once per process thread (gin_platform/request_path/precompiled.py): every refund and
# settlement.
_ESCROW_WITH_REPLAY = PrecompiledQuery(
    lambda game_ref, currency, reference: (
        Account.objects.filter(
            kind=Account.Kind.ESCROW, game_ref=game_ref, currency=currency, player__isnull=True
        )
        .select_related("operator")
        .annotate(replayed=Exists(LedgerTransaction.objects.filter(reference=reference)))
        .order_by("pk")[:1]
    )
)


@dataclass(frozen=True)
class EscrowPostingReads:
    """What a refund or settlement reads under its locks, in one query: whether its
    reference was used meanwhile, whether the escrow is settled (by a settlement not
    reversed), who ever bought into it (``participants``, when asked: a settlement's payees
    must be among them), and which of the given operators keep their players' balances
    (``seamless_operator_ids``: the wallet mode of each payee's operator)."""

    replayed: bool
    settled: bool
    participants: frozenset[uuid.UUID]
    seamless_operator_ids: frozenset[uuid.UUID]

    def seamless_by_operator(self, operator_ids: Collection[uuid.UUID]) -> dict[uuid.UUID, bool]:
        """Each of ``operator_ids`` (those the reads were asked about): seamless or not."""
        return {pk: pk in self.seamless_operator_ids for pk in operator_ids}


# Written out: plain SQL on any database, and no ORM compile of its subqueries on every
# refund and settlement. One row per fact, tagged: ``settled`` is
# ``balances.escrow_is_settled``, ``participant`` a player of a contribution (buy-in, refund,
# void, an entry paid with a ticket or its refund, or a reversal of one: who ever bought
# in, even if refunded since), ``seamless`` is ``seamless.is_seamless``.
# Keys come back as text (hyphenated on PostgreSQL, 32 hex digits on SQLite), parsed by UUID.
_REPLAYED_SQL = """SELECT 'replayed', NULL
 WHERE EXISTS (SELECT 1 FROM wallet_ledgertransaction WHERE reference = %s)"""
_SETTLED_SQL = """SELECT 'settled', NULL WHERE EXISTS (
    SELECT 1 FROM wallet_ledgertransaction s
     WHERE s.escrow_id = %s AND s.kind = %s
       AND NOT EXISTS (SELECT 1 FROM wallet_ledgertransaction r WHERE r.reverses_id = s.id))"""
_PARTICIPANTS_SQL = """SELECT 'participant', CAST(e.player_id AS TEXT)
  FROM wallet_ledgerentry e
  JOIN wallet_ledgertransaction t ON t.id = e.transaction_id
  LEFT JOIN wallet_ledgertransaction reversed ON reversed.id = t.reverses_id
 WHERE e.account_id = %s AND e.player_id IS NOT NULL
   AND (t.kind IN ({kinds}) OR (t.kind = %s AND reversed.kind IN ({kinds})))"""
_ENTRY_MARKS = ", ".join(["%s"] * len(ENTRY_KINDS))
_SEAMLESS_SQL = """SELECT 'seamless', CAST(operator_id AS TEXT) FROM wallet_operatorwallet
 WHERE mode = %s AND operator_id IN ({})"""


@functools.cache
def _escrow_posting_reads_sql(*, participants: bool, operators: int) -> str:
    parts = [_REPLAYED_SQL, _SETTLED_SQL]
    if participants:
        parts.append(_PARTICIPANTS_SQL.format(kinds=_ENTRY_MARKS))
    if operators:
        parts.append(_SEAMLESS_SQL.format(", ".join(["%s"] * operators)))
    return "\nUNION ALL\n".join(parts)


def escrow_posting_reads(
    *,
    escrow: Account,
    reference: str,
    participants: bool = False,
    operator_ids: Collection[uuid.UUID] = (),
) -> EscrowPostingReads:
    operators = sorted(set(operator_ids), key=str)
    params: list[str | int] = [reference, escrow.pk, Kind.SETTLEMENT.value]
    if participants:
        contribution = [kind.value for kind in ENTRY_KINDS]
        params += [escrow.pk, *contribution, Kind.REVERSAL.value, *contribution]
    if operators:
        operator_key = Operator._meta.pk
        params.append(OperatorWallet.Mode.SEAMLESS.value)
        params += [operator_key.get_db_prep_value(pk, connection) for pk in operators]
    sql = _escrow_posting_reads_sql(participants=participants, operators=len(operators))
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    facts = {tag for tag, _ in rows}
    return EscrowPostingReads(
        replayed="replayed" in facts,
        settled="settled" in facts,
        participants=frozenset(uuid.UUID(key) for tag, key in rows if tag == "participant"),
        seamless_operator_ids=frozenset(uuid.UUID(key) for tag, key in rows if tag == "seamless"),
    )


def escrows_of_games(*, games: Sequence[tuple[str, str]]) -> list[Account | None]:
    """The escrow of each (game_ref, currency), with its operator, in ``games``' order
    (None where there is none): the first read of a batch of settlements, one query."""
    found = {
        (escrow.game_ref, escrow.currency): escrow
        for escrow in Account.objects.filter(
            kind=Account.Kind.ESCROW,
            game_ref__in={game_ref for game_ref, _ in games},
            player__isnull=True,
        ).select_related("operator")
    }
    return [found.get(game) for game in games]


@dataclass(frozen=True)
class BatchPostingReads:
    """``escrow_posting_reads`` for a batch of settlements, in one query: whether any of
    their references is used, and each escrow's facts (``of_escrow``)."""

    replayed: bool
    settled: frozenset[int]
    participants: dict[int, frozenset[uuid.UUID]]
    seamless_operator_ids: frozenset[uuid.UUID]

    def of_escrow(self, escrow_id: int) -> EscrowPostingReads:
        return EscrowPostingReads(
            replayed=self.replayed,
            settled=escrow_id in self.settled,
            participants=self.participants.get(escrow_id, frozenset()),
            seamless_operator_ids=self.seamless_operator_ids,
        )


# The statements of ``escrow_posting_reads`` for many escrows, each row tagged with its
# escrow; its operators' part is the single one's.
_BATCH_REPLAYED_SQL = """SELECT 'replayed', NULL, NULL
 WHERE EXISTS (SELECT 1 FROM wallet_ledgertransaction WHERE reference IN ({references}))"""
_BATCH_SETTLED_SQL = """SELECT DISTINCT 'settled', s.escrow_id, NULL
  FROM wallet_ledgertransaction s
 WHERE s.escrow_id IN ({escrows}) AND s.kind = %s
   AND NOT EXISTS (SELECT 1 FROM wallet_ledgertransaction r WHERE r.reverses_id = s.id)"""
_BATCH_PARTICIPANTS_SQL = """SELECT DISTINCT 'participant', e.account_id, CAST(e.player_id AS TEXT)
  FROM wallet_ledgerentry e
  JOIN wallet_ledgertransaction t ON t.id = e.transaction_id
  LEFT JOIN wallet_ledgertransaction reversed ON reversed.id = t.reverses_id
 WHERE e.account_id IN ({escrows}) AND e.player_id IS NOT NULL
   AND (t.kind IN ({kinds}) OR (t.kind = %s AND reversed.kind IN ({kinds})))"""
_BATCH_SEAMLESS_SQL = """SELECT 'seamless', NULL, CAST(operator_id AS TEXT)
  FROM wallet_operatorwallet WHERE mode = %s AND operator_id IN ({operators})"""


def escrow_posting_reads_many(
    *, escrows: Sequence[Account], references: Sequence[str], operator_ids: Collection[uuid.UUID]
) -> BatchPostingReads:
    """What a batch of settlements reads under its locks (``escrow_posting_reads`` with
    ``participants``, for each escrow), in ONE query."""
    marks = ", ".join(["%s"] * len(escrows))
    parts = [
        _BATCH_REPLAYED_SQL.format(references=", ".join(["%s"] * len(references))),
        _BATCH_SETTLED_SQL.format(escrows=marks),
        _BATCH_PARTICIPANTS_SQL.format(escrows=marks, kinds=_ENTRY_MARKS),
    ]
    contribution = [kind.value for kind in ENTRY_KINDS]
    ids = [escrow.pk for escrow in escrows]
    params: list[str | int] = [*references, *ids, Kind.SETTLEMENT.value, *ids]
    params += [*contribution, Kind.REVERSAL.value, *contribution]
    operators = sorted(set(operator_ids), key=str)
    if operators:
        parts.append(_BATCH_SEAMLESS_SQL.format(operators=", ".join(["%s"] * len(operators))))
        operator_key = Operator._meta.pk
        params.append(OperatorWallet.Mode.SEAMLESS.value)
        params += [operator_key.get_db_prep_value(pk, connection) for pk in operators]
    with connection.cursor() as cursor:
        cursor.execute("\nUNION ALL\n".join(parts), params)
        rows = cursor.fetchall()
    participants: dict[int, set[uuid.UUID]] = {}
    for tag, escrow_id, key in rows:
        if tag == "participant":
            participants.setdefault(escrow_id, set()).add(uuid.UUID(key))
    return BatchPostingReads(
        replayed=any(tag == "replayed" for tag, _, _ in rows),
        settled=frozenset(escrow_id for tag, escrow_id, _ in rows if tag == "settled"),
        participants={pk: frozenset(players) for pk, players in participants.items()},
        seamless_operator_ids=frozenset(
            uuid.UUID(key) for tag, _, key in rows if tag == "seamless"
        ),
    )


@dataclass(frozen=True)
class DepositChecks:
    """What a deposit needs to know first, read in one query under the wallet lock: whether
    its reference was used, the operator's wallet mode, the end of a self-exclusion and of a
    time-out in force, and whether the operator has caps in the currency or the player
    deposit limits (each then read in full by its check)."""

    replayed: bool  # a transaction under the deposit's reference exists
    seamless: bool  # the operator keeps the balance (no deposits: seamless wallet mode)
    excluded_until: datetime | None
    timed_out_until: datetime | None
    has_caps: bool
    has_deposit_limits: bool


# PostgreSQL: the same read as the ORM's below, written out once. Compiling the ORM's six
# subqueries costs ~1.5 ms of CPU per deposit, more than the round trips it saves.
_DEPOSIT_CHECKS_SQL = """
SELECT
    EXISTS (SELECT 1 FROM wallet_ledgertransaction WHERE reference = %s),
    EXISTS (SELECT 1 FROM wallet_operatorwallet WHERE operator_id = %s AND mode = %s),
    (SELECT max(ends_at) FROM wallet_selfexclusion
      WHERE player_id = %s AND starts_at <= %s AND ends_at > %s AND kind = %s),
    (SELECT max(ends_at) FROM wallet_selfexclusion
      WHERE player_id = %s AND starts_at <= %s AND ends_at > %s AND kind = %s),
    EXISTS (SELECT 1 FROM wallet_cashiercaps WHERE operator_id = %s AND currency = %s),
    EXISTS (SELECT 1 FROM wallet_playerlimit WHERE player_id = %s AND kind = %s)
"""


def deposit_checks_get(
    *, player: Player, currency: str, reference: str, at: datetime
) -> DepositChecks:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                _DEPOSIT_CHECKS_SQL,
                [
                    reference,
                    player.operator_id,
                    OperatorWallet.Mode.SEAMLESS.value,
                    player.pk,
                    at,
                    at,
                    BreakKind.SELF_EXCLUSION.value,
                    player.pk,
                    at,
                    at,
                    BreakKind.TIME_OUT.value,
                    player.operator_id,
                    currency,
                    player.pk,
                    LimitKind.DEPOSIT.value,
                ],
            )
            return DepositChecks(*cursor.fetchone())
    row = (
        Player.objects.filter(pk=player.pk)
        .annotate(
            replayed=Exists(LedgerTransaction.objects.filter(reference=reference)),
            seamless=Exists(
                OperatorWallet.objects.filter(
                    operator_id=player.operator_id, mode=OperatorWallet.Mode.SEAMLESS
                )
            ),
            excluded_until=Subquery(
                breaks_in_force(player=OuterRef("pk"), at=at, kind=BreakKind.SELF_EXCLUSION)
                .order_by("-ends_at")
                .values("ends_at")[:1]
            ),
            timed_out_until=Subquery(
                breaks_in_force(player=OuterRef("pk"), at=at, kind=BreakKind.TIME_OUT)
                .order_by("-ends_at")
                .values("ends_at")[:1]
            ),
            has_caps=Exists(
                CashierCaps.objects.filter(operator_id=player.operator_id, currency=currency)
            ),
            has_deposit_limits=Exists(
                PlayerLimit.objects.filter(player=OuterRef("pk"), kind=LimitKind.DEPOSIT)
            ),
        )
        .values(
            "replayed",
            "seamless",
            "excluded_until",
            "timed_out_until",
            "has_caps",
            "has_deposit_limits",
        )
        .get()
    )
    return DepositChecks(**row)
