"""Player protection's rows for other tests' worlds (the sandbox's, the fuzzer's): a play
session with a reality check shown and waiting for its answer."""

from __future__ import annotations

from django.utils import timezone

from gin_platform.models import Player
from protection.models import PlaySession, RealityCheck
from protection.services.reality_checks import reality_check_show


def shown_reality_check(player: Player) -> RealityCheck:
    now = timezone.now()
    PlaySession.objects.create(
        player=player,
        operator_id=player.operator_id,
        jurisdiction=player.operator.jurisdiction,
        currency=player.wallet_currency,
        started_at=now,
        reality_check_minutes=60,
        next_reality_check_at=now,
    )
    check, _ = reality_check_show(player_id=player.pk, now=now)
    assert check is not None
    return check
