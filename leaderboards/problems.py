"""Leaderboards' domain errors, each with a stable problem ``type`` (docs/api-errors.md,
docs/leaderboards.md). A malformed query (an unknown scope, board, period, family, a date
that is not one) is the generic ``validation-error``; an unknown currency is
``unknown-currency``."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from gin_platform.http.problems import Problem


class LeaderboardNetworkClosedProblem(Problem):
    slug = "leaderboard-network-closed"
    status = 403
    title = _("Your operator is not a member of the network")
    description = (
        "The network's leaderboards (`scope=network`) rank the players of the network's member "
        "operators at its tables and tournaments; the caller's operator is not a member (or "
        "there is no network). Its own leaderboards (`scope=operator`) are open."
    )
