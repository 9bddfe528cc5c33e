"""API routes of the settlement app, mounted under /api/v1/ by gin_platform.project.urls."""

from gin_platform.api.urls import routes
from settlement.api import network_views, views

urlpatterns = routes(
    ("settlements", views.SettlementListView, "settlement-list"),
    ("settlements/<str:match_id>", views.SettlementDetailView, "settlement-detail"),
    ("reports/daily", views.OperatorReportView, "report-daily"),
    ("network/statement", network_views.OperatorNetworkStatementView, "network-statement"),
    (
        "backoffice/network/statement",
        network_views.StaffNetworkStatementView,
        "staff-network-statement",
    ),
    ("backoffice/reports/daily", views.StaffReportView, "staff-report-daily"),
    ("backoffice/reconciliation", views.StaffReconciliationView, "staff-reconciliation"),
)
