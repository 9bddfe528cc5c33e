"""Settlement listens for finished games (connected in SettlementConfig.ready)."""

from gin_platform.enqueue import run_logged
from settlement.services import game_finished_notify, game_payout_request


def enqueue_settlement(sender, match_id: int, **kwargs) -> None:
    """``games.signals.match_finished``: tell the operator, then ask for the payout
    (``settlement.services.game_payout_request``: the game joins the next batch).

    games sends the signal after its commit; the request still waits for the commit of a
    caller that sends it inside a transaction, so the task can never see an uncommitted
    result. Neither step may fail the request that finished the game (it has committed): a
    broker error is logged and the ``settle-stragglers`` sweep queues the game again; the
    ``game.finished`` webhook row is written before anything is sent, so
    ``redeliver-due-webhooks`` sends it if its message is lost."""
    run_logged(
        lambda: game_finished_notify(match_id=match_id),
        what=f"the game.finished webhook of match {match_id}",
    )
    game_payout_request(match_id=match_id)
