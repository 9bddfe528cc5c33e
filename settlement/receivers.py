"""Settlement listens for finished games (connected in SettlementConfig.ready)."""

from gin_platform.enqueue import enqueue_on_commit, run_logged


def enqueue_settlement(sender, match_id: int, **kwargs) -> None:
    """``games.signals.match_finished``: tell the operator, then queue the settlement.

    games sends the signal after its commit; ``enqueue_on_commit`` still guards a caller
    that sends it inside a transaction, so the task can never see an uncommitted result.
    Neither step may fail the request that finished the game (it has committed): a broker
    error is logged and the ``settle-stragglers`` sweep queues the game again; the
    ``game.finished`` webhook row is written before anything is sent, so
    ``redeliver-due-webhooks`` sends it if its message is lost."""
    from settlement.services import game_finished_notify
    from settlement.tasks import settle_game

    run_logged(
        lambda: game_finished_notify(match_id=match_id),
        what=f"the game.finished webhook of match {match_id}",
    )
    enqueue_on_commit(settle_game, match_id)
