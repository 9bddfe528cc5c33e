"""The player's leaderboard setting (R15, docs/leaderboards.md): staying off every board, or
coming back. The player's own choice, audited like every change of a player's settings."""

from __future__ import annotations

from django.db import transaction

from gin_platform.audit import audit_record
from gin_platform.locks import lock_player
from gin_platform.models import Player
from gin_platform.tenancy.principals import Actor


@transaction.atomic
def player_leaderboard_opt_out_set(*, player: Player, opt_out: bool, actor: Actor) -> Player:
    """The player stays off every leaderboard (``opt_out``), or comes back, from the next
    read of any board on. Setting what is set already changes nothing and writes no row."""
    locked = lock_player(player.pk)
    if locked.leaderboard_opt_out == opt_out:
        return locked
    locked.leaderboard_opt_out = opt_out
    locked.save(update_fields=["leaderboard_opt_out"])
    audit_record(
        actor=actor,
        action="player.leaderboard_opt_out_set",
        obj=locked,
        operator=locked.operator,
        data={"leaderboard_opt_out": [not opt_out, opt_out]},
    )
    return locked
