"""State changes of the games app, one module per concern (docs/games.md "Where things are").

    rooms           rooms and tables (operators)
    hand_lifecycle  what every change of a running game shares: the deal (R3, R12), the
                    event log, each turn's deadline, after a hand the next deal or the
                    match's result (R7, R10, R12), the house bot's turn queued on commit
    play            the actions, the end of a hand, settled
    timers          turn timers expiring, forfeits (leaving, resigning, timing out), resigning
    seat_checks     what a seat must pass: the buy-in (R10), who may sit at a network table
    seating         sit, leave, buy-ins, a match opened and started; the house bot sits here too
    house_bot       the practice house bot: who it is, its chips, its moves
    network         network rooms, operators' opt-ins to them, players' screen names; the
                    events of network games for each operator
    waiting_list    the lobby's waiting list: joining, leaving, seating the waiting players
    pair_seating    two players seated at one table together, all or nothing (R15's quick
                    seat, which the matchmaking app runs)
    tournament_matches  a tournament's matches (R14): opened with their players' seats
                    reserved, each seat taken by its player, the absent forfeiting, voided
                    when the tournament is cancelled
    protection_clock  player protection at the table: reality checks at turn boundaries
                    with the clock paused, a session's end stopping a game after its hand

One function per change, keyword-only and typed, atomic, each writing its audit row in the
same transaction. Locks follow ``games.locks`` (Room -> Table -> Match -> Hand -> Seat). The
engine (``games.engine``) is the referee: nothing here decides a rule; it deals, applies
actions, scores hands and decides matches through the engine's functions. Money only moves
through ``wallet.services``; a finished match is announced with
``games.signals.match_finished`` for settlement to pay out.

The modules import each other in one direction only (rooms <- network <- play <- house_bot
<- seat_checks <- seating <- waiting_list, pair_seating, tournament_matches; hand_lifecycle
<- play, timers, seating; timers <- seating). Reads are in ``games.selectors``, API shapes in
``games.api.presenters``.

Transactions (docs/games.md "Locks and transactions"): the services a request or a task
calls at the top run in ``transaction.atomic(durable=True)``, so nobody can nest them by
accident: ``seat_take``, ``seat_leave``, ``table_seat_bot``, ``pair_seat`` (its caller's
rows locked and written inside it, through ``claim`` and ``record``), ``player_action_apply``,
``hand_apply_action``, ``match_resign``, ``match_void``, ``tournament_match_void``, each
forfeit of ``turn_timers_expire`` and each match of ``tournament_no_shows_sweep``. The
others are atomic and designed to run inside their caller's transaction: ``room_create``,
``room_update``, ``table_create`` (the Idempotency-Key transaction of the operator
endpoints), ``tournament_room_open``, ``tournament_match_open``, ``tournament_seat_claim``
(the tournament's own transaction), ``match_forfeit`` (inside ``seat_leave``,
``match_resign``, the timer sweep) and ``match_mark_settled`` / ``match_settled_record``
(inside settlement's ``game_settle``; ``matches_settled_record`` for its batches).

This package re-exports the public names, so ``from games import services`` and
``games.services.<name>`` keep working.
"""

from games.services.hand_lifecycle import SCORE_FIELDS, bot_move_delay
from games.services.house_bot import (
    BOT_ACTOR,
    HOUSE_BOT_NAME,
    bot_play,
    house_bot_player,
    is_house_bot,
)
from games.services.interruptions import match_void
from games.services.network import (
    match_event_enqueue,
    network_room_create,
    network_room_opt_in,
    network_room_opt_out,
    player_ref_for,
    player_screen_name_set,
    result_for_operator,
    screen_name_problem,
)
from games.services.pair_seating import PairSeat, PairSeatRefused, pair_seat
from games.services.play import (
    RESULT_FORMAT,
    ActionResult,
    hand_apply_action,
    match_mark_settled,
    match_settled_record,
    matches_settled_record,
    player_action_apply,
)
from games.services.protection_clock import (
    PROTECTION_ACTOR,
    reality_check_closed,
    stop_after_hand,
)
from games.services.rooms import (
    MAX_AMOUNT,
    MAX_STAKE_PER_POINT_CHOICES,
    MAX_TABLES_PER_REQUEST,
    room_create,
    room_update,
    table_create,
    tournament_room_check,
    tournament_room_open,
)
from games.services.seating import SeatResult, seat_leave, seat_take, table_seat_bot
from games.services.timers import (
    TIMER_ACTOR,
    TIMER_BATCH,
    TimerSweep,
    match_forfeit,
    match_resign,
    turn_grace,
    turn_timers_expire,
)
from games.services.tournament_matches import (
    NO_SHOW_ACTOR,
    tournament_match_open,
    tournament_match_rules,
    tournament_match_void,
    tournament_no_shows_sweep,
    tournament_seat_claim,
)
from games.services.waiting_list import (
    WAITING_LIST_ACTOR,
    waiting_list_expire,
    waiting_list_join,
    waiting_list_leave,
    waiting_list_match,
)

__all__ = [
    "BOT_ACTOR",
    "HOUSE_BOT_NAME",
    "MAX_AMOUNT",
    "MAX_STAKE_PER_POINT_CHOICES",
    "MAX_TABLES_PER_REQUEST",
    "NO_SHOW_ACTOR",
    "PROTECTION_ACTOR",
    "RESULT_FORMAT",
    "SCORE_FIELDS",
    "TIMER_ACTOR",
    "TIMER_BATCH",
    "WAITING_LIST_ACTOR",
    "ActionResult",
    "PairSeat",
    "PairSeatRefused",
    "SeatResult",
    "TimerSweep",
    "bot_move_delay",
    "bot_play",
    "hand_apply_action",
    "house_bot_player",
    "is_house_bot",
    "match_event_enqueue",
    "match_forfeit",
    "match_mark_settled",
    "match_resign",
    "match_settled_record",
    "match_void",
    "matches_settled_record",
    "network_room_create",
    "network_room_opt_in",
    "network_room_opt_out",
    "pair_seat",
    "player_action_apply",
    "player_ref_for",
    "player_screen_name_set",
    "reality_check_closed",
    "result_for_operator",
    "room_create",
    "room_update",
    "screen_name_problem",
    "seat_leave",
    "seat_take",
    "stop_after_hand",
    "table_create",
    "table_seat_bot",
    "tournament_match_open",
    "tournament_match_rules",
    "tournament_match_void",
    "tournament_no_shows_sweep",
    "tournament_room_check",
    "tournament_room_open",
    "tournament_seat_claim",
    "turn_grace",
    "turn_timers_expire",
    "waiting_list_expire",
    "waiting_list_join",
    "waiting_list_leave",
    "waiting_list_match",
]
