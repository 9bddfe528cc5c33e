"""Settling finished games into the ledger, exactly once (docs/settlement.md "Flow").

A payout starts at ``game_payout_request``, the one entry point (its docstring draws the
whole path). ``game_settle`` settles one game in ONE database transaction that first locks
the match row: read the result, compute the payout (R10), post it through
``wallet.services.escrow_settle`` under the natural reference ``settlement:match:<id>``,
record the Settlement and its statement, move the match ``finished -> settled`` and queue
the ``game.settled`` webhook. Whoever comes second (a redelivered message, a second worker,
a retry after a crash) waits for the lock, then finds the match settled and posts nothing.
A crash before commit rolls everything back; the task is acks_late, so the message is
redelivered and the work redone. ``games_settle`` does the same for a batch of games.

Services and tasks, one direction: ``settlement.tasks`` imports this module (a task body is
one service call); this module names the tasks it queues (``SETTLE_GAME``,
``SETTLE_READY``) and queues them after the commit through ``gin_platform.enqueue``,
never importing them.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any
from uuid import UUID

from celery import current_app, signature
from django.db import InterfaceError, OperationalError, transaction
from django.utils import timezone
from redis.exceptions import RedisError

from games import selectors as game_selectors
from games import services as game_services
from games.engine import MatchResult, MultiMatchResult
from games.locks import lock_match, lock_match_with_seats, lock_matches_with_seats
from games.models import Match, Seat
from gin_platform.enqueue import enqueue, on_commit_logged
from gin_platform.events.event_log import event_recorded
from gin_platform.events.webhooks import (
    webhook_enqueue,
    webhook_event_build,
    webhook_event_inserted,
)
from gin_platform.http.problems import Problem, ServerErrorProblem
from gin_platform.models import Operator, OperatorEvent, Player
from gin_platform.request_path.cache import redis_client
from gin_platform.request_path.precompiled import PrecompiledQuery
from gin_platform.tenancy import selectors as platform_selectors
from gin_platform.tenancy.principals import Actor
from settlement import ready, selectors
from settlement.models import ReconciliationRun, Settlement
from settlement.payouts import Payout, money_play_payout, pot_payout, prize_table_payout
from settlement.problems import GameNotFinishedProblem
from settlement.statements import build_statement, statement_for_operator
from wallet import services as wallet_services
from wallet.selectors.reconciliation import reconcile
from wallet.selectors.transactions import payouts_credited

if TYPE_CHECKING:
    from wallet.models import LedgerTransaction

logger = logging.getLogger(__name__)
SETTLEMENT_ACTOR = Actor.system("settlement")

# The tasks this module queues, by name: settlement.tasks imports this module.
SETTLE_GAME = "settlement.tasks.settle_game"
SETTLE_READY = "settlement.tasks.settle_ready"


def game_payout_request(*, match_id: int) -> None:
    """Ask for the payout of finished game ``match_id``: the one entry point of a payout.
    Once the caller's transaction commits (at once outside one), the game joins the batch
    set and a task is queued unless one is due. It never raises: a broker or Redis error is
    logged, and the ``settle-stragglers`` sweep settles the game. The path a payout takes::

        games (the commit that records the result)
         └ games.signals.match_finished, sent on commit
            └ settlement.receivers.enqueue_settlement (also: the game.finished webhook)
               └ game_payout_request(match_id)                          <- here
                  └ on commit: settlement.ready.ready_add, the id joins the batch set
                    on Redis; the first of a run queues SETTLE_READY (no Redis, or eager
                    Celery: SETTLE_GAME for this game alone)
                     └ settlement.tasks.settle_ready -> ready_games_settle
                        └ games_settle, a batch of up to BATCH_SIZE games per transaction
                           │ payout_for: settlement.payouts (R10, R12), the lines
                           └ wallet.services.escrow_settle_many (one game alone, or a
                             batch that cannot settle whole: game_settle ->
                             wallet.services.escrow_settle)
                              │ wallet.services.plans.escrow_settle: the pure plan
                              └ the posting kernel (wallet/ledger/post.py)
                                 └ wallet/ledger/write.py ledger_write: the transaction,
                                   its entries, the balances and the audit row in one
                                   statement
                        then, in the same transaction: the Settlement and its statement
                        (settlement.statements), the match finished -> settled, the
                        game.settled webhook

    Two ways in skip the batch set: the ``settle-stragglers`` sweep queues SETTLE_GAME for
    a game left unsettled (a lost message, a dead worker), and ``manage.py settle_pending``
    calls ``game_settle`` itself (docs/settlement.md "Recovery times")."""
    on_commit_logged(
        lambda: _payout_queue(match_id), what=f"the settlement request of match {match_id}"
    )


def _payout_queue(match_id: int) -> None:
    client = redis_client()
    if client is None or current_app.conf.task_always_eager:  # run here, one by one
        enqueue(signature(SETTLE_GAME), match_id)
        return
    try:
        woken = ready.ready_add(client, match_id)
    except RedisError:
        logger.warning("could not add match %s to the settlement batch", match_id, exc_info=True)
        enqueue(signature(SETTLE_GAME), match_id)
        return
    if woken and not enqueue(signature(SETTLE_READY)):
        logger.error("match %s waits in the settlement batch for the sweep", match_id)
        ready.wake_clear()  # the next finished game tries again


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
        if result.stake_per_point is None:
            raise ValueError(f"match {result.match_id}: Money Play without a stake per point")
        return money_play_payout(
            cashier=amounts,
            scores=result.money_play,
            stake_per_point=result.stake_per_point,
            fee_bps=result.fee_bps,
        )
    if result.winner_seat is None:  # only Money Play may end without one (R10)
        raise ValueError(f"match {result.match_id}: no winner outside Money Play")
    return pot_payout(stakes=amounts, winner=result.winner_seat, fee_bps=result.fee_bps)


def _failure_recorded(
    settle: Callable[..., Settlement | None],
) -> Callable[..., Settlement | None]:
    """settlement.failed: an error that a retry will not fix (not a transient database
    error) is recorded for the operator after the settlement rolled back, once per game."""

    @functools.wraps(settle)
    def recorded(*, match_id: int, **kwargs: Any) -> Settlement | None:
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
        "problem": problem.as_record(),
    }
    game_services.match_event_enqueue(
        match=match, event_type="settlement.failed", data=lambda _operator_id: payload
    )


@dataclass(frozen=True)
class _Game:
    """A finished game read under its lock, ready to post: its result, its payout (R10,
    R12), the players paid (by id) and what the wallet posts for it."""

    match: Match
    result: MatchResult | MultiMatchResult
    payout: Payout
    players: dict[str, Player]
    posting: wallet_services.EscrowSettlement


def _game(match: Match, seated: Sequence[Seat]) -> _Game:
    result = selectors.finished_match_result(match)  # heads-up, or R12
    seats = tuple(sorted(result.seats, key=lambda seat: seat.position))
    players = {str(seat.player_id): seat.player for seat in seated}
    if missing := [UUID(seat.player_id) for seat in seats if seat.player_id not in players]:
        fetched = _PLAYERS.fetch(missing)  # pragma: no cover
        players |= {str(p.pk): p for p in fetched}  # pragma: no cover
    payout = payout_for(result)
    posting = wallet_services.EscrowSettlement(
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
        metadata={"match_id": match.pk, "variant": result.variant},
    )
    return _Game(match=match, result=result, payout=payout, players=players, posting=posting)


def _settlement(
    game: _Game, *, ledger_transaction: LedgerTransaction, network: bool, actor: Actor
) -> Settlement:
    """The Settlement of a game whose payout is posted (not saved yet), with its statement.
    Seamless mode: what the payout put in the players' platform wallets goes back to the
    operator's wallet; the credits are written here and sent after the commit."""
    wallet_services.seamless_credits_record(ledger_transaction=ledger_transaction, actor=actor)
    match = game.match
    if ledger_transaction.operator_id == match.operator_id:  # the escrow's: read with it
        match.operator = ledger_transaction.operator
    return Settlement(
        match=match,
        operator=match.operator,
        ledger_transaction=ledger_transaction,
        variant=game.result.variant,
        currency=game.result.currency,
        is_practice=game.result.is_practice,
        escrow_total=sum(seat.amount for seat in game.result.seats),
        fee=game.payout.fee,
        statement=build_statement(
            result=game.result,
            payout=game.payout,
            ledger_transaction=ledger_transaction,
            credited=payouts_credited(ledger_transaction=ledger_transaction),
            players_by_id=game.players,
            network=network,
        ),
    )


def _settled_event(settlement: Settlement) -> OperatorEvent:
    return webhook_event_build(
        operator=settlement.operator,
        event_type="game.settled",
        data={"match_id": settlement.match_id, "statement": settlement.statement},
    )


def _tournament_match_close(*, match: Match, actor: Actor) -> None:
    """R14: a tournament's match has no escrow (the tournament pays its prizes from the
    entries): it moves ``finished -> settled`` with nothing posted, no Settlement and no
    ``game.settled``, so the stragglers sweep and reconciliation are done with it."""
    if match.status == Match.Status.SETTLED:
        return
    if match.status != Match.Status.FINISHED:
        raise GameNotFinishedProblem(f"match {match.pk} is {match.status}")
    game_services.match_settled_record(match=match, actor=actor)


@_failure_recorded
@transaction.atomic
def game_settle(*, match_id: int, actor: Actor = SETTLEMENT_ACTOR) -> Settlement | None:
    """Settle finished game ``match_id`` (the module's docstring); its Settlement, or None
    for a tournament's match (R14), settled with nothing to pay."""
    match, seated = lock_match_with_seats(match_id)  # the players come with the lock
    if match.is_tournament:
        _tournament_match_close(match=match, actor=actor)
        return None
    if match.status == Match.Status.SETTLED:
        return Settlement.objects.get(match=match)
    if match.status != Match.Status.FINISHED:
        raise GameNotFinishedProblem(f"match {match_id} is {match.status}")
    game = _game(match, seated)
    posting = game.posting
    ledger_transaction = wallet_services.escrow_settle(
        game_ref=posting.game_ref,
        currency=posting.currency,
        reference=posting.reference,
        payouts=posting.payouts,
        fee=posting.fee,
        actor=actor,
        metadata=posting.metadata,
        savepoint=False,  # any failure rolls this whole transaction back: nothing to keep
    )
    network = platform_selectors.is_network_operator(match.operator_id)
    settlement = _settlement(
        game, ledger_transaction=ledger_transaction, network=network, actor=actor
    )
    if network:
        game_services.match_settled_record(match=match, actor=actor, rows=[settlement])
        _network_settled_notify(match=match, statement=settlement.statement)
        return settlement
    event = _settled_event(settlement)
    # The match is locked above; its change, its audit row, the Settlement and the event:
    # one write.
    game_services.match_settled_record(match=match, actor=actor, rows=[settlement, event])
    webhook_event_inserted(event)
    return settlement


BATCH_SIZE = 50  # games per transaction: ~4,000 parameters in the ledger's one write


def games_settle(*, match_ids: Sequence[int], actor: Actor = SETTLEMENT_ACTOR) -> list[int]:
    """Settle the finished games of ``match_ids`` in batches (docs/settlement.md
    "Batches"): up to ``BATCH_SIZE`` games per transaction, each paid, recorded and
    announced exactly as ``game_settle`` would, in a fixed number of statements per batch.
    A batch that cannot be settled whole (a network game, a replayed reference, a game not
    finished, a game that breaks a rule, a transient error) is rolled back and its games
    are settled one by one by ``game_settle``, where each case has its own answer; a game
    that fails there is logged and left to the ``settle-stragglers`` sweep (a transient
    error) or recorded as ``settlement.failed``. Returns the ids of ``match_ids`` that are
    settled when it returns, by this call or before."""
    settled: list[int] = []
    ids = sorted(set(match_ids))
    for start in range(0, len(ids), BATCH_SIZE):
        chunk = ids[start : start + BATCH_SIZE]
        try:
            settled += _batch_settle(match_ids=chunk, actor=actor)
            continue
        except wallet_services.NotBatchable as reason:
            logger.info("settling %d games one by one: %s", len(chunk), reason)
        except Exception:
            logger.warning("a batch of %d games failed; settling each alone", len(chunk))
        for match_id in chunk:
            try:
                game_settle(match_id=match_id, actor=actor)
            except Exception:
                logger.exception("match %s was not settled; left to the sweep", match_id)
            else:
                settled.append(match_id)
    return settled


def ready_games_settle(*, limit: int = 20 * BATCH_SIZE) -> int:
    """``settle_ready``: settle the games waiting in the batch set (settlement.ready), a
    batch at a time, until none is left or ``limit`` were taken (then another task is
    queued, so one drain never holds a worker for long). Returns how many were taken."""
    ready.wake_clear()
    taken = 0
    while taken < limit and (match_ids := ready.ready_take(BATCH_SIZE)):
        games_settle(match_ids=match_ids)
        taken += len(match_ids)
    if taken >= limit and ready.wake_claim():
        enqueue(signature(SETTLE_READY))
    return taken


@transaction.atomic
def _batch_settle(*, match_ids: Sequence[int], actor: Actor) -> list[int]:
    """One batch, one transaction: the matches locked in key order (one statement), their
    payouts posted (``escrow_settle_many``: every account locked at once, in key order),
    the Settlements, events, match changes and audit rows written per model. Games already
    settled are passed over (and returned with the rest); a game of ``match_ids`` not
    finished, or gone, is left to ``game_settle`` (which answers it)."""
    locked = lock_matches_with_seats(match_ids)
    if len(locked) != len(match_ids) or any(
        match.status not in (Match.Status.FINISHED, Match.Status.SETTLED) for match, _ in locked
    ):
        raise wallet_services.NotBatchable("a game of the batch is not finished, or gone")
    finished = [
        (match, seated) for match, seated in locked if match.status == Match.Status.FINISHED
    ]
    # R14: a tournament's matches have nothing to pay (``_tournament_match_close``).
    closed = [match for match, _ in finished if match.is_tournament]
    games = [_game(match, seated) for match, seated in finished if not match.is_tournament]
    if any(platform_selectors.is_network_operator(game.match.operator_id) for game in games):
        raise wallet_services.NotBatchable("a network game (its events go to each operator)")
    settled = [match.pk for match, _ in locked]
    if closed:
        game_services.matches_settled_record(matches=closed, actor=actor)
    if not games:
        return settled
    posted = wallet_services.escrow_settle_many(
        settlements=[game.posting for game in games], actor=actor
    )
    settlements = [
        _settlement(game, ledger_transaction=ledger_transaction, network=False, actor=actor)
        for game, ledger_transaction in zip(games, posted, strict=True)
    ]
    events = [_settled_event(settlement) for settlement in settlements]
    game_services.matches_settled_record(
        matches=[game.match for game in games], actor=actor, rows=[*settlements, *events]
    )
    for event in events:
        webhook_event_inserted(event)
    return settled


# A settlement's players, compiled once per worker thread
# (gin_platform/request_path/precompiled.py).
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
    """Check the ledger (wallet.selectors.reconciliation.reconcile) and record the run;
    drift is an alert."""
    report = reconcile()
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
