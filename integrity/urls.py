"""API routes of the integrity app, mounted under /api/v1/ by gin_platform.project.urls."""

from gin_platform.api.urls import routes
from integrity.api import operator_views, player_views, staff_views

urlpatterns = routes(
    # Operator API key: its players' links and identifiers (docs/integrity.md).
    (
        "players/<str:player_id>/links",
        operator_views.PlayerLinkListCreateView,
        "player-link-list",
    ),
    (
        "players/<str:player_id>/links/<str:link_id>",
        operator_views.PlayerLinkDetailView,
        "player-link-detail",
    ),
    (
        "players/<str:player_id>/identifiers",
        operator_views.PlayerIdentifierCreateView,
        "player-identifier-create",
    ),
    # Player session token: their own reports.
    ("me/reports", player_views.MyReportListCreateView, "me-reports"),
    ("me/reports/<str:report_id>", player_views.MyReportDetailView, "me-report"),
    # Back-office staff (the risk role).
    ("staff/integrity/alerts", staff_views.StaffAlertListView, "staff-integrity-alerts"),
    (
        "staff/integrity/alerts/<str:alert_id>/dismiss",
        staff_views.StaffAlertDismissView,
        "staff-integrity-alert-dismiss",
    ),
    (
        "staff/integrity/alerts/group",
        staff_views.StaffAlertGroupView,
        "staff-integrity-alerts-group",
    ),
    ("staff/integrity/cases", staff_views.StaffCaseListCreateView, "staff-integrity-cases"),
    (
        "staff/integrity/cases/<str:case_id>",
        staff_views.StaffCaseDetailView,
        "staff-integrity-case",
    ),
    (
        "staff/integrity/cases/<str:case_id>/alerts",
        staff_views.StaffCaseAlertsView,
        "staff-integrity-case-alerts",
    ),
    (
        "staff/integrity/cases/<str:case_id>/notes",
        staff_views.StaffCaseNoteView,
        "staff-integrity-case-notes",
    ),
    (
        "staff/integrity/cases/<str:case_id>/actions",
        staff_views.StaffCaseActionView,
        "staff-integrity-case-actions",
    ),
    (
        "staff/integrity/cases/<str:case_id>/close",
        staff_views.StaffCaseCloseView,
        "staff-integrity-case-close",
    ),
    (
        "staff/integrity/cases/<str:case_id>/hands/<str:match_id>/<str:number>",
        staff_views.StaffCaseHandView,
        "staff-integrity-case-hand",
    ),
    (
        "staff/integrity/cases/<str:case_id>/confiscations",
        staff_views.StaffConfiscationCreateView,
        "staff-integrity-confiscations",
    ),
    (
        "staff/integrity/confiscations/<str:confiscation_id>",
        staff_views.StaffConfiscationDetailView,
        "staff-integrity-confiscation",
    ),
    (
        "staff/integrity/confiscations/<str:confiscation_id>/approve",
        staff_views.StaffConfiscationApproveView,
        "staff-integrity-confiscation-approve",
    ),
    (
        "staff/integrity/confiscations/<str:confiscation_id>/reject",
        staff_views.StaffConfiscationRejectView,
        "staff-integrity-confiscation-reject",
    ),
)
