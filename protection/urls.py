"""API routes of the protection app, mounted under /api/v1/ by gin_platform.project.urls."""

from gin_platform.api.urls import routes
from protection.api import harm_views

urlpatterns = routes(
    # Back-office staff (the risk role): the markers of harm (docs/player-protection.md).
    (
        "staff/protection/harm-rules",
        harm_views.StaffHarmRuleListView,
        "staff-protection-harm-rules",
    ),
    (
        "staff/protection/harm-rules/<str:code>",
        harm_views.StaffHarmRuleDetailView,
        "staff-protection-harm-rule",
    ),
    ("staff/protection/flags", harm_views.StaffHarmFlagListView, "staff-protection-flags"),
)
