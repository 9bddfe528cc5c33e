"""Cases (docs/integrity.md "Cases"): alerts grouped into cases, automatically (an alert or
a report about players an open case is already about joins it; otherwise it opens one) or
by hand (a risk user opens a case from alerts, or adds alerts to one), the notes, and the
case's closing. Each change is atomic, with its audit row; the ``integrity.case_opened``
and ``integrity.case_closed`` webhooks go to the operators of the case's players."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone

from gin_platform.audit import audit_record
from gin_platform.models import Player
from gin_platform.tenancy.principals import Actor, actor_for
from integrity import selectors
from integrity.locks import lock_alert, lock_case
from integrity.models import Alert, Case, CaseNote, PlayerReport
from integrity.problems import CaseActionInvalidProblem, CaseClosedProblem
from integrity.services.events import event_send, player_shown

# Who groups alerts and opens cases on its own (the periodic job, a player's report).
INTEGRITY_ACTOR = Actor.system("integrity")
TITLE_LENGTH = 200
TEXT_LENGTH = 4000


def check_text(value: object, field: str, *, length: int = TEXT_LENGTH) -> str:
    """A non-empty text of at most ``length`` characters, stripped."""
    if not isinstance(value, str) or not value.strip():
        raise CaseActionInvalidProblem(f"{field} must be a non-empty string", field=field)
    if len(value) > length:
        raise CaseActionInvalidProblem(f"{field} is longer than {length}", field=field)
    return value.strip()


def check_open(case: Case) -> None:
    if case.status != Case.Status.OPEN:
        raise CaseClosedProblem(f"case {case.pk} is closed")


def _subjects(alert: Alert) -> set[Any]:
    return {alert.player_id} | ({alert.other_player_id} if alert.other_player_id else set())


def _attach(case: Case, alerts: Sequence[Alert]) -> None:
    """Put ``alerts`` in ``case`` (locked by the caller); the reports behind them go under
    review."""
    now = timezone.now()
    for alert in alerts:
        if alert.case_id is not None and alert.case_id != case.pk:
            raise CaseActionInvalidProblem(
                f"alert {alert.pk} is in case {alert.case_id} already", field="alert_ids"
            )
    ids = [alert.pk for alert in alerts]
    Alert.objects.filter(pk__in=ids).update(case=case, status=Alert.Status.IN_CASE, updated_at=now)
    PlayerReport.objects.filter(alert_id__in=ids, status=PlayerReport.Status.RECEIVED).update(
        status=PlayerReport.Status.UNDER_REVIEW, updated_at=now
    )
    for alert in alerts:
        alert.case, alert.status = case, Alert.Status.IN_CASE


def _opened_event(case: Case, alerts: Sequence[Alert]) -> None:
    players = selectors.case_players(case)
    signals = sorted({alert.signal for alert in alerts})
    event_send(
        operator_ids={player.operator_id for player in players},
        event_type="integrity.case_opened",
        data_for=lambda operator_id: {
            "case_id": case.pk,
            "signals": signals,
            "players": [player_shown(p, operator_id=operator_id) for p in players],
            "opened_at": case.created_at.isoformat(),
        },
    )


@transaction.atomic
def case_open(*, alerts: Sequence[Alert], title: str, opened_by: str, actor: Actor) -> Case:
    """Open a case from ``alerts`` (none of them in another case). ``opened_by``:
    ``detection``, ``report`` or ``staff:<id>``."""
    if not alerts:
        raise CaseActionInvalidProblem("a case starts from at least one alert", field="alert_ids")
    title = check_text(title, "title", length=TITLE_LENGTH)
    case = Case.objects.create(title=title, opened_by=opened_by)
    _attach(case, alerts)
    audit_record(
        operator=None,
        actor=actor,
        action="integrity.case_opened",
        obj=case,
        data={"alerts": [alert.pk for alert in alerts], "opened_by": opened_by},
    )
    _opened_event(case, alerts)
    return case


def case_open_by_staff(*, alerts: Sequence[Alert], title: str, user: Any) -> Case:
    """A risk user opens a case by hand from alerts."""
    return case_open(
        alerts=alerts, title=title, opened_by=f"staff:{user.pk}", actor=actor_for(user)
    )


@transaction.atomic
def case_alerts_add(*, case: Case, alerts: Sequence[Alert], user: Any) -> Case:
    """Add alerts to an open case by hand (an alert in another case is refused)."""
    locked = lock_case(case_id=case.pk)
    check_open(locked)
    if not alerts:
        raise CaseActionInvalidProblem("name at least one alert", field="alert_ids")
    _attach(locked, alerts)
    audit_record(
        operator=None,
        actor=actor_for(user),
        action="integrity.case_alerts_added",
        obj=locked,
        data={"alerts": [alert.pk for alert in alerts]},
    )
    return locked


@transaction.atomic
def alert_group(*, alert: Alert, actor: Actor = INTEGRITY_ACTOR) -> Case:
    """Put one open alert in a case: the oldest open case already about all of its players,
    else a new one (opened by ``detection``, or ``report`` for a player's report). An alert
    a concurrent run put in a case already stays there."""
    alert = lock_alert(alert_id=alert.pk)
    if alert.case_id is not None:
        return lock_case(case_id=alert.case_id)
    case = selectors.open_case_with_players(player_ids=_subjects(alert))
    if case is None:
        names = ", ".join(sorted(str(pk)[:8] for pk in _subjects(alert)))
        opened_by = "report" if alert.signal == Alert.Signal.PLAYER_REPORT else "detection"
        return case_open(
            alerts=[alert],
            title=f"{alert.get_signal_display()}: {names}",
            opened_by=opened_by,
            actor=actor,
        )
    locked = lock_case(case_id=case.pk)
    _attach(locked, [alert])
    audit_record(
        operator=None,
        actor=actor,
        action="integrity.case_alerts_added",
        obj=locked,
        data={"alerts": [alert.pk], "grouped": True},
    )
    return locked


def alerts_group(*, actor: Actor = INTEGRITY_ACTOR) -> int:
    """Group every open alert that is in no case (the periodic job, and after detection
    runs); each alert in its own transaction. How many were grouped."""
    count = 0
    for alert in selectors.open_alerts_to_group():
        alert_group(alert=alert, actor=actor)
        count += 1
    return count


@transaction.atomic
def alert_dismiss(*, alert: Alert, reason: str, user: Any) -> Alert:
    """Dismiss an open alert that is in no case (a false positive): it joins no case, and
    the next detection run may raise a new one about the same subject."""
    locked = lock_alert(alert_id=alert.pk)
    if locked.status != Alert.Status.OPEN or locked.case_id is not None:
        raise CaseActionInvalidProblem(
            f"alert {locked.pk} is {locked.status}: only an open alert is dismissed",
            field="alert_id",
        )
    reason = check_text(reason, "reason")
    locked.status = Alert.Status.DISMISSED
    locked.updated_at = timezone.now()
    locked.save(update_fields=["status", "updated_at"])
    audit_record(
        operator=None,
        actor=actor_for(user),
        action="integrity.alert_dismissed",
        obj=locked,
        data={"reason": reason},
    )
    return locked


@transaction.atomic
def case_note_add(*, case: Case, text: str, user: Any) -> CaseNote:
    locked = lock_case(case_id=case.pk)
    check_open(locked)
    note = CaseNote.objects.create(case=locked, author=user, text=check_text(text, "text"))
    audit_record(
        operator=None,
        actor=actor_for(user),
        action="integrity.case_note_added",
        obj=locked,
        data={"note": note.pk},
    )
    return note


@transaction.atomic
def case_close(*, case: Case, resolution: str, user: Any) -> Case:
    """Close the case with its resolution (for the risk team; operators get the outcome
    only). A pending confiscation is left to be decided. The reports behind it close."""
    locked = lock_case(case_id=case.pk)
    check_open(locked)
    locked.resolution = check_text(resolution, "resolution")
    locked.status = Case.Status.CLOSED
    locked.closed_at = timezone.now()
    locked.save(update_fields=["resolution", "status", "closed_at"])
    PlayerReport.objects.filter(alert__case=locked).update(
        status=PlayerReport.Status.CLOSED, updated_at=locked.closed_at
    )
    audit_record(
        operator=None,
        actor=actor_for(user),
        action="integrity.case_closed",
        obj=locked,
        data={"resolution": locked.resolution},
    )
    players = selectors.case_players(locked)
    actions = sorted(set(selectors.case_actions(locked).values_list("kind", flat=True)))
    event_send(
        operator_ids={player.operator_id for player in players},
        event_type="integrity.case_closed",
        data_for=lambda operator_id: {
            "case_id": locked.pk,
            "players": [player_shown(p, operator_id=operator_id) for p in players],
            "actions": actions,
            "closed_at": locked.closed_at.isoformat() if locked.closed_at else None,
        },
    )
    return locked


def check_case_player(case: Case, player_id: object, field: str) -> Player:
    """One of the case's players (``case-action-invalid`` naming ``field`` otherwise)."""
    for player in selectors.case_players(case):
        if str(player.pk) == str(player_id):
            return player
    raise CaseActionInvalidProblem(f"{field} is not one of the case's players", field=field)
