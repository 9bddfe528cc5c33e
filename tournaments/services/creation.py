"""Creating a tournament (R14): its options checked, its room opened in games, its seed
committed. An operator creates one for its own players; the network's operator (staff) one
for every member's (docs/tournaments.md "Creating a tournament")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from games import engine as game_engine
from games.services.rooms import tournament_room_check, tournament_room_open
from gin_platform.audit import audit_record
from gin_platform.models import Operator
from gin_platform.tenancy.principals import Actor
from tournaments import engine
from tournaments.models import Tournament
from tournaments.problems import TournamentOptionsInvalidProblem
from tournaments.services.events import watchers_tell

MAX_ENTRIES = 4096  # the largest field a tournament takes (R14: a 12-round heads-up bracket)
ROUND_VARIANTS = (game_engine.FIRST_TO_KNOCK, game_engine.MATCH_PLAY)


@dataclass(frozen=True)
class TournamentOptions:
    """What an operator chooses (R14); money in minor units of ``currency``."""

    name: str
    kind: str
    seats: int
    currency: str
    round_settings: Sequence[Mapping[str, Any]]
    max_entries: int
    min_entries: int = 2
    advance: int = 1
    buy_in: int = 0
    entry_fee: int = 0
    guaranteed: int = 0
    prize_table: Sequence[int] = ()
    no_show_seconds: int = 120
    registration_opens_at: datetime | None = None
    starts_at: datetime | None = None
    turn_seconds: int = 30
    rules: Mapping[str, Any] = field(default_factory=dict)
    satellite_for: int | None = None  # the tournament whose tickets are this one's prizes
    seeding: str = Tournament.Seeding.DRAW  # R14: the draw, or by rating (R15)


def _invalid(message: str, field_name: str) -> TournamentOptionsInvalidProblem:
    return TournamentOptionsInvalidProblem(message, field=field_name)


def _round_settings(settings: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    if not settings:
        raise _invalid("give at least the first round's match", "round_settings")
    checked = []
    for setting in settings:
        variant, target = setting.get("variant"), setting.get("target")
        if variant not in ROUND_VARIANTS:
            raise _invalid("each round is First To Knock (ftk) or Match Play (match)", "variant")
        if variant == game_engine.MATCH_PLAY:
            if type(target) is not int or not 1 <= target <= 1000:
                raise _invalid("a Match Play round names its target, 1 to 1000", "target")
        elif target is not None:
            raise _invalid("a First To Knock round has no target", "target")
        checked.append({"variant": variant, "target": target})
    return checked


def _entries(options: TournamentOptions) -> tuple[int, int]:
    low, high = options.min_entries, options.max_entries
    if options.kind == Tournament.Kind.SIT_AND_GO:
        # R14: a sit and go starts as soon as its entries (2 to 64) have registered.
        if not 2 <= high <= 64:
            raise _invalid("a sit and go takes 2 to 64 entries", "max_entries")
        return high, high
    if not 2 <= low <= high <= MAX_ENTRIES:
        raise _invalid(f"entries are 2 <= min_entries <= max_entries <= {MAX_ENTRIES}", "entries")
    return low, high


def _schedule(options: TournamentOptions, now: datetime) -> tuple[datetime, datetime | None]:
    opens = options.registration_opens_at or now
    if options.kind == Tournament.Kind.SIT_AND_GO:
        if options.starts_at is not None:
            raise _invalid("a sit and go starts when it is full, not at a time", "starts_at")
        return opens, None
    if options.starts_at is None or options.starts_at <= max(opens, now):
        raise _invalid("a scheduled tournament starts after registration opens", "starts_at")
    return opens, options.starts_at


def _money(options: TournamentOptions) -> None:
    for name in ("buy_in", "entry_fee", "guaranteed"):
        value = getattr(options, name)
        if type(value) is not int or value < 0:
            raise _invalid("amounts are whole minor units, 0 or more", name)
    if options.prize_table:
        try:
            engine.check_prize_table(options.prize_table)
        except ValueError as error:
            raise _invalid(str(error), "prize_table") from None


def _target(options: TournamentOptions, operator: Operator) -> Tournament | None:
    """A satellite's target: the same owner's, in the same currency, not started yet."""
    if options.satellite_for is None:
        return None
    target = Tournament.objects.filter(
        pk=options.satellite_for,
        operator=operator,
        currency=options.currency,
        status__in=Tournament.OPEN_STATUSES,
    ).first()
    if target is None or not target.entry_price:
        raise _invalid(
            "a satellite's target is your own tournament, in its currency, not started, "
            "with an entry price",
            "satellite_for",
        )
    if options.prize_table:
        raise _invalid("a satellite's prizes are its target's tickets", "prize_table")
    return target


@dataclass(frozen=True)
class CheckedOptions:
    """What the checks of R14 make of the options: each round's match, the entries' range,
    the schedule and a satellite's target."""

    round_settings: list[dict[str, Any]]
    min_entries: int
    max_entries: int
    registration_opens_at: datetime
    starts_at: datetime | None
    satellite_for: Tournament | None


def tournament_options_check(
    *, operator: Operator, options: TournamentOptions, now: datetime | None = None
) -> CheckedOptions:
    """Check ``options`` against R14 for a tournament of ``operator`` (422
    ``tournament-options-invalid`` naming the option); nothing is written. Creation runs it,
    and so does a staff proposal, so a request the approval would refuse is never recorded."""
    now = now or timezone.now()
    if options.kind not in Tournament.Kind.values:
        raise _invalid("kind is sit_and_go or scheduled", "kind")
    if options.seeding not in Tournament.Seeding.values:
        raise _invalid("seeding is draw or rating", "seeding")
    try:
        engine.check_format(seats=options.seats, advance=options.advance)
    except ValueError as error:
        raise _invalid(str(error), "seats") from None
    if not options.name.strip():
        raise _invalid("a tournament has a name", "name")
    if type(options.no_show_seconds) is not int or not 30 <= options.no_show_seconds <= 3600:
        raise _invalid("no_show_seconds is 30 to 3600", "no_show_seconds")
    settings = _round_settings(options.round_settings)
    low, high = _entries(options)
    opens, starts = _schedule(options, now)
    _money(options)
    tournament_room_check(  # what games will refuse of the room, before anything is written
        variant=settings[0]["variant"],
        rules=dict(options.rules),
        seats=options.seats,
        currency=options.currency,
        turn_seconds=options.turn_seconds,
    )
    return CheckedOptions(
        round_settings=settings,
        min_entries=low,
        max_entries=high,
        registration_opens_at=opens,
        starts_at=starts,
        satellite_for=_target(options, operator),
    )


def tournament_create(
    *, operator: Operator, options: TournamentOptions, actor: Actor, now: datetime | None = None
) -> Tournament:
    """Create a tournament and its games room; its seed is drawn and its SHA-256 committed
    now, published from the moment registration opens (R14, docs/fairness.md)."""
    now = now or timezone.now()
    checked = tournament_options_check(operator=operator, options=options, now=now)
    settings = checked.round_settings
    opens = checked.registration_opens_at
    seed = engine.new_server_seed()
    with transaction.atomic():
        room = tournament_room_open(
            operator=operator,
            name=options.name,
            variant=settings[0]["variant"],
            rules=dict(options.rules),
            seats=options.seats,
            currency=options.currency,
            turn_seconds=options.turn_seconds,
            actor=actor,
        )
        tournament = Tournament.objects.create(
            operator=operator,
            name=options.name.strip(),
            kind=options.kind,
            status=(Tournament.Status.REGISTERING if opens <= now else Tournament.Status.ANNOUNCED),
            room=room,
            seats=options.seats,
            advance=options.advance,
            round_settings=settings,
            currency=room.currency,
            buy_in=options.buy_in,
            entry_fee=options.entry_fee,
            guaranteed=options.guaranteed,
            prize_table=list(options.prize_table),
            min_entries=checked.min_entries,
            max_entries=checked.max_entries,
            no_show_seconds=options.no_show_seconds,
            satellite_for=checked.satellite_for,
            registration_opens_at=opens,
            starts_at=checked.starts_at,
            seed=seed,
            seed_commitment=engine.seed_commitment(seed),
            seeding=options.seeding,
        )
        audit_record(
            actor=actor,
            action="tournament.created",
            obj=tournament,
            operator=operator,
            data={
                "kind": tournament.kind,
                "seats": tournament.seats,
                "buy_in": tournament.buy_in,
                "entry_fee": tournament.entry_fee,
                "guaranteed": tournament.guaranteed,
                "currency": tournament.currency,
                "seed_commitment": tournament.seed_commitment,
                "seeding": tournament.seeding,
            },
        )
    return tournament


def registration_open(*, tournament: Tournament, actor: Actor) -> Tournament:
    """An announced tournament opens registration (the beat, at ``registration_opens_at``)."""
    with transaction.atomic():
        updated = Tournament.objects.filter(
            pk=tournament.pk, status=Tournament.Status.ANNOUNCED
        ).update(status=Tournament.Status.REGISTERING)
        if updated:
            audit_record(
                actor=actor,
                action="tournament.registration_opened",
                obj=tournament,
                operator=tournament.operator,
            )
            watchers_tell(tournament=tournament, change="registration_opened")
    tournament.refresh_from_db()
    return tournament
