"""Row locks of the integrity app (one lock helper module per app). Every
``select_for_update`` of integrity is here; a service that takes several takes them in this
order, so two services never wait for each other:

    Alert  ->  Case  ->  Confiscation  ->  (wallet's account locks, in the posting)
"""

from __future__ import annotations

from typing import Any

from integrity.models import Alert, Case, Confiscation


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
