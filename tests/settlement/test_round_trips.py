"""How many statements a settlement costs (docs/settlement.md "Speed"): the reads that
settlement, the ledger and games compile once per process must not come back as one
statement per row, and the match is locked once."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.models import Match
from settlement import services
from settlement.models import Settlement
from tests.factories import OperatorFactory
from tests.games.factories import RoomFactory, TableFactory
from tests.settlement.helpers import finish_with, seat_two
from wallet.models import Account
from wallet.services import shard_for

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


def _finished(room) -> Match:
    return finish_with(seat_two(TableFactory(room=room)), winner_seat=0)


def test_settling_a_heads_up_game_to_existing_accounts_is_eight_statements():
    """SAVEPOINT and RELEASE (the test's transaction is the caller's), the match lock with
    the seats' players, the escrow with whether the reference is taken, ONE find-and-lock
    of every account, ONE read under those locks of replay, settled, the payees' buy-ins
    and their operators' wallet mode, ONE write of the ledger transaction, entries,
    balances and audit row, and ONE write of the match's ``settled``, its audit row, the
    Settlement row and the ``game.settled`` event: 8, the match read and locked once, no
    savepoint around the posting (9 before; 15 before that; 20 before that; 34 at first)."""
    operator = OperatorFactory(base_currency="EUR")
    room = RoomFactory(operator=operator, variant="ftk", target=None, stake=500)
    match = _finished(room)
    Account.objects.create(  # the house's fee account of the game's shard exists
        kind=Account.Kind.HOUSE_FEE,
        operator=operator,
        currency="EUR",
        shard=shard_for(match.game_ref),
    )
    with CaptureQueriesContext(connection) as captured:
        settlement = services.game_settle(match_id=match.pk)
    sql = [query["sql"] for query in captured.captured_queries]
    assert len(sql) == 8, "\n".join(sql)
    assert sum("games_match" in statement for statement in sql) == 2  # locked, then settled
    assert sum("FOR UPDATE" in statement for statement in sql) == 2  # the match, the accounts
    written = [statement for statement in sql if "settlement_settlement" in statement]
    assert len(written) == 1 and "operatorevent" in written[0]  # the event rides with it
    assert Settlement.objects.get(match=match) == settlement
    assert Match.objects.get(pk=match.pk).status == Match.Status.SETTLED
