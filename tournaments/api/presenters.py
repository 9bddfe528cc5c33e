"""What the tournaments API shows, and to whom (docs/tournaments.md "API").

Players are named as at the tables (games' ``seat_identity``): at an operator's own
tournament by display name; at a network tournament by screen name only, unless the viewer
is the player's own operator. An operator's own players also carry their ``player_id``.
The seed is shown only once the tournament has ended. A player's own ticket to a tournament
(``my_ticket``) is shown to that player only. A statement holds the player's own
lines only; staff's requests say who proposed and decided them.
"""

from __future__ import annotations

from typing import Any

from games.api.presenters import seat_identity
from gin_platform.money import money_dict, to_decimal_string
from gin_platform.tenancy.selectors import is_network_operator
from tournaments import engine
from tournaments.models import BracketTable, Entry, Tournament, TournamentRequest
from tournaments.selectors import EntryStatement


def tournament_dict(tournament: Tournament, *, ticket: int | None = None) -> dict[str, Any]:
    """The tournament; ``ticket``: what the calling player's ticket to it is worth (None: an
    operator, a player holding none, or a watch socket's frame, which is per operator)."""
    currency = tournament.currency
    started = tournament.started_at is not None
    ended = tournament.status in Tournament.ENDED_STATUSES
    return {
        "id": tournament.pk,
        "name": tournament.name,
        "kind": tournament.kind,
        "status": tournament.status,
        "network": is_network_operator(tournament.operator_id),
        "seats": tournament.seats,
        "advance": tournament.advance,
        "round_settings": tournament.round_settings,
        "buy_in": money_dict(tournament.buy_in, currency),
        "entry_fee": money_dict(tournament.entry_fee, currency),
        "guaranteed": money_dict(tournament.guaranteed, currency),
        "prize_pool": money_dict(
            tournament.prize_pool if started else _pool_so_far(tournament), currency
        ),
        "overlay": money_dict(tournament.overlay, currency),
        "entries": tournament.field if started else getattr(tournament, "registered", 0),
        "min_entries": tournament.min_entries,
        "max_entries": tournament.max_entries,
        "no_show_seconds": tournament.no_show_seconds,
        "registration_opens_at": tournament.registration_opens_at,
        "starts_at": tournament.starts_at,
        "started_at": tournament.started_at,
        "ended_at": tournament.ended_at,
        "rounds": tournament.rounds,
        "seed_commitment": tournament.seed_commitment,
        "seed": tournament.seed if ended else None,
        "seeding": tournament.seeding,
        "cancel_reason": tournament.cancel_reason,
        "satellite_for": tournament.satellite_for_id,
        "my_ticket": None if ticket is None else my_ticket_dict(tournament, ticket),
    }


def my_ticket_dict(tournament: Tournament, worth: int) -> dict[str, Any]:
    """A player's ticket to ``tournament``: its worth, and whether it pays the entry (a
    ticket worth less enters nothing; a freeroll takes none)."""
    price = tournament.entry_price
    return {
        "value": money_dict(worth, tournament.currency),
        "covers_entry": bool(price) and worth >= price,
    }


def _pool_so_far(tournament: Tournament) -> int:
    """Before the start: the buy-ins registered so far, or the guarantee if more."""
    registered = getattr(tournament, "registered", 0)
    return max(tournament.guaranteed, registered * tournament.buy_in)


def tournament_detail_dict(tournament: Tournament, *, ticket: int | None = None) -> dict[str, Any]:
    data = tournament_dict(tournament, ticket=ticket)
    entries = max(tournament.field or getattr(tournament, "registered", 0), 1)
    pool = tournament.prize_pool if tournament.started_at else _pool_so_far(tournament)
    target = tournament.satellite_for
    if target is not None:  # each place alone: a ticket, or the money left
        places = [engine.PlaceGroup(first_place=p, players=(p,)) for p in range(1, entries + 1)]
        won = engine.satellite_prizes(
            pool=pool, ticket_value=target.entry_price, entries=entries, groups=places
        )
        prizes = [
            (place, target.entry_price if ticket else money, ticket)
            for place, (ticket, money) in sorted(won.items())
        ]
    else:
        table = tournament.prize_table or engine.default_prize_table(entries=entries)
        shares = engine.place_shares(pool=pool, table_bps=table, entries=entries)
        prizes = [(place, share, False) for place, share in enumerate(shares, 1)]
    data["prizes"] = [
        {"place": place, "prize": money_dict(value, tournament.currency), "ticket": ticket}
        for place, value, ticket in prizes
        if value
    ]
    return data


def named_entry(entry: Entry, *, tournament: Tournament, viewer: object) -> dict[str, Any]:
    """An entry at a table, named as ``viewer`` (an operator's id, or None) may see it."""
    own = viewer is not None and str(entry.player.operator_id) == str(viewer)
    return {
        "entry": entry.number,
        **{
            key: value
            for key, value in seat_identity(
                entry.player, match_operator_id=tournament.operator_id, viewer=viewer
            ).items()
            if key in ("display_name", "screen_name")
        },
        "player_id": entry.player_id if own else None,
        "seed_rating": entry.seed_rating,
    }


def bracket_table_dict(
    table: BracketTable,
    *,
    tournament: Tournament,
    entries: dict[int, Entry],
    viewer: object,
) -> dict[str, Any]:
    return {
        "round": table.round,
        "number": table.number,
        "status": table.status,
        "match_id": table.match_id,
        "players": [
            named_entry(entries[entry_id], tournament=tournament, viewer=viewer)
            for entry_id in table.entries
        ],
        "advancing": [entries[entry_id].number for entry_id in table.advancing],
    }


def entry_dict(entry: Entry, *, match_id: int | None = None) -> dict[str, Any]:
    currency = entry.tournament.currency
    return {
        "tournament_id": entry.tournament_id,
        "number": entry.number,
        "player_id": entry.player_id,
        "status": entry.status,
        "payment": entry.payment,
        "paid": money_dict(entry.paid, currency),
        "registered_at": entry.registered_at,
        "draw_position": entry.draw_position,
        "seed_rating": entry.seed_rating,
        "round_out": entry.round_out,
        "out_reason": entry.out_reason,
        "place_from": entry.place_from,
        "place_to": entry.place_to,
        "prize": None if entry.prize is None else money_dict(entry.prize, currency),
        "prize_ticket": entry.prize_ticket,
        "match_id": match_id,
    }


# --- A player's statement of one tournament ---------------------------------------------------
STATEMENT_COLUMNS = (
    "transaction_id",
    "created_at",
    "kind",
    "account",
    "component",
    "currency",
    "amount",
    "reference",
)


def statement_dict(statement: EntryStatement) -> dict[str, Any]:
    entry = statement.entry
    currency = entry.tournament.currency
    return {
        "tournament_id": entry.tournament_id,
        "player_id": entry.player_id,
        "entry_number": entry.number,
        "status": entry.status,
        "currency": currency,
        "lines": [
            {
                "transaction_id": line.transaction_id,
                "kind": line.kind,
                "account": line.account,
                "component": line.component,
                "amount": money_dict(line.amount, line.currency),
                "reference": line.reference,
                "created_at": line.created_at,
            }
            for line in statement.lines
        ],
        "totals": {
            "paid_in": money_dict(statement.paid_in, currency),
            "paid_out": money_dict(statement.paid_out, currency),
            "net": money_dict(statement.net, currency),
        },
    }


def statement_csv_rows(statement: EntryStatement) -> list[dict[str, Any]]:
    """One row per line, the amount a decimal string beside its currency."""
    return [
        {
            "transaction_id": line.transaction_id,
            "created_at": line.created_at.isoformat(),
            "kind": line.kind,
            "account": line.account,
            "component": line.component,
            "currency": line.currency,
            "amount": to_decimal_string(line.amount, line.currency),
            "reference": line.reference,
        }
        for line in statement.lines
    ]


# --- Staff: four eyes -----------------------------------------------------------------------------
MONEY_OPTIONS = ("buy_in", "entry_fee", "guaranteed")


def request_options(row: TournamentRequest) -> dict[str, Any] | None:
    """A creation's options as ``POST /tournaments`` takes them: amounts as decimal strings."""
    if row.kind != TournamentRequest.Kind.CREATE:
        return None
    options = dict(row.payload)
    for name in MONEY_OPTIONS:
        options[name] = to_decimal_string(options[name], options["currency"])
    return options


def tournament_request_dict(row: TournamentRequest) -> dict[str, Any]:
    return {
        "id": row.pk,
        "kind": row.kind,
        "status": row.status,
        "operator_id": row.operator_id,
        "network": is_network_operator(row.operator_id),
        "tournament_id": row.tournament_id,
        "options": request_options(row),
        "reason": row.reason,
        "proposed_by": row.proposed_by.get_username(),
        "proposed_at": row.proposed_at,
        "decided_by": row.decided_by.get_username() if row.decided_by else None,
        "decided_at": row.decided_at,
        "decision_note": row.decision_note,
        "result_ref": row.result_ref,
    }
