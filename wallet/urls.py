"""API routes of the wallet app, mounted under /api/v1/ by gin_platform.project.urls."""

from django.urls import path

from wallet.api import staff_views, views

urlpatterns = [
    # Operator API key: one player's wallet (player_id is scoped to the operator).
    path("players/<str:player_id>/wallet", views.PlayerWalletView.as_view(), name="wallet"),
    path(
        "players/<str:player_id>/deposits",
        views.DepositCreateView.as_view(),
        name="wallet-deposits",
    ),
    path(
        "players/<str:player_id>/withdrawals",
        views.WithdrawalCreateView.as_view(),
        name="wallet-withdrawals",
    ),
    path(
        "players/<str:player_id>/transactions",
        views.PlayerTransactionListView.as_view(),
        name="wallet-transactions",
    ),
    path(
        "players/<str:player_id>/transactions/<str:transaction_id>",
        views.PlayerTransactionDetailView.as_view(),
        name="wallet-transaction",
    ),
    path("players/<str:player_id>/limits", views.PlayerLimitsView.as_view(), name="wallet-limits"),
    path(
        "players/<str:player_id>/limits/history",
        views.PlayerLimitHistoryView.as_view(),
        name="wallet-limit-history",
    ),
    path(
        "players/<str:player_id>/self-exclusion",
        views.SelfExclusionView.as_view(),
        name="wallet-self-exclusion",
    ),
    path(
        "players/<str:player_id>/wallet/practice-chips/top-up",
        views.PracticeTopUpCreateView.as_view(),
        name="wallet-practice-top-up",
    ),
    path("wallet/cashier-caps", views.OperatorCashierCapsView.as_view(), name="wallet-caps"),
    path("operators/me/wallet", views.OperatorWalletView.as_view(), name="operator-wallet"),
    # Player session token: their own wallet.
    path("me/wallet", views.MyWalletView.as_view(), name="me-wallet"),
    path(
        "me/wallet/practice-chips/top-up",
        views.MyPracticeTopUpView.as_view(),
        name="me-wallet-practice-top-up",
    ),
    path(
        "me/wallet/transactions",
        views.MyTransactionListView.as_view(),
        name="me-wallet-transactions",
    ),
    path(
        "me/wallet/transactions/<str:transaction_id>",
        views.MyTransactionDetailView.as_view(),
        name="me-wallet-transaction",
    ),
    # Back-office staff.
    path(
        "staff/exchange-rates",
        staff_views.StaffExchangeRateListCreateView.as_view(),
        name="staff-exchange-rates",
    ),
    path(
        "staff/operators/<str:operator_id>/cashier-caps/<str:currency>",
        staff_views.StaffCashierCapsView.as_view(),
        name="staff-cashier-caps",
    ),
    path(
        "staff/ledger/transactions/<str:transaction_id>",
        staff_views.StaffTransactionView.as_view(),
        name="staff-ledger-transaction",
    ),
    path(
        "staff/ledger/transactions/<str:transaction_id>/reversal",
        staff_views.StaffTransactionReversalView.as_view(),
        name="staff-ledger-reversal",
    ),
    path(
        "staff/ledger/reconciliation",
        staff_views.StaffReconciliationView.as_view(),
        name="staff-ledger-reconciliation",
    ),
    path(
        "staff/approvals",
        staff_views.StaffApprovalListCreateView.as_view(),
        name="staff-approvals",
    ),
    path(
        "staff/approvals/<str:approval_id>",
        staff_views.StaffApprovalDetailView.as_view(),
        name="staff-approval",
    ),
    path(
        "staff/approvals/<str:approval_id>/approve",
        staff_views.StaffApprovalApproveView.as_view(),
        name="staff-approval-approve",
    ),
    path(
        "staff/approvals/<str:approval_id>/reject",
        staff_views.StaffApprovalRejectView.as_view(),
        name="staff-approval-reject",
    ),
]
