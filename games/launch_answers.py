"""What the games app answers the platform's game launch (gin_platform/tenancy/watchable.py):
gin_platform does not import games, so games registers these in its AppConfig (games/apps.py).
"""

from __future__ import annotations

from games.selectors import watch_match_get
from gin_platform.http.problems import NotFoundProblem
from gin_platform.models import Operator


def match_watchable(*, operator: Operator, match_id: int) -> bool:
    """Whether a player of ``operator`` may watch the match: exactly when the watch
    endpoints would show it (``selectors.watch_match_get``), so a launch in watch mode takes
    the matches its page can show. A missing match and another operator's are both False."""
    try:
        watch_match_get(operator=operator, match_id=match_id)
    except NotFoundProblem:
        return False
    return True
