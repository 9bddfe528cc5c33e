"""API routes of the wallet app, mounted under /api/v1/ by gin_platform.project.urls."""

from gin_platform.api.urls import routes
from wallet.api import limit_views, staff_views, views

urlpatterns = routes(
    # Operator API key: one player's wallet (player_id is scoped to the operator).
    ("players/<str:player_id>/wallet", views.PlayerWalletView, "wallet"),
    ("players/<str:player_id>/deposits", views.DepositCreateView, "wallet-deposits"),
    ("players/<str:player_id>/withdrawals", views.WithdrawalCreateView, "wallet-withdrawals"),
    (
        "players/<str:player_id>/transactions",
        views.PlayerTransactionListView,
        "wallet-transactions",
    ),
    (
        "players/<str:player_id>/transactions/<str:transaction_id>",
        views.PlayerTransactionDetailView,
        "wallet-transaction",
    ),
    ("players/<str:player_id>/limits", limit_views.PlayerLimitsView, "wallet-limits"),
    (
        "players/<str:player_id>/limits/history",
        limit_views.PlayerLimitHistoryView,
        "wallet-limit-history",
    ),
    (
        "players/<str:player_id>/self-exclusion",
        limit_views.SelfExclusionView,
        "wallet-self-exclusion",
    ),
    ("players/<str:player_id>/time-out", limit_views.TimeOutView, "wallet-time-out"),
    (
        "players/<str:player_id>/wallet/practice-chips/top-up",
        views.PracticeTopUpCreateView,
        "wallet-practice-top-up",
    ),
    ("wallet/cashier-caps", views.OperatorCashierCapsView, "wallet-caps"),
    ("operators/me/wallet", views.OperatorWalletView, "operator-wallet"),
    # Player session token: their own wallet.
    ("me/wallet", views.MyWalletView, "me-wallet"),
    ("me/wallet/practice-chips/top-up", views.MyPracticeTopUpView, "me-wallet-practice-top-up"),
    ("me/wallet/transactions", views.MyTransactionListView, "me-wallet-transactions"),
    (
        "me/wallet/transactions/<str:transaction_id>",
        views.MyTransactionDetailView,
        "me-wallet-transaction",
    ),
    ("me/limits", limit_views.MyLimitsView, "me-limits"),
    ("me/time-out", limit_views.MyTimeOutView, "me-time-out"),
    ("me/self-exclusion", limit_views.MySelfExclusionView, "me-self-exclusion"),
    # Back-office staff.
    ("staff/exchange-rates", staff_views.StaffExchangeRateListCreateView, "staff-exchange-rates"),
    (
        "staff/operators/<str:operator_id>/cashier-caps/<str:currency>",
        staff_views.StaffCashierCapsView,
        "staff-cashier-caps",
    ),
    (
        "staff/ledger/transactions/<str:transaction_id>",
        staff_views.StaffTransactionView,
        "staff-ledger-transaction",
    ),
    (
        "staff/ledger/transactions/<str:transaction_id>/reversal",
        staff_views.StaffTransactionReversalView,
        "staff-ledger-reversal",
    ),
    (
        "staff/ledger/reconciliation",
        staff_views.StaffReconciliationView,
        "staff-ledger-reconciliation",
    ),
    ("staff/approvals", staff_views.StaffApprovalListCreateView, "staff-approvals"),
    ("staff/approvals/<str:approval_id>", staff_views.StaffApprovalDetailView, "staff-approval"),
    (
        "staff/approvals/<str:approval_id>/approve",
        staff_views.StaffApprovalApproveView,
        "staff-approval-approve",
    ),
    (
        "staff/approvals/<str:approval_id>/reject",
        staff_views.StaffApprovalRejectView,
        "staff-approval-reject",
    ),
)
