"""Settlement listens for finished games (connected in SettlementConfig.ready)."""

from django.db import transaction


def enqueue_settlement(sender, match_id: int, **kwargs) -> None:
    from settlement.services import game_finished_notify
    from settlement.tasks import settle_game

    game_finished_notify(match_id=match_id)
    # games sends the signal after its commit; on_commit still guards a caller that sends it
    # inside a transaction, so the task can never see an uncommitted result.
    transaction.on_commit(lambda: settle_game.delay(match_id))
