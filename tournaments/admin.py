"""Back office: staff's four-eyes requests on tournaments (docs/backoffice.md), read only;
approve or reject the selected ones through the same services as the staff API (the
proposer cannot decide their own; each decision is audited by the service). Proposals are
made over the staff API."""

from django.contrib import admin, messages

from gin_platform.admin.audited import ReadOnlyAdmin
from gin_platform.http.problems import Problem
from tournaments.models import TournamentRequest
from tournaments.services.staff import tournament_request_approve, tournament_request_reject


@admin.register(TournamentRequest)
class TournamentRequestAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "kind",
        "operator",
        "tournament",
        "status",
        "reason",
        "proposed_by",
        "proposed_at",
        "decided_by",
        "decided_at",
        "result_ref",
    )
    list_filter = ("status", "kind")
    list_select_related = ("operator", "tournament", "proposed_by", "decided_by")
    actions = ("approve_selected", "reject_selected")

    def has_decide_permission(self, request) -> bool:
        user = request.user
        return any(user.has_perm(f"tournaments.approve_{kind}") for kind in TournamentRequest.Kind)

    def _decide(self, request, queryset, decide, verb: str) -> None:
        done = 0
        for row in queryset.order_by("pk"):
            try:
                decide(tournament_request=row, user=request.user)
                done += 1
            except Problem as problem:
                self.message_user(request, f"#{row.pk}: {problem.detail}", messages.ERROR)
        if done:
            self.message_user(request, f"{done} request(s) {verb}", messages.SUCCESS)

    @admin.action(description="Approve and execute the selected requests", permissions=["decide"])
    def approve_selected(self, request, queryset) -> None:
        self._decide(request, queryset, tournament_request_approve, "approved and executed")

    @admin.action(description="Reject the selected requests", permissions=["decide"])
    def reject_selected(self, request, queryset) -> None:
        self._decide(request, queryset, tournament_request_reject, "rejected")
