"""The hosted tournament page: the table page's shell (games/web/views.py: the player's
language, its catalogue, the strict Content-Security-Policy, never cached, no referrer) with
the tournaments' own template and module. No data in it: the page reads the API and the
tournament's watch socket itself."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from games.web.views import PlayPageView


class TournamentPageView(PlayPageView):
    """``GET /play/tournaments`` (the tournament lobby) and ``/play/tournaments/{id}`` (one
    tournament): one page, which reads which from its address."""

    template_name = "tournaments/play.html"

    def get(self, request: HttpRequest, tournament_id: int | None = None) -> HttpResponse:
        return super().get(request)
