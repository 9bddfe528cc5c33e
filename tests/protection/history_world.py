"""Players with a year of history for the history tests (docs/player-protection.md
"History"): money in and out over the operator API, games played over the player API (sit,
resign, leave before the start), settled as settlement settles them, and the ledger read
back directly, so a test compares the history with the ledger itself."""

from __future__ import annotations

import csv
import io
import uuid
from collections import defaultdict
from datetime import datetime

from django.db.models import Sum

from games.models import Match
from settlement import services as settlement_services
from tests.games.factories import TableFactory
from wallet.models import Account, LedgerEntry, LedgerTransaction

Kind = LedgerTransaction.Kind


def idem() -> dict[str, str]:
    return {"HTTP_IDEMPOTENCY_KEY": str(uuid.uuid4())}


def cashier(operator_client, player, kind: str, amount: str):
    """A deposit or withdrawal of ``player`` over the operator API."""
    response = operator_client.post(
        f"/api/v1/players/{player.pk}/{kind}",
        {"amount": amount, "currency": player.wallet_currency},
        format="json",
        **idem(),
    )
    assert response.status_code == 201, response.content
    return response.json()


def play_and_resign(room, *, winner, loser) -> Match:
    """Both sit at a new table of ``room`` over the API (``winner`` and ``loser`` are their
    session clients); ``loser`` resigns; the match is settled."""
    table = TableFactory(room=room)
    for client in (winner, loser):
        sat = client.post(f"/api/v1/tables/{table.pk}/sit", {}, format="json")
        assert sat.status_code == 201, sat.content
    match = Match.objects.get(table=table)
    resigned = loser.post(f"/api/v1/matches/{match.pk}/resign")
    assert resigned.status_code == 200, resigned.content
    settlement_services.game_settle(match_id=match.pk)
    match.refresh_from_db()
    return match


def sit_and_leave(room, client) -> int:
    """Sit at a new table of ``room`` and leave before anybody else comes: a buy-in and its
    refund. The match's id."""
    table = TableFactory(room=room)
    sat = client.post(f"/api/v1/tables/{table.pk}/sit", {}, format="json")
    assert sat.status_code == 201, sat.content
    left = client.post(f"/api/v1/tables/{table.pk}/leave", {}, format="json")
    assert left.status_code == 200, left.content
    return sat.json()["match_id"]


def wallet_of(player) -> Account:
    return Account.objects.get(
        kind=Account.Kind.PLAYER, player=player, currency=player.wallet_currency
    )


def counted_kind(entry: LedgerEntry) -> str:
    txn = entry.transaction
    return txn.reverses.kind if txn.kind == Kind.REVERSAL else txn.kind


def ledger_entries(player, *, start: datetime, end: datetime) -> list[LedgerEntry]:
    """The player's money wallet's entries in [start, end), read straight from the ledger."""
    return list(
        LedgerEntry.objects.filter(
            account=wallet_of(player), created_at__gte=start, created_at__lt=end
        )
        .select_related("transaction__reverses")
        .order_by("pk")
    )


def sums_by_kind(entries: list[LedgerEntry]) -> dict[str, int]:
    sums: dict[str, int] = defaultdict(int)
    for entry in entries:
        sums[counted_kind(entry)] += entry.amount
    return dict(sums)


def game_net(player, match: Match) -> int:
    """Everything the match moved on the player's wallets, from the ledger."""
    total = LedgerEntry.objects.filter(
        account__kind=Account.Kind.PLAYER,
        account__player=player,
        transaction__game_ref=match.game_ref,
    ).aggregate(total=Sum("amount"))["total"]
    return int(total or 0)


def csv_rows(response) -> list[dict[str, str]]:
    """A streamed CSV answer as its rows (by header)."""
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    text = b"".join(response.streaming_content).decode()
    assert text.endswith("\r\n")
    return list(csv.DictReader(io.StringIO(text)))


def all_pages(client, url: str) -> list[dict]:
    """Every row of a paged list, following ``next``."""
    rows: list[dict] = []
    while url:
        response = client.get(url)
        assert response.status_code == 200, response.content
        body = response.json()
        rows += body["results"]
        url = body["next"]
    return rows
