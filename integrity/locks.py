"""Row locks of the integrity app (one lock helper module per app). Every
``select_for_update`` of integrity is here; a service that takes several takes them in this
order, so two services never wait for each other:

    DetectionCursor (every job's, in job order)  ->  Alert  ->  Case  ->  Confiscation
    ->  (wallet's account locks, in the posting)

A link or a mark is locked alone (docs/integrity.md).
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.db.models import Q

from integrity.models import Alert, Case, Confiscation, DetectionCursor, LinkMark, PlayerLink


def detection_cursor_lock(*, job: str) -> DetectionCursor:
    """Lock every detection cursor, in job order, and answer ``job``'s: the jobs add to the
    same per-player and per-pair figures, so one runs at a time, and a second run of the
    same job waits for the first and then reads on from where it stopped. Inside the
    caller's transaction."""
    for name in DetectionCursor.JOBS:
        DetectionCursor.objects.get_or_create(job=name)
    cursors = list(
        DetectionCursor.objects.select_for_update()
        .filter(job__in=DetectionCursor.JOBS)
        .order_by("job")
    )
    return next(cursor for cursor in cursors if cursor.job == job)


def lock_case(*, case_id: Any) -> Case:
    """Lock a case: its alerts, notes, actions and status change one at a time."""
    return Case.objects.select_for_update(of=("self",)).get(pk=case_id)


def lock_confiscation(*, confiscation_id: Any) -> Confiscation:
    """Lock a confiscation request before any account lock: two approvers of one request
    queue here, and it executes once."""
    return Confiscation.objects.select_for_update(of=("self",)).get(pk=confiscation_id)


def lock_alert(*, alert_id: Any) -> Alert:
    """Lock an alert while it is put in a case: two grouping runs put it in one case."""
    return Alert.objects.select_for_update(of=("self",)).get(pk=alert_id)


def lock_player_link(*, link_id: int) -> PlayerLink:
    """The link row, locked until the end of the transaction."""
    return PlayerLink.objects.select_for_update().get(pk=link_id)


def lock_player_link_of(*, low: UUID, high: UUID, kind: str) -> PlayerLink | None:
    """The pair's link of ``kind`` (``low`` < ``high``), locked; None when there is none."""
    return (
        PlayerLink.objects.select_for_update()
        .filter(player_low_id=low, player_high_id=high, kind=kind)
        .first()
    )


def lock_link_mark(*, mark_id: int) -> LinkMark:
    """The mark row, locked until the end of the transaction."""
    return LinkMark.objects.select_for_update().get(pk=mark_id)


def lock_open_alert(*, signal: str, player_id: Any, other_player_id: Any) -> Alert | None:
    """Lock the open alert of ``signal`` about a player (``other_player_id`` None) or a pair
    (in either order), if there is one: a detection run updates it while a grouping run may
    be putting it in a case."""
    rows = Alert.objects.select_for_update().filter(signal=signal, status=Alert.Status.OPEN)
    if other_player_id is None:
        rows = rows.filter(player_id=player_id, other_player__isnull=True)
    else:
        a, b = player_id, other_player_id
        rows = rows.filter(Q(player_id=a, other_player_id=b) | Q(player_id=b, other_player_id=a))
    return rows.first()
