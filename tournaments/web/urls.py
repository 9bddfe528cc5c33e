"""Routes of the hosted tournament page, mounted at /play/tournaments by
gin_platform.project.urls (beside the table page's /play/)."""

from django.urls import path

from tournaments.web import views

urlpatterns = [
    path("", views.TournamentPageView.as_view(), name="play-tournaments"),
    path("/<int:tournament_id>", views.TournamentPageView.as_view(), name="play-tournament"),
]
