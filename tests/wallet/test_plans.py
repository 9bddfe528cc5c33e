"""The ledger's hot statements keep plans whose cost follows the rows they touch, not the
size of the tables, in the generic plan a long-lived connection settles on (tests.plans)."""

import pytest
from django.db import connection

from gin_platform.models import Player
from tests.plans import (
    generic_plan,
    indexes_used,
    nodes_of,
    reads_of,
    run_and_plan,
    sequential_scans,
)
from tests.wallet.factories import fund
from wallet.ledger.keys import escrow_key, ticket_key
from wallet.locks import lock_accounts_if_all_exist
from wallet.models import Account
from wallet.selectors.postings import escrow_with_replay

# Committed and vacuumed, as in tests/games/test_plans.py: dead rows that earlier tests
# rolled back would make plans production does not see.
pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _many_accounts(operator, count: int = 3000) -> None:
    """``count`` escrow accounts of ``operator``, and fresh statistics."""
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO wallet_account"
            " (kind, operator_id, currency, game_ref, shard, balance, created_at)"
            " SELECT 'escrow', %s, 'EUR', 'plan-' || i, 0, 0, CURRENT_TIMESTAMP"
            " FROM generate_series(1, %s) AS i",
            [operator.pk, count],
        )
        cursor.execute("VACUUM ANALYZE wallet_account, wallet_ledgerentry")


def _deposit_lookups(operator, player) -> list[dict]:
    """A deposit's two accounts: the operator's outside world (the shard ``fund`` used) and
    the player's wallet."""
    outside = Account.objects.get(kind=Account.Kind.OUTSIDE, operator=operator)
    return [
        {
            "kind": outside.kind,
            "operator_id": operator.pk,
            "currency": "EUR",
            "shard": outside.shard,
        },
        {"kind": Account.Kind.PLAYER, "player_id": player.pk, "currency": "EUR"},
    ]


def _account_reads(plan: dict) -> list[dict]:
    return reads_of(plan, "wallet_account")


def test_the_zero_sum_check_looks_up_only_the_accounts_of_the_transactions_own_entries(
    operator, player
):
    """The deferred check runs for every entry at COMMIT: each entry's account is found by
    primary key, never by walking the account table."""
    txn = fund(player, 100)
    _many_accounts(operator)
    with connection.cursor() as cursor:
        cursor.execute("SELECT prosrc FROM pg_proc WHERE proname = 'wallet_ledger_entry_check'")
        (source,) = cursor.fetchone()
    start = source.rindex("SELECT", 0, source.index("INTO bad"))  # the zero-sum check
    check = source[start : source.index("LIMIT 1", start) + len("LIMIT 1")]
    check = check.replace("INTO bad", "").replace("NEW.transaction_id", "$1::bigint")
    reads = _account_reads(generic_plan(check, [txn.pk]))
    assert reads
    for node in reads:
        assert node["Node Type"] in {"Index Scan", "Index Only Scan"}, node
        assert node["Index Name"] == "wallet_account_pkey", node


def test_finding_and_locking_a_postings_accounts_uses_their_unique_indexes(operator, player):
    """A posting's accounts are found by their (partial) unique indexes, not by scanning
    every account of the operator: the kind is in the statement's text."""
    fund(player, 100)  # the player's wallet and one of the operator's outside accounts exist
    _many_accounts(operator)
    lookups = [
        *_deposit_lookups(operator, player),
        {"kind": Account.Kind.ESCROW, "game_ref": "plan-7", "currency": "EUR"},
    ]
    (locked, plan) = run_and_plan(lambda: lock_accounts_if_all_exist(lookups=lookups))
    assert len(locked) == 3
    _assert_accounts_found_by_index(plan)


def test_finding_a_games_escrow_uses_its_unique_index(operator, player):
    """The first read of a refund or settlement (the escrow by game and currency)."""
    _many_accounts(operator)
    escrow, plan = run_and_plan(
        lambda: escrow_with_replay(game_ref="plan-7", currency="EUR", reference="none")
    )
    assert escrow.game_ref == "plan-7"
    _assert_accounts_found_by_index(plan)


def _assert_accounts_found_by_index(plan: dict) -> None:
    assert _account_reads(plan)
    assert not sequential_scans(plan, "wallet_account"), plan
    # by the operator alone: every account of the operator (a bitmap index scan names no
    # table, so every index of the plan is looked at)
    assert "wallet_account_operator_id_4eda0060" not in indexes_used(plan), plan


@pytest.mark.parametrize("with_ids", [False, True], ids=["a deposit's", "a settlement's"])
def test_finding_and_locking_keeps_its_generic_plan_instead_of_planning_each_posting(
    operator, player, with_ids
):
    """Prepared on a long-lived connection, the find-and-lock is planned once, not at every
    posting: its generic plan must cost what the custom ones do, which an array parameter
    (``id = ANY($n)``, guessed at ten rows) did not; PostgreSQL then planned every posting
    again, five times the cost of running it."""
    fund(player, 100)
    _many_accounts(operator)
    escrow = Account.objects.get(kind=Account.Kind.ESCROW, game_ref="plan-7")
    lookups = _deposit_lookups(operator, player)
    ids = [escrow.pk] if with_ids else []
    for _ in range(20):  # prepared at the 5th run; custom plans for its first 5 executions
        assert len(lock_accounts_if_all_exist(lookups=lookups, ids=ids)) == 2 + len(ids)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT generic_plans, custom_plans FROM pg_prepared_statements"
            " WHERE statement LIKE '%%FROM wallet_account WHERE%%FOR UPDATE'"
        )
        ((generic, custom),) = cursor.fetchall()
    assert custom <= 5 and generic >= 5, (generic, custom)


def _many_tickets(operator, game_ref: str, count: int = 3000) -> list:
    """``count`` players of ``operator``, each with a ticket to ``game_ref``, beside the
    tournament's escrow (what a freeroll's granted tickets make), and fresh statistics."""
    players = Player.objects.bulk_create(
        Player(operator=operator, external_ref=f"holder-{n}", wallet_currency="EUR")
        for n in range(count)
    )
    Account.objects.bulk_create(
        Account(kind="ticket", operator=operator, currency="EUR", player=who, game_ref=game_ref)
        for who in players
    )
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE wallet_account, platform_player")
    return players


def test_a_tournaments_escrow_and_a_ticket_are_found_by_their_own_unique_indexes(operator, player):
    """A tournament's escrow shares its game_ref with every ticket to it: the escrow's
    lookup (``player_id IS NULL``) and a ticket's (its player) each read their own row
    through their unique index, never the tournament's thousands of tickets."""
    fund(player, 100)
    _many_accounts(operator)
    holders = _many_tickets(operator, "plan-7")
    lookups = [
        escrow_key(operator_id=operator.pk, game_ref="plan-7", currency="EUR").lookup(),
        ticket_key(
            player_id=holders[7].pk, operator_id=operator.pk, game_ref="plan-7", currency="EUR"
        ).lookup(),
    ]
    (locked, plan) = run_and_plan(lambda: lock_accounts_if_all_exist(lookups=lookups))
    assert sorted(account.kind for account in locked) == ["escrow", "ticket"]
    _assert_accounts_found_by_index(plan)
    assert "wallet_one_escrow_per_game_and_currency" in indexes_used(plan), plan
    _assert_reads_a_row_or_two(plan)
    escrow, plan = run_and_plan(
        lambda: escrow_with_replay(game_ref="plan-7", currency="EUR", reference="none")
    )
    assert escrow.kind == "escrow"
    _assert_accounts_found_by_index(plan)
    assert "wallet_one_escrow_per_game_and_currency" in indexes_used(plan), plan
    _assert_reads_a_row_or_two(plan)


def _assert_reads_a_row_or_two(plan: dict) -> None:
    """Every index read of the plan expects a row or two: the game's tickets are not read."""
    scans = [node for node in nodes_of(plan) if "Index Name" in node]
    assert scans and all(node["Plan Rows"] <= 2 for node in scans), plan
