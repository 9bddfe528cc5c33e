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

from django.db import InterfaceError, OperationalError, transaction
from django.utils import timezone

from games import services as game_services
from games.engine import MatchResult
from games.locks import lock_match
from games.models import Match
from gin_platform.events import event_recorded
from gin_platform.models import Player
from gin_platform.principals import Actor
from gin_platform.problems import Problem, ServerErrorProblem
from gin_platform.webhooks import webhook_enqueue
from settlement import selectors
from settlement.models import ReconciliationRun, Settlement
from settlement.payouts import Payout, money_play_payout, pot_payout
from settlement.problems import GameNotFinishedProblem
from settlement.statements import build_statement
from wallet import selectors as wallet_selectors
from wallet import services as wallet_services

logger = logging.getLogger(__name__)
SETTLEMENT_ACTOR = Actor.system("settlement")


def settlement_reference(match_id: int) -> str:
    return f"settlement:match:{match_id}"


def payout_for(result: MatchResult) -> Payout:
    """R10: which rule splits this game's escrow."""
    amounts = [seat.amount for seat in result.seats_by_position]
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
    """Tell the operator a finished game could not be settled (``settlement.failed``)."""
    match = lock_match(match_id)
    if match.status != Match.Status.FINISHED or event_recorded(
        operator=match.operator, event_type="settlement.failed", match_id=match.pk
    ):
        return
    problem = error if isinstance(error, Problem) else ServerErrorProblem()
    webhook_enqueue(
        operator=match.operator,
        event_type="settlement.failed",
        data={
            "match_id": match.pk,
            "problem": {
                "type": problem.type_uri(),
                "title": problem.title,
                "detail": problem.detail,
            },
        },
    )


@_failure_recorded
@transaction.atomic
def game_settle(*, match_id: int, actor: Actor = SETTLEMENT_ACTOR) -> Settlement:
    match = lock_match(match_id)
    if match.status == Match.Status.SETTLED:
        return Settlement.objects.get(match=match)
    if match.status != Match.Status.FINISHED:
        raise GameNotFinishedProblem(f"match {match_id} is {match.status}")
    result = MatchResult.from_dict(match.result)
    seats = result.seats_by_position
    players = {str(p.pk): p for p in Player.objects.filter(pk__in=[s.player_id for s in seats])}
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
    )
    # Seamless mode: what the payout put in the players' platform wallets goes back to the
    # operator's wallet; the credits are written here and sent after the commit.
    wallet_services.seamless_credits_record(ledger_transaction=ledger_transaction, actor=actor)
    statement = build_statement(
        result=result,
        payout=payout,
        ledger_transaction=ledger_transaction,
        players_by_id=players,
    )
    settlement = Settlement.objects.create(
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
    game_services.match_mark_settled(match=match, actor=actor)
    webhook_enqueue(
        operator=match.operator,
        event_type="game.settled",
        data={"match_id": match.pk, "statement": statement},
    )
    return settlement


@transaction.atomic
def game_finished_notify(*, match_id: int) -> None:
    """Tell the operator a game has a result (``game.finished``), before it is paid."""
    match = Match.objects.select_related("operator").get(pk=match_id)
    webhook_enqueue(
        operator=match.operator,
        event_type="game.finished",
        data={"match_id": match.pk, "result": match.result},
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
