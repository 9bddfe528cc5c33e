"""What the leaderboards API shows, and to whom (docs/leaderboards.md "API").

A row is a screen name, a rank and the board's figures, never more: no display name, no
reference, no operator. A player's own row says ``me``; an operator's own players carry their
``player_id`` (its own rows, on the network's board too); nobody else's ever does.
"""

from __future__ import annotations

from typing import Any

from gin_platform.money import money_dict
from leaderboards.selectors import RATING, Board

RATING_PLACES = 2  # as every rating is shown (docs/ratings.md "API")


def period_dict(board: Board) -> dict[str, Any]:
    period = board.period
    return {
        "kind": period.kind,
        "label": period.label,
        "starts_at": period.since,
        "ends_at": period.until,
    }


def row_dict(
    row: dict[str, Any], *, board: Board, operator_id: object, player_id: object | None
) -> dict[str, Any]:
    """One row as the caller sees it: ``operator_id`` the caller's operator, ``player_id``
    the caller's player (a player token) or None (an operator's API key)."""
    own = player_id is None and str(row["operator_id"]) == str(operator_id)
    shown: dict[str, Any] = {
        "rank": row["rank"],
        "screen_name": row["screen_name"],
        "me": player_id is not None and str(row["player_id"]) == str(player_id),
        "player_id": row["player_id"] if own else None,
        "reached_at": row["reached_at"],
        "rating": None,
        "rd": None,
        "matches": None,
        "net": None,
        "prizes": None,
        "paid_in": None,
        "tournaments": None,
    }
    if board.board == RATING:
        shown["rating"] = round(row["rating"], RATING_PLACES)
        shown["rd"] = round(row["rd"], RATING_PLACES)
        shown["matches"] = row["matches"]
        return shown
    currency = board.currency
    assert currency is not None  # a winnings board always names its currency
    shown["net"] = money_dict(row["net"], currency)
    shown["prizes"] = money_dict(row["won"], currency)
    shown["paid_in"] = money_dict(row["entered"], currency)
    shown["tournaments"] = row["tournaments"]
    return shown


def page_dict(
    board: Board,
    rows: list[dict[str, Any]],
    *,
    operator_id: object,
    player_id: object | None,
    links: tuple[str | None, str | None],
) -> dict[str, Any]:
    return {
        "scope": board.scope,
        "board": board.board,
        "period": period_dict(board),
        "family": board.family,
        "currency": board.currency,
        "next": links[0],
        "previous": links[1],
        "results": [
            row_dict(row, board=board, operator_id=operator_id, player_id=player_id) for row in rows
        ],
    }
