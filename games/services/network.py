"""Network play (docs/network.md): the network's rooms, each operator's opt-in to them, and
the players' screen names, the only name an opponent of another operator sees.

- ``network_room_create``: staff open a room of the network (the network's operator owns
  it; same variants, options and stakes as an operator's room, never the house bot).
- ``network_room_opt_in`` / ``network_room_opt_out``: a member operator offers one network
  room to its players (a member with ``all_rooms`` offers all of them without a row each).
- ``player_screen_name_set``: a player chooses or changes their screen name, except while
  they hold a seat at a network table.
- ``match_event_enqueue``: a game's operator event / webhook; a network game's goes to each
  operator whose players sat in it (or only to the one it is about), each naming the other
  operators' players by screen name only (``player_ref_for``).

Joining and leaving the network (``NetworkMembership``) is gin_platform's
(``gin_platform.tenancy.services.network_membership_update``); who may sit at a network table is
``seat_checks.network_seat_check``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from django.db import IntegrityError, transaction
from django.utils.translation import gettext

from games.models import Match, NetworkRoomOptIn, Room
from games.problems import (
    ScreenNameInvalidProblem,
    ScreenNameLockedProblem,
    ScreenNameTakenProblem,
)
from games.selectors import match_player_operator_ids, player_network_seated
from games.services.rooms import room_create
from gin_platform.audit import audit_record
from gin_platform.events.catalogue import player_ref
from gin_platform.events.webhooks import webhook_enqueue
from gin_platform.http.problems import NotFoundProblem, ValidationProblem
from gin_platform.i18n.formatting import number_text
from gin_platform.locks import lock_player
from gin_platform.models import SCREEN_NAME_MAX_LENGTH, Operator, Player
from gin_platform.tenancy.principals import Actor
from gin_platform.tenancy.selectors import (
    is_network_operator,
    network_get,
    network_membership_get,
    network_operator_id,
    network_reveals_operators,
)

SCREEN_NAME_MIN_LENGTH = 3
# ASCII letters and digits, with "_" or "-" inside (never first or last, never two in a row):
# no look-alike letters of other scripts, nothing a client could render as markup.
SCREEN_NAME_PATTERN = re.compile(r"[A-Za-z0-9]+(?:[_-][A-Za-z0-9]+)*")
# Names that would pass for the platform speaking, whatever the case.
RESERVED_SCREEN_NAMES = frozenset(
    {
        "admin",
        "bot",
        "dealer",
        "house",
        "moderator",
        "network",
        "operator",
        "staff",
        "support",
        "system",
    }
)


def _network_operator() -> Operator:
    network = network_get()
    if network is None:
        raise NotFoundProblem("The platform has no network")
    return network.operator


@transaction.atomic
def network_room_create(*, actor: Actor, **options: Any) -> Room:
    """A network room (staff): ``room_create``'s options and checks, owned by the network's
    operator. The house bot never plays in the network (``bot_enabled`` and ``bot_level``
    are refused)."""
    for option in ("bot_enabled", "bot_level"):
        if options.get(option):
            raise ValidationProblem(
                gettext("One or more fields are invalid"),
                errors={option: ["the house bot does not play in network rooms"]},
            )
    return room_create(operator=_network_operator(), actor=actor, **options)


def _offerable_room(room: Room) -> None:
    if room.operator_id != network_operator_id():
        raise NotFoundProblem(f"No network room {room.pk}")


@transaction.atomic
def network_room_opt_in(*, operator: Operator, room: Room, actor: Actor) -> NetworkRoomOptIn:
    """The operator offers ``room`` to its players (idempotent: the existing row when it
    already does). Needs a membership (it may opt in while it has ``all_rooms``, so that
    the room stays offered if it turns ``all_rooms`` off)."""
    _offerable_room(room)
    membership = network_membership_get(operator=operator)
    if membership is None or not membership.is_member:
        raise NotFoundProblem("Join the network first (PUT /api/v1/operators/me/network)")
    existing = NetworkRoomOptIn.objects.filter(operator=operator, room=room).first()
    if existing is not None:
        return existing
    try:
        with transaction.atomic():
            opt_in = NetworkRoomOptIn.objects.create(operator=operator, room=room)
    except IntegrityError:  # a concurrent opt-in of the same room won
        return NetworkRoomOptIn.objects.get(operator=operator, room=room)
    audit_record(
        actor=actor,
        action="network.room_opted_in",
        obj=opt_in,
        operator=operator,
        data={"room": room.pk},
    )
    return opt_in


@transaction.atomic
def network_room_opt_out(*, operator: Operator, room: Room, actor: Actor) -> None:
    """The operator stops offering ``room`` (nothing happens when it did not). Players
    already seated there play on; nobody of the operator sits down there again."""
    _offerable_room(room)
    deleted, _ = NetworkRoomOptIn.objects.filter(operator=operator, room=room).delete()
    if deleted:
        audit_record(
            actor=actor,
            action="network.room_opted_out",
            obj=room,
            operator=operator,
            data={"room": room.pk},
        )


def screen_name_problem(*, player: Player, screen_name: object) -> str | None:
    """Why ``screen_name`` cannot be ``player``'s (a sentence), or None when it can (its
    uniqueness aside, which the database decides)."""
    if not isinstance(screen_name, str):
        return gettext("A screen name is text.")
    if not SCREEN_NAME_MIN_LENGTH <= len(screen_name) <= SCREEN_NAME_MAX_LENGTH:
        return gettext("A screen name has %(minimum)s to %(maximum)s characters.") % {
            "minimum": number_text(SCREEN_NAME_MIN_LENGTH),
            "maximum": number_text(SCREEN_NAME_MAX_LENGTH),
        }
    if not SCREEN_NAME_PATTERN.fullmatch(screen_name):
        return gettext(
            "A screen name has letters A-Z, digits, and _ or - between them (not first, last "
            "or twice in a row)."
        )
    folded = screen_name.casefold()
    if folded in RESERVED_SCREEN_NAMES:
        return gettext("This screen name is reserved: %(name)s.") % {"name": screen_name}
    own = {player.external_ref.casefold(), (player.display_name or "").casefold()}
    if folded in own:
        return gettext(
            "A screen name may not be your casino account's name or your display name: "
            "players of other casinos see it."
        )
    return None


@transaction.atomic
def player_screen_name_set(*, player: Player, screen_name: str, actor: Actor) -> Player:
    """The player chooses (or changes) their screen name, unique across the platform
    whatever the case. Refused while they hold a seat at a network table: the opponent
    knows them by that name until the game is over. Setting the same name changes nothing."""
    locked = lock_player(player.pk)
    reason = screen_name_problem(player=locked, screen_name=screen_name)
    if reason is not None:
        raise ScreenNameInvalidProblem(reason, field="screen_name")
    if locked.screen_name == screen_name:
        return locked
    if player_network_seated(player=locked):
        raise ScreenNameLockedProblem(
            gettext(
                "You are seated at a network table: change your screen name once the game is over."
            )
        )
    before = locked.screen_name
    locked.screen_name = screen_name
    try:
        with transaction.atomic():
            locked.save(update_fields=["screen_name"])
    except IntegrityError as exc:
        raise ScreenNameTakenProblem(
            gettext("This screen name is taken: %(name)s.") % {"name": screen_name},
            field="screen_name",
        ) from exc
    audit_record(
        actor=actor,
        action="player.screen_name_set",
        obj=locked,
        operator=locked.operator,
        data={"screen_name": [before, screen_name]},
    )
    return locked


# --- Events and webhooks of network games (docs/network.md "Tenancy") ------------------------
def player_ref_for(player: Player, *, match: Match, operator_id: object) -> dict[str, Any]:
    """How an event sent to operator ``operator_id`` names ``player``: its own player (or any
    player of an operator's own game) by id and reference, as always; another operator's
    player at a network table by screen name only (and, with ``reveal_operators``, its
    operator's name), never an id or a reference."""
    if not is_network_operator(match.operator_id) or str(player.operator_id) == str(operator_id):
        return player_ref(player)
    named = {"screen_name": player.screen_name}
    if network_reveals_operators():
        named["operator"] = player.operator.name
    return named


def match_event_enqueue(
    *,
    match: Match,
    event_type: str,
    data: Callable[[object], dict[str, Any]],
    about: Player | None = None,
) -> None:
    """Record a game's event (``webhook_enqueue``) for the operators who may read it.
    ``data(operator_id)`` builds the payload for one operator. An operator's own game: its
    operator. A network game: the operator of ``about`` (an event about one player: a
    seat taken or left), else every operator whose players sat in it, in id order; the
    network's own operator records nothing (nobody reads as it)."""
    if not is_network_operator(match.operator_id):
        webhook_enqueue(
            operator=match.operator, event_type=event_type, data=data(match.operator_id)
        )
        return
    if about is not None:
        operators = [about.operator]
    else:
        ids = match_player_operator_ids(match)
        operators = list(Operator.objects.filter(pk__in=ids).order_by("pk"))
    for operator in operators:
        webhook_enqueue(operator=operator, event_type=event_type, data=data(operator.pk))


def result_for_operator(*, match: Match, operator_id: object) -> dict[str, Any]:
    """The match's recorded result (``game.finished``) as operator ``operator_id`` may
    read it: in a network game another operator's seat has no ``player_id`` (null) but the
    player's ``screen_name``."""
    result = dict(match.result or {})
    if not is_network_operator(match.operator_id) or "seats" not in result:
        return result
    players = {
        str(player.pk): player
        for player in Player.objects.filter(pk__in=[seat["player_id"] for seat in result["seats"]])
    }
    seats = []
    for seat in result["seats"]:
        player = players.get(str(seat["player_id"]))
        if player is not None and str(player.operator_id) != str(operator_id):
            seat = {**seat, "player_id": None, "screen_name": player.screen_name}
        seats.append(seat)
    return {**result, "seats": seats}
