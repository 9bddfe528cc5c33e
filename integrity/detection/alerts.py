"""What a finding changes: the open alert of its signal and subject (raised when the score
reaches the threshold, then kept up to date by later runs until the risk team takes it), and
for strong, repeated chip dumping the platform's own ``transfers`` link."""

from __future__ import annotations

from datetime import datetime

from gin_platform.audit import audit_record
from gin_platform.tenancy.principals import Actor
from integrity.detection.findings import Finding
from integrity.locks import lock_open_alert
from integrity.models import Alert, LinkKind, PairStats, PlayerLink

ACTOR = Actor.system("integrity.detection")
RAISED, UPDATED = "raised", "updated"


def alert_record(*, finding: Finding, now: datetime) -> str:
    """Raise the finding's alert, or update the open one of its signal and subject (a pair
    in either order); RAISED, UPDATED or "" (under the threshold, nothing open). Inside the
    job's transaction."""
    alert = lock_open_alert(
        signal=finding.signal, player_id=finding.player, other_player_id=finding.other_player
    )
    if alert is None:
        if not finding.raised:
            return ""
        alert = Alert.objects.create(
            signal=finding.signal,
            player_id=finding.player,
            other_player_id=finding.other_player,
            score=finding.score,
            threshold=finding.threshold,
            reasoning=finding.reasoning,
            created_at=now,
            updated_at=now,
        )
        audit_record(
            actor=ACTOR,
            action="integrity.alert_raised",
            obj=alert,
            operator=None,
            data={"signal": finding.signal, "score": round(finding.score, 3)},
        )
        return RAISED
    alert.player_id = finding.player
    alert.other_player_id = finding.other_player
    alert.score = finding.score
    alert.threshold = finding.threshold
    alert.reasoning = finding.reasoning
    alert.updated_at = now
    alert.save(
        update_fields=("player", "other_player", "score", "threshold", "reasoning", "updated_at")
    )
    return UPDATED


def transfers_link_record(*, finding: Finding, pair: PairStats, now: datetime) -> bool:
    """Link the pair (``transfers``, source ``platform``) unless a link of that kind exists
    already, in force or ended by the risk team (whose decision stands). Whether one was
    made."""
    link, created = PlayerLink.objects.get_or_create(
        player_low_id=pair.player_low_id,
        player_high_id=pair.player_high_id,
        kind=LinkKind.TRANSFERS,
        defaults={
            "source": "platform",
            "evidence": {"signal": finding.signal, **finding.reasoning},
            "created_at": now,
        },
    )
    if created:
        audit_record(
            actor=ACTOR,
            action="integrity.link_created",
            obj=link,
            operator=None,
            data={"kind": LinkKind.TRANSFERS, "score": round(finding.score, 3)},
        )
    return created
