"""Settlement listens for finished games (connected in SettlementConfig.ready)."""

from gin_platform.enqueue import on_commit_logged, run_logged


def enqueue_settlement(sender, match_id: int, **kwargs) -> None:
    """``games.signals.match_finished``: tell the operator, then ask for the settlement
    (settlement.ready: the game joins the next batch).

    games sends the signal after its commit; ``on_commit_logged`` still guards a caller
    that sends it inside a transaction, so the task can never see an uncommitted result.
    Neither step may fail the request that finished the game (it has committed): a broker
    error is logged and the ``settle-stragglers`` sweep queues the game again; the
    ``game.finished`` webhook row is written before anything is sent, so
    ``redeliver-due-webhooks`` sends it if its message is lost."""
    from settlement.ready import settlement_request
    from settlement.services import game_finished_notify

    run_logged(
        lambda: game_finished_notify(match_id=match_id),
        what=f"the game.finished webhook of match {match_id}",
    )
    on_commit_logged(
        lambda: settlement_request(match_id), what=f"the settlement request of match {match_id}"
    )
