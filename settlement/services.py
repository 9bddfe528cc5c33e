"""Settling finished games into the ledger, exactly once (docs/settlement.md "Flow").

``game_settle`` does it all in ONE database transaction that first locks the match row:
read the result, compute the payout (R10), post it through ``wallet.services.escrow_settle``
under the natural reference ``settlement:match:<id>``, record the Settlement and its
statement, move the match ``finished -> settled`` and queue the ``game.settled`` webhook.
Whoever comes second (a redelivered message, a second worker, a retry after a crash) waits
for the lock, then finds the match settled and posts nothing. A crash before commit rolls
everything back; the task is acks_late, so the message is redelivered and the work redone.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from datetime import timedelta
from typing import Any
from uuid import UUID

from django.db import InterfaceError, OperationalError, transaction
from django.utils import timezone

from games import selectors as game_selectors
from games import services as game_services
from games.engine import MatchResult, MultiMatchResult
from games.locks import lock_match, lock_match_with_seats
from games.models import Match
from gin_platform import selectors as platform_selectors
from gin_platform.events import event_recorded
from gin_platform.models import Operator, Player
from gin_platform.precompiled import PrecompiledQuery
from gin_platform.principals import Actor
from gin_platform.problems import Problem, ServerErrorProblem
from gin_platform.webhooks import webhook_enqueue, webhook_event_build, webhook_event_inserted
from settlement import selectors
from settlement.models import ReconciliationRun, Settlement
from settlement.payouts import Payout, money_play_payout, pot_payout, prize_table_payout
from settlement.problems import GameNotFinishedProblem
from settlement.statements import build_statement, statement_for_operator
from wallet import selectors as wallet_selectors
from wallet import services as wallet_services

logger = logging.getLogger(__name__)
SETTLEMENT_ACTOR = Actor.system("settlement")


def settlement_reference(match_id: int) -> str:
    return f"settlement:match:{match_id}"


def payout_for(result: MatchResult | MultiMatchResult) -> Payout:
    """R10 (R12 with three and four players): which rule splits this game's escrow."""
    amounts = [seat.amount for seat in sorted(result.seats, key=lambda seat: seat.position)]
    if isinstance(result, MultiMatchResult):
        return prize_table_payout(
            stakes=amounts,
            ranking=result.ranking,
            prize_table=result.prize_table,
            fee_bps=result.fee_bps,
            payouts=result.payouts,
        )
    if result.money_play is not None:
        return money_play_payout(
            cashier=amounts,
            scores=result.money_play,
            stake_per_point=result.stake_per_point,
            fee_bps=result.fee_bps,
        )
    return pot_payout(stakes=amounts, winner=result.winner_seat, fee_bps=result.fee_bps)


def _failure_recorded(settle: Callable[..., Settlement]) -> Callable[..., Settlement]:
    """settlement.failed: an error that a retry will not fix (not a transient database
    error) is recorded for the operator after the settlement rolled back, once per game."""

    @functools.wraps(settle)
    def recorded(*, match_id: int, **kwargs: Any) -> Settlement:
        try:
            return settle(match_id=match_id, **kwargs)
        except (OperationalError, InterfaceError, GameNotFinishedProblem):
            raise
        except Exception as error:
            settlement_failure_record(match_id=match_id, error=error)
            raise

    return recorded


@transaction.atomic
def settlement_failure_record(*, match_id: int, error: BaseException) -> None:
    """Tell the operator a finished game could not be settled (``settlement.failed``): for
    a network game, each operator whose players sat in it (docs/network.md)."""
    match = lock_match(match_id)
    if match.status != Match.Status.FINISHED:
        return
    readers = (
        Operator.objects.filter(pk__in=game_selectors.match_player_operator_ids(match))
        if platform_selectors.is_network_operator(match.operator_id)
        else [match.operator]
    )
    if any(
        event_recorded(operator=reader, event_type="settlement.failed", match_id=match.pk)
        for reader in readers
    ):
        return
    problem = error if isinstance(error, Problem) else ServerErrorProblem()
    payload = {
        "match_id": match.pk,
        "problem": {"type": problem.type_uri(), "title": problem.title, "detail": problem.detail},
    }
    game_services.match_event_enqueue(
        match=match, event_type="settlement.failed", data=lambda _operator_id: payload
    )


@_failure_recorded
@transaction.atomic
def game_settle(*, match_id: int, actor: Actor = SETTLEMENT_ACTOR) -> Settlement:
    match, seated = lock_match_with_seats(match_id)  # the players come with the lock
    if match.status == Match.Status.SETTLED:
        return Settlement.objects.get(match=match)
    if match.status != Match.Status.FINISHED:
        raise GameNotFinishedProblem(f"match {match_id} is {match.status}")
    result = game_selectors.match_result(match.result)  # heads-up, or R12
    seats = tuple(sorted(result.seats, key=lambda seat: seat.position))
    players = {str(seat.player_id): seat.player for seat in seated}
    if missing := [UUID(seat.player_id) for seat in seats if seat.player_id not in players]:
        players |= {str(p.pk): p for p in _PLAYERS.fetch(missing)}  # pragma: no cover
    payout = payout_for(result)
    ledger_transaction = wallet_services.escrow_settle(
        game_ref=result.game_ref,
        currency=result.currency,
        reference=settlement_reference(match.pk),
        payouts=[
            wallet_services.EscrowPayout(
                player=players[seats[line.seat].player_id],
                amount=line.amount,
                component=line.component,
            )
            for line in payout.lines
        ],
        fee=payout.fee,
        actor=actor,
        metadata={"match_id": match.pk, "variant": result.variant},
        savepoint=False,  # any failure rolls this whole transaction back: nothing to keep
    )
    # Seamless mode: what the payout put in the players' platform wallets goes back to the
    # operator's wallet; the credits are written here and sent after the commit.
    wallet_services.seamless_credits_record(ledger_transaction=ledger_transaction, actor=actor)
    if ledger_transaction.operator_id == match.operator_id:  # the escrow's: read with it
        match.operator = ledger_transaction.operator
    network = platform_selectors.is_network_operator(match.operator_id)
    statement = build_statement(
        result=result,
        payout=payout,
        ledger_transaction=ledger_transaction,
        players_by_id=players,
        network=network,
    )
    settlement = Settlement(
        match=match,
        operator=match.operator,
        ledger_transaction=ledger_transaction,
        variant=result.variant,
        currency=result.currency,
        is_practice=result.is_practice,
        escrow_total=sum(seat.amount for seat in seats),
        fee=payout.fee,
        statement=statement,
    )
    if network:
        game_services.match_settled_record(match=match, actor=actor, rows=[settlement])
        _network_settled_notify(match=match, statement=statement)
        return settlement
    event = webhook_event_build(
        operator=match.operator,
        event_type="game.settled",
        data={"match_id": match.pk, "statement": statement},
    )
    # The match is locked above; its change, its audit row, the Settlement and the event:
    # one write.
    game_services.match_settled_record(match=match, actor=actor, rows=[settlement, event])
    webhook_event_inserted(event)
    return settlement


# A settlement's players, compiled once per worker thread (gin_platform/precompiled.py).
_PLAYERS = PrecompiledQuery(lambda ids: Player.objects.filter(pk__in=ids))


def _network_settled_notify(*, match: Match, statement: dict[str, Any]) -> None:
    """A network game's ``game.settled`` goes to each operator whose players sat in it,
    with the statement masked for that operator (docs/network.md)."""
    operator_ids = game_selectors.match_player_operator_ids(match)
    names = selectors.network_operator_names(operator_ids)
    for operator in Operator.objects.filter(pk__in=operator_ids).order_by("pk"):
        webhook_enqueue(
            operator=operator,
            event_type="game.settled",
            data={
                "match_id": match.pk,
                "statement": statement_for_operator(
                    statement, operator_id=operator.pk, operator_names=names
                ),
            },
        )


@transaction.atomic
def game_finished_notify(*, match_id: int) -> None:
    """Tell the operator a game has a result (``game.finished``), before it is paid."""
    match = Match.objects.select_related("operator").get(pk=match_id)
    # A network game's result goes to each operator whose players sat in it, the other
    # operators' players by screen name only (docs/network.md "Tenancy").
    game_services.match_event_enqueue(
        match=match,
        event_type="game.finished",
        data=lambda operator_id: {
            "match_id": match.pk,
            "result": game_services.result_for_operator(match=match, operator_id=operator_id),
        },
    )


def unsettled_match_ids(*, older_than_seconds: int = 60) -> list[int]:
    """Finished games still waiting for settlement (a lost message, a dead worker)."""
    cutoff = timezone.now() - timedelta(seconds=older_than_seconds)
    return list(
        Match.objects.filter(status=Match.Status.FINISHED, finished_at__lte=cutoff)
        .order_by("finished_at")
        .values_list("pk", flat=True)[:500]
    )


def reconciliation_run() -> ReconciliationRun:
    """Check the ledger (wallet.selectors.reconcile) and record the run; drift is an alert."""
    report = wallet_selectors.reconcile()
    mismatches = selectors.statement_ledger_mismatches()
    unsettled = len(unsettled_match_ids(older_than_seconds=3600))
    run = ReconciliationRun.objects.create(
        ok=report.ok and not mismatches,
        accounts_checked=report.accounts_checked,
        transactions_checked=report.transactions_checked,
        unsettled_games=unsettled,
        report={"lines": report.lines + mismatches},
    )
    if not report.ok:
        logger.error("ALERT ledger reconciliation failed:\n%s", report.render())
    if mismatches:
        logger.error("ALERT statements disagree with the ledger:\n%s", "\n".join(mismatches))
    if unsettled:
        logger.error("ALERT %d finished games have waited over an hour to settle", unsettled)
    return run
