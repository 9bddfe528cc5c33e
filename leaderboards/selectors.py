"""The leaderboards (R15, docs/leaderboards.md): who may be on a board, and one board's
ranked rows for a period.

A board holds only players who may be shown: active, with a screen name (the only name a
board ever shows), not opted out. An operator's board holds its own players; the network's
the players of every member operator of the caller's mode (live or sandbox) who played at
the network's tables or in its tournaments in the period. The ranking itself is the data's
owner's: ``ratings.selectors.rating_board``, ``tournaments.selectors.winnings_board``, each
one statement per page.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet

from gin_platform.models import NetworkMembership, Operator, Player
from gin_platform.tenancy.selectors import network_membership_get, network_operator_id
from leaderboards.periods import Period
from leaderboards.problems import LeaderboardNetworkClosedProblem
from ratings.selectors import rating_board
from tournaments.selectors import winnings_board

OPERATOR, NETWORK = "operator", "network"
SCOPES = (OPERATOR, NETWORK)
RATING, WINNINGS = "rating", "winnings"
BOARDS = (RATING, WINNINGS)


@dataclass(frozen=True)
class Board:
    """One board as asked: its scope, kind, period and family (rating) or currency
    (winnings), and its rows (``rank`` numbered over the whole board, unordered)."""

    scope: str
    board: str
    period: Period
    family: str | None
    currency: str | None
    rows: QuerySet[Any, Any]


def board_players(*, scope: str, operator: Operator) -> QuerySet[Player]:
    """The players a board of ``scope`` may show to ``operator``'s side: active, named by a
    screen name, not opted out; its own, or every member operator's of its mode. A network
    board for an operator outside the network is refused (403)."""
    shown = Player.objects.filter(
        status=Player.Status.ACTIVE, screen_name__isnull=False, leaderboard_opt_out=False
    )
    if scope == OPERATOR:
        return shown.filter(operator=operator)
    membership = network_membership_get(operator=operator)
    if network_operator_id() is None or membership is None or not membership.is_member:
        raise LeaderboardNetworkClosedProblem()
    members = NetworkMembership.objects.filter(left_at__isnull=True).values("operator_id")
    return shown.filter(operator_id__in=members, operator__is_sandbox=operator.is_sandbox)


def leaderboard(
    *,
    operator: Operator,
    scope: str,
    board: str,
    period: Period,
    family: str,
    currency: str,
) -> Board:
    """The board of ``scope`` and ``board`` for ``period`` as ``operator``'s side sees it:
    by rating in ``family``, or by net tournament winnings in ``currency``."""
    players = board_players(scope=scope, operator=operator)
    network = network_operator_id() if scope == NETWORK else None
    rows: QuerySet[Any, Any]
    if board == RATING:
        rows = rating_board(
            family=family,
            since=period.since,
            until=period.until,
            players=players,
            network_operator_id=network,
        )
        return Board(scope, board, period, family, None, rows)
    rows = winnings_board(
        currency=currency,
        since=period.since,
        until=period.until,
        players=players,
        network_operator_id=network,
    )
    return Board(scope, board, period, None, currency, rows)
