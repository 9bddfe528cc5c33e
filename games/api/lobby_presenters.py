"""The lobby's shapes (R11): rooms, their tables and who sits there, built from
``selectors.lobby_rooms``' rows for ``games.api.lobby_serializers`` (a house bot's seat
names its level)."""

from __future__ import annotations

from typing import Any

from games.api.presenters import money, seat_identity
from games.models import Match, Room, Table
from gin_platform.models import Player


def lobby_room(room: Room, *, player: Player) -> dict[str, Any]:
    """A room as the lobby shows it to ``player`` (from ``selectors.lobby_rooms``)."""
    tables = [lobby_table(table, player=player, seats=room.seats) for table in room.open_tables]  # type: ignore[attr-defined]  # the to_attr of selectors.lobby_rooms: the stubs type a plain Room
    currency = room.currency
    return {
        "id": room.pk,
        "name": room.name,
        "variant": room.variant,
        "rules": room.rules,
        "target": room.target,
        "currency": currency,
        "is_practice": room.is_practice,
        "bot_enabled": room.bot_enabled,
        "bot_level": room.bot_level,
        "fee_bps": room.fee_bps,
        "turn_seconds": room.turn_seconds,
        "turn_clock": room.turn_clock_options(),
        "seats": room.seats,
        "prize_table": room.prize_table,
        "stake": money(room.stake, currency, player=player),
        "stake_per_point_choices": [
            money(choice, currency, player=player) for choice in room.stake_per_point_choices
        ],
        "cashier_min": money(room.cashier_min, currency, player=player),
        "cashier_max": money(room.cashier_max, currency, player=player),
        "free_seats": sum(table["free_seats"] for table in tables),
        # Liquidity (docs/network.md "Lobby and waiting list"): games being played, tables
        # where somebody waits for an opponent, players on the room's waiting list.
        "tables_running": sum(table["state"] == "playing" for table in tables),
        "tables_waiting": sum(table["state"] == "waiting" for table in tables),
        "players_waiting": getattr(room, "players_waiting", 0),
        "tables": tables,
    }


def lobby_table(table: Table, *, player: Player, seats: int = 2) -> dict[str, Any]:
    """A table as the lobby shows it (from ``selectors.lobby_rooms``' prefetches)."""
    match = table.open_matches[0] if table.open_matches else None  # type: ignore[attr-defined]  # the to_attr of selectors.lobby_rooms: the stubs type a plain Table
    seat_count = seats  # R12: 2, 3 or 4 places at the table
    seated = sorted(match.active_seats, key=lambda seat: seat.position) if match else []
    taken = {seat.position: seat for seat in seated}
    operator_id = match.operator_id if match else None  # read only for a taken seat
    running = match is not None and match.status == Match.Status.RUNNING
    return {
        "id": table.pk,
        "state": "playing" if running else ("waiting" if seated else "empty"),
        "match_id": match.pk if match else None,
        "free_seats": 0 if running else seat_count - len(seated),
        "stake_per_point": (
            money(match.stake_per_point, match.currency, player=player) if match else None
        ),
        "seats": [
            {
                "position": position,
                **(
                    {
                        **seat_identity(
                            taken[position].player, match_operator_id=operator_id, viewer=None
                        ),
                        "bot_level": taken[position].bot_level,
                    }
                    if position in taken
                    else dict.fromkeys(("display_name", "screen_name", "operator", "bot_level"))
                ),
            }
            for position in range(seat_count)
        ],
    }
