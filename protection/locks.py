"""Row locks of player protection (one lock helper module per app). A play session is
locked alone, or after a table's or a match's lock (games' seating and move paths call
protection.play with theirs held); a service that holds a session's lock never takes a
table's or a match's: what it changes at a table, games does after the commit
(docs/player-protection.md "Locks"). A marker of harm's rule is locked alone, while its
settings change.
"""

from __future__ import annotations

from uuid import UUID

from protection.models import HarmRule, PlaySession


def lock_open_session(*, player_id: UUID) -> PlaySession | None:
    """The player's session not ended, locked, or None."""
    return (
        PlaySession.objects.select_for_update()
        .filter(player_id=player_id, ended_at__isnull=True)
        .first()
    )


def lock_session(*, session_id: int) -> PlaySession:
    return PlaySession.objects.select_for_update().get(pk=session_id)


def lock_harm_rule(*, code: str, params: dict) -> HarmRule:
    """The rule's row (made with ``params`` if the seeded rows are gone: a flushed test
    database), locked until the end of the transaction."""
    HarmRule.objects.get_or_create(code=code, defaults={"params": params})
    return HarmRule.objects.select_for_update().get(code=code)
