"""Players' reports (docs/integrity.md "Player reports"): a player reports an opponent of a
match they played, from the API or the table page. The report is recorded, becomes a
``player_report`` alert grouped into a case like any other (integrity/services/cases.py),
and the reporter's operator gets ``integrity.report_received``. The reporter later sees its
status (received, under review, closed), never what the investigation found."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils.translation import gettext

from games import integrity_selectors as games_reads
from gin_platform.audit import audit_record
from gin_platform.i18n.formatting import choices_text, number_text
from gin_platform.models import Player
from gin_platform.tenancy.principals import Actor
from integrity.models import Alert, PlayerReport
from integrity.problems import ReportInvalidProblem
from integrity.services.cases import alert_group
from integrity.services.events import event_send, player_shown

TEXT_LENGTH = 1000
# A report is evidence for a person to weigh, not a statistic: it always raises its alert.
REPORT_SCORE = REPORT_THRESHOLD = 1.0


@transaction.atomic
def player_report_create(
    *,
    reporter: Player,
    match_id: object,
    reported_id: object = None,
    seat: int | None = None,
    reason: str,
    text: str,
    actor: Actor,
) -> PlayerReport:
    """Record the report, its alert (in a case) and the webhook to the reporter's operator.
    The opponent is named by ``seat`` (their position at the table, what the table page
    sends) or ``reported_id`` (their screen name, or player id)."""
    if reason not in PlayerReport.Reason.values:
        raise ReportInvalidProblem(
            gettext("Choose the reason among %(choices)s.")
            % {"choices": choices_text(list(PlayerReport.Reason.values))},
            field="reason",
        )
    if not isinstance(text, str) or len(text) > TEXT_LENGTH:
        raise ReportInvalidProblem(
            gettext("Your report's text is at most %(count)s characters.")
            % {"count": number_text(TEXT_LENGTH)},
            field="text",
        )
    opponents = games_reads.match_opponents(player=reporter, match_id=match_id)
    wanted = str(reported_id if reported_id is not None else "").strip().lower()
    reported = next(
        (
            opponent
            for position, opponent in opponents
            if (seat is not None and position == seat)
            or (wanted and wanted in (str(opponent.pk), (opponent.screen_name or "").lower()))
        ),
        None,
    )
    if reported is None:
        raise ReportInvalidProblem(
            gettext(
                "Report an opponent of this game: their seat, or their screen name at a network "
                "table."
            ),
            field="reported",
        )
    try:
        with transaction.atomic():
            report = PlayerReport.objects.create(
                reporter=reporter,
                reported=reported,
                match_id=int(str(match_id)),
                reason=reason,
                text=text.strip(),
            )
    except IntegrityError:
        raise ReportInvalidProblem(
            gettext("You have already reported this player for this game."), field="reported"
        ) from None
    alert = Alert.objects.create(
        signal=Alert.Signal.PLAYER_REPORT,
        player=reported,
        other_player=reporter,
        score=REPORT_SCORE,
        threshold=REPORT_THRESHOLD,
        reasoning={
            "report_id": report.pk,
            "match_id": report.match_id,
            "reason": reason,
            "text": report.text,
            "matches": [report.match_id],
        },
    )
    report.alert = alert
    report.save(update_fields=["alert"])
    audit_record(
        operator=reporter.operator,
        actor=actor,
        action="integrity.report_received",
        obj=report,
        data={"match_id": report.match_id, "reported": str(reported.pk), "reason": reason},
    )
    alert_group(alert=alert)
    report.refresh_from_db(fields=["status", "updated_at"])
    event_send(
        operator_ids={reporter.operator_id},
        event_type="integrity.report_received",
        data_for=lambda operator_id: {
            "report_id": report.pk,
            "reporter": player_shown(reporter, operator_id=operator_id),
            "reported": player_shown(reported, operator_id=operator_id),
            "match_id": report.match_id,
            "category": reason,
            "status": report.status,
            "received_at": report.created_at.isoformat(),
        },
    )
    return report
