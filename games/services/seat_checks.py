"""What a seat must pass before anything is charged (R10, docs/network.md): a table of the
lobby's, not a tournament's (R14), the buy-in it escrows at the room's stakes, who may sit
at all (no integrity suspension, no break the player took), and who may sit at a network
table; and that linked players never share a table. ``seating`` checks them
under the table's lock when a player sits down; the waiting list checks the same when a
player joins it, so that the seat it takes later is refused for the same reasons only.
Reads only: nothing here writes or locks.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.translation import gettext

from games.models import Match, Room, Seat, Variant
from games.problems import (
    BotNotAllowedProblem,
    CashierAmountOutOfRangeProblem,
    LinkedPlayersProblem,
    NetworkNotJoinedProblem,
    NetworkTableOtherModeProblem,
    PlaySuspendedProblem,
    ScreenNameRequiredProblem,
    StakePerPointMismatchProblem,
    StakePerPointNotOfferedProblem,
    TournamentTableProblem,
)
from games.selectors import network_room_offered
from games.services.house_bot import is_house_bot
from gin_platform.http.problems import ValidationProblem
from gin_platform.i18n.formatting import money_text
from gin_platform.models import Player
from gin_platform.money import money_dict
from gin_platform.tenancy.selectors import is_network_operator
from integrity.pairing import linked_pairs, may_share_table, play_refusal
from wallet import services as wallet


def cash_table_check(room: Room) -> None:
    """A tournament's tables (R14) are never sat at through the lobby's seat, the waiting
    list or the house bot: the tournament reserves each seat for its player (409
    ``tournament-table``)."""
    if room.purpose == Room.Purpose.TOURNAMENT:
        raise TournamentTableProblem(
            gettext(
                "This table belongs to a tournament: your seat there is taken from the tournament."
            )
        )


def buy_in_amount(
    *,
    room: Room,
    match: Match | None,
    cashier_amount: int | None,
    stake_per_point: int | None,
) -> tuple[int, int | None]:
    """R10: what a seat escrows, and the stake per point the table plays at (Money Play)."""
    if room.variant != Variant.MONEY:
        extra = {
            name: ["only Money Play tables take this"]
            for name, value in (
                ("cashier_amount", cashier_amount),
                ("stake_per_point", stake_per_point),
            )
            if value is not None
        }
        if extra:
            raise ValidationProblem(gettext("One or more fields are invalid"), errors=extra)
        assert room.stake is not None  # room_variant_shape: FTK and Match Play rooms have one
        return room.stake, None
    currency = room.currency
    choices = list(room.stake_per_point_choices)
    table_stake = match.stake_per_point if match is not None else None
    if stake_per_point is None:
        stake_per_point = table_stake or (choices[0] if len(choices) == 1 else None)
    if stake_per_point not in choices:
        shown = [money_dict(choice, currency) for choice in choices]
        raise StakePerPointNotOfferedProblem(
            gettext("Choose a stake per point among %(choices)s.")
            % {"choices": ", ".join(money_text(choice, currency) for choice in choices)},
            choices=shown,
        )
    if table_stake is not None and stake_per_point != table_stake:
        played = money_dict(table_stake, currency)
        raise StakePerPointMismatchProblem(
            gettext("This table plays at %(stake)s per point.")
            % {"stake": money_text(table_stake, currency)},
            stake_per_point=played,
        )
    # room_variant_shape: a Money Play room has both bounds
    assert room.cashier_min is not None and room.cashier_max is not None
    if cashier_amount is None or not room.cashier_min <= cashier_amount <= room.cashier_max:
        low, high = (
            money_dict(room.cashier_min, currency),
            money_dict(room.cashier_max, currency),
        )
        raise CashierAmountOutOfRangeProblem(
            gettext("Bring between %(minimum)s and %(maximum)s to the table.")
            % {
                "minimum": money_text(room.cashier_min, currency),
                "maximum": money_text(room.cashier_max, currency),
            },
            minimum=low,
            maximum=high,
        )
    return cashier_amount, stake_per_point


def play_check(*, player: Player, network: bool) -> None:
    """A player suspended from play or banned by an integrity case sits nowhere; at a
    network table neither does the banned person's other account (integrity.pairing
    ``play_refusal``; docs/integrity.md "Actions"). Nor does a player on a break they took,
    a time-out or a self-exclusion, practice tables included: the wallet's ``timed-out`` or
    ``self-excluded`` (docs/player-protection.md "Breaks and limits"; the wallet checks a
    real-money buy-in again under its lock)."""
    refusal = play_refusal(player_id=player.pk, network=network)
    if refusal is not None:
        raise PlaySuspendedProblem(refusal)
    wallet.check_no_break(player=player)


def network_seat_check(*, player: Player, room: Room) -> None:
    """Who may sit at a room's table: never a player an integrity case suspended or banned
    (``play_check``); at a network room (docs/network.md "Rooms, membership and screen
    names") a player of an operator that is a member of the network now and offers the room
    (``all_rooms`` or an opt-in), who chose a screen name, never the house bot."""
    network = is_network_operator(room.operator_id)
    play_check(player=player, network=network)
    if not network:
        return
    if is_house_bot(player):
        raise BotNotAllowedProblem(gettext("The house bot does not play in network rooms."))
    if not network_room_offered(operator=player.operator, room=room):
        raise NetworkNotJoinedProblem(gettext("Your casino does not offer this network room."))
    if not player.screen_name:
        raise ScreenNameRequiredProblem(
            gettext(
                "Choose a screen name before you sit at a network table: the other players "
                "see only that name."
            )
        )


def network_mode_check(*, player: Player, match: Match) -> None:
    """A network table never mixes live and test-mode (sandbox) players: their money lives
    in separate books (docs/api.md "Sandbox")."""
    if not is_network_operator(match.operator_id):
        return
    others = Seat.objects.filter(match=match, state__in=Seat.ACTIVE_STATES).exclude(
        player__operator__is_sandbox=player.operator.is_sandbox
    )
    if others.exists():
        raise NetworkTableOtherModeProblem(
            gettext("This table is for real-money players only.")
            if player.operator.is_sandbox
            else gettext("This table is for test-mode players only.")
        )


def linked_players_check(*, player: Player, others: list[Seat]) -> None:
    """Linked players never share a table (docs/integrity.md): ``player`` may not sit
    with a player seated in ``others`` they are linked to (409 ``linked-players``, which
    says neither who nor why). One indexed query, none at an empty table. ``seating`` calls
    it under the table's lock, where no other seat can be taken at once."""
    if others and not may_share_table(
        player_id=player.pk, other_ids=[seat.player_id for seat in others]
    ):
        raise LinkedPlayersProblem(gettext("Somebody at this table may not play with you."))


def players_linked_check(*, players: Sequence[Player]) -> None:
    """No two of ``players`` are linked (docs/integrity.md): a tournament's match (R14) is
    refused whole (409 ``linked-players``; the tournament's draw avoids it, this is the
    backstop). One indexed query."""
    if linked_pairs(player_ids=[player.pk for player in players]):
        raise LinkedPlayersProblem("Two of these players are linked: they may not share a table.")
