"""Which matches an operator's players may watch: the game launch asks it (``mode: watch``,
``gin_platform.tenancy.services.launch_token_create``), the games app answers it.

A match is the games app's, and gin_platform never imports games (pyproject.toml,
import-linter). So gin_platform declares the question here and games registers its answer
when its app is ready (games/apps.py), the way settlement connects to the games app's
``match_finished`` signal. The answer is the rule of games' own watch endpoints (R11,
``games.launch_answers``, which asks ``games.selectors.watch_match_get``), so a launch
accepts exactly the matches its page can then show.
"""

from __future__ import annotations

from typing import Protocol

from django.core.exceptions import ImproperlyConfigured

from gin_platform.models import Operator


class MatchWatchable(Protocol):
    def __call__(self, *, operator: Operator, match_id: int) -> bool: ...


_ANSWER: list[MatchWatchable] = []  # the one registered answer


def register_match_watchable(answer: MatchWatchable) -> None:
    """Install the answer (games/apps.py); registering again replaces it."""
    _ANSWER[:] = [answer]


def match_watchable(*, operator: Operator, match_id: int) -> bool:
    """Whether a player of ``operator`` may watch match ``match_id``. False for a match
    that does not exist and for one the operator's players may not see alike."""
    if not _ANSWER:
        raise ImproperlyConfigured(
            "no installed app answers which matches may be watched (games registers it in "
            "GamesConfig.ready)"
        )
    return _ANSWER[0](operator=operator, match_id=match_id)
