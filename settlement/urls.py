"""API routes of the settlement app, mounted under /api/v1/ by gin_platform.project.urls."""

from django.urls import path

from settlement.api import network_views, views

urlpatterns = [
    path("settlements", views.SettlementListView.as_view(), name="settlement-list"),
    path(
        "settlements/<str:match_id>",
        views.SettlementDetailView.as_view(),
        name="settlement-detail",
    ),
    path("reports/daily", views.OperatorReportView.as_view(), name="report-daily"),
    path(
        "network/statement",
        network_views.OperatorNetworkStatementView.as_view(),
        name="network-statement",
    ),
    path(
        "backoffice/network/statement",
        network_views.StaffNetworkStatementView.as_view(),
        name="staff-network-statement",
    ),
    path("backoffice/reports/daily", views.StaffReportView.as_view(), name="staff-report-daily"),
    path(
        "backoffice/reconciliation",
        views.StaffReconciliationView.as_view(),
        name="staff-reconciliation",
    ),
]
