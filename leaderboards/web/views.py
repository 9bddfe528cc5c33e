"""The hosted leaderboard page: the table page's shell (games/web/views.py: the player's
language, its catalogue, the strict Content-Security-Policy, never cached, no referrer) with
the leaderboards' own template and module. No data in it: the page reads the API itself."""

from __future__ import annotations

from games.web.views import PlayPageView


class LeaderboardPageView(PlayPageView):
    """``GET /play/leaderboards``: the operator's and the network's boards, and the player's
    own setting to stay off them."""

    template_name = "leaderboards/play.html"
