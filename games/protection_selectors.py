"""Games reads for player protection's history (docs/player-protection.md "History"): the
matches a player sat in over a window, and what each was for them: their seat, the
outcome, the others at the table named as the player may see them (a screen name only at a
network table), the hands that are over. Reads only; never a card. The money is the
ledger's (``wallet.selectors.history.game_nets``, by each match's ``game_ref``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Prefetch, Q, QuerySet

from games import engine
from games.api.presenters import seat_identity
from games.models import Hand, Match, Seat, Variant
from games.selectors import match_result
from gin_platform.models import Player

# Match.game_ref is "match:<id>": the escrow's name for a game in the wallet.
GAME_REF_PREFIX = "match:"
OUTCOMES = ("won", "lost", "tied", "left", "voided", "in_play")
# The closed sets of a record's fields, for the API's enums (value, label).
MATCH_STATUSES = Match.Status.choices
VARIANTS = Variant.choices
# A match not over yet for its players: a suspended one waits for its void (R13).
_NOT_OVER = (Match.Status.WAITING, Match.Status.RUNNING, Match.Status.SUSPENDED)


def match_id_of(game_ref: str | None) -> int | None:
    """The match whose escrow ``game_ref`` names, or None for any other posting."""
    if not game_ref or not game_ref.startswith(GAME_REF_PREFIX):
        return None
    number = game_ref.removeprefix(GAME_REF_PREFIX)
    return int(number) if number.isdigit() else None


def player_matches(*, player: Player, start: datetime, end: datetime) -> QuerySet[Match]:
    """The matches ``player`` took a seat in (a seat they left before the start counts),
    opened in [``start``, ``end``), each with its seats (and their players) and the number
    of its hands that are over (``hands_over``). Unordered: the caller pages them."""
    over = Q(hands__status__in=(Hand.Status.ENDED, Hand.Status.ABANDONED))
    seats = Seat.objects.select_related("player", "player__operator").order_by("created_at", "pk")
    return (
        Match.objects.filter(
            pk__in=Seat.objects.filter(player=player).values("match_id"),
            created_at__gte=start,
            created_at__lt=end,
        )
        .annotate(hands_over=Count("hands", filter=over))
        .prefetch_related(Prefetch("seats", queryset=seats, to_attr="history_seats"))
    )


@dataclass(frozen=True)
class Opponent:
    """Another seat of the match as the player may see it (``seat_identity``)."""

    position: int
    screen_name: str | None
    display_name: str | None
    operator: str | None


@dataclass(frozen=True)
class MatchRecord:
    """One match as its player's history shows it. ``outcome``: won, lost, tied (no single
    winner: Money Play without money moving, or a shared first place), left (they left
    before the start, their stake refunded), voided (R13), in_play. ``place``: R12 only."""

    match_id: int
    game_ref: str
    status: str
    variant: str
    is_practice: bool
    seats: int
    currency: str
    stake: int | None
    stake_per_point: int | None
    position: int
    buy_in: int
    outcome: str
    place: int | None
    opponents: tuple[Opponent, ...]
    hands: int
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None


def _outcome(match: Match, seat: Seat) -> tuple[str, int | None]:
    if seat.state in Seat.GONE_STATES:  # left before the start, or never came (R14)
        return "left", None
    if match.status in _NOT_OVER:
        return "in_play", None
    if match.status == Match.Status.VOIDED or match.result is None:
        return "voided", None
    result = match_result(match.result)
    place = None
    if isinstance(result, engine.MultiMatchResult):
        place = result.ranking.place_of(seat.position)
    if result.winner_seat == seat.position:
        return "won", place
    if result.winner_seat is None and (place in (None, 1)):
        return "tied", place
    return "lost", place


def match_records(matches: Iterable[Match], *, player: Player) -> list[MatchRecord]:
    """Each of ``matches`` (from ``player_matches``) as ``player``'s history shows it."""
    records = []
    for match in matches:
        seats: list[Seat] = match.history_seats  # type: ignore[attr-defined]  # the to_attr of player_matches' prefetch
        seat = [s for s in seats if s.player_id == player.pk][-1]  # the latest, if they sat twice
        outcome, place = _outcome(match, seat)
        others = sorted(
            (s for s in seats if s.player_id != player.pk and s.state not in Seat.GONE_STATES),
            key=lambda other: other.position,
        )
        records.append(
            MatchRecord(
                match_id=match.pk,
                game_ref=match.game_ref,
                status=match.status,
                variant=match.variant,
                is_practice=match.is_practice,
                seats=match.seat_count,
                currency=match.currency,
                stake=match.stake,
                stake_per_point=match.stake_per_point,
                position=seat.position,
                buy_in=seat.amount,
                outcome=outcome,
                place=place,
                opponents=tuple(
                    Opponent(
                        position=other.position,
                        **seat_identity(
                            other.player,
                            match_operator_id=match.operator_id,
                            viewer=player.operator_id,
                        ),
                    )
                    for other in others
                ),
                hands=match.hands_over,  # type: ignore[attr-defined]  # an annotation of player_matches
                created_at=match.created_at,
                started_at=match.started_at,
                finished_at=match.finished_at,
            )
        )
    return records
