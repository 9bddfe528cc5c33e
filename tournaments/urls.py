"""API routes of tournaments, mounted under /api/v1/ by gin_platform.project.urls."""

from gin_platform.api.urls import routes
from tournaments.api import staff_views, statement_views, views

urlpatterns = routes(
    # An operator API key or a player session token: the lobby, a tournament, its bracket.
    ("tournaments", views.TournamentListView, "tournaments"),
    ("tournaments/<str:tournament_id>", views.TournamentDetailView, "tournament"),
    ("tournaments/<str:tournament_id>/bracket", views.TournamentBracketView, "tournament-bracket"),
    # Operator API key: its players' entries, registering one in one call, cancelling.
    ("tournaments/<str:tournament_id>/entries", views.TournamentEntriesView, "tournament-entries"),
    (
        "tournaments/<str:tournament_id>/entries/<str:player_id>",
        views.TournamentEntryDetailView,
        "tournament-entry",
    ),
    (
        "tournaments/<str:tournament_id>/entries/<str:player_id>/statement",
        statement_views.TournamentEntryStatementView,
        "tournament-entry-statement",
    ),
    ("tournaments/<str:tournament_id>/cancel", views.TournamentCancelView, "tournament-cancel"),
    # Player session token: registering, withdrawing, taking the seat, their tournaments.
    (
        "tournaments/<str:tournament_id>/registration",
        views.MyRegistrationView,
        "tournament-registration",
    ),
    ("tournaments/<str:tournament_id>/seat", views.MySeatView, "tournament-seat"),
    ("me/tournaments", views.MyTournamentsView, "me-tournaments"),
    (
        "me/tournaments/<str:tournament_id>/statement",
        statement_views.MyTournamentStatementView,
        "me-tournament-statement",
    ),
    # Back-office staff: network tournaments and cancellations, through four eyes.
    ("staff/tournaments", staff_views.StaffTournamentCreateView, "staff-tournaments"),
    (
        "staff/tournament-requests",
        staff_views.StaffTournamentRequestListView,
        "staff-tournament-requests",
    ),
    (
        "staff/tournament-requests/<str:request_id>",
        staff_views.StaffTournamentRequestDetailView,
        "staff-tournament-request",
    ),
    (
        "staff/tournament-requests/<str:request_id>/approve",
        staff_views.StaffTournamentRequestApproveView,
        "staff-tournament-request-approve",
    ),
    (
        "staff/tournament-requests/<str:request_id>/reject",
        staff_views.StaffTournamentRequestRejectView,
        "staff-tournament-request-reject",
    ),
    (
        "staff/tournaments/<str:tournament_id>/cancel",
        staff_views.StaffTournamentCancelView,
        "staff-tournament-cancel",
    ),
)
