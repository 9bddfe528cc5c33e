"""Reads of ratings (R15, docs/ratings.md).

A player reads their own ratings; an operator reads its own players' (the caller resolves
the player within its operator first: another operator's player is 404 before anything
here runs). The reads other parts of the platform build on (the quick seat's band,
tournament seeding) are ``rating_of`` and ``ratings_of``; the leaderboards' (R15) is
``rating_board``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from django.db.models import Exists, F, FilteredRelation, OuterRef, Q, QuerySet, Window
from django.db.models.functions import Lower, RowNumber

from games.models import Match, Seat
from games.rating_selectors import counts_for_rating, rated_matches
from games.selectors import match_seats, player_match
from gin_platform.models import Player
from ratings import engine
from ratings.models import Family, RatedMatch, Rating, RatingChange, RatingCursor, family_of


@dataclass(frozen=True)
class PlayerRating:
    """A player's rating in one family as it stands (the start when they have no match
    rated in it yet: ``matches`` 0, ``updated_at`` None)."""

    player_id: UUID
    family: str
    rating: float
    rd: float
    volatility: float
    matches: int
    updated_at: datetime | None

    @property
    def provisional(self) -> bool:
        """R15: while the RD is above 110."""
        return engine.is_provisional(self.glicko)

    @property
    def glicko(self) -> engine.Rating:
        return engine.Rating(self.rating, self.rd, self.volatility)


def _start(player_id: UUID, family: str) -> PlayerRating:
    start = engine.START
    return PlayerRating(player_id, family, start.rating, start.rd, start.volatility, 0, None)


def _from_row(row: Rating) -> PlayerRating:
    return PlayerRating(
        row.player_id, row.family, row.rating, row.rd, row.volatility, row.matches, row.updated_at
    )


def ratings_of(*, player_ids: Iterable[UUID], family: str) -> dict[UUID, PlayerRating]:
    """Each player's rating in ``family``, in one query (the start for those unrated)."""
    wanted = set(player_ids)
    rows = Rating.objects.filter(family=family, player_id__in=wanted)
    found = {row.player_id: _from_row(row) for row in rows}
    return {player: found.get(player) or _start(player, family) for player in wanted}


def rating_of(*, player_id: UUID, family: str) -> PlayerRating:
    """The player's rating in ``family``."""
    return ratings_of(player_ids=[player_id], family=family)[player_id]


def player_ratings(*, player: Player) -> list[PlayerRating]:
    """The player's rating in every family, in the families' order."""
    rows = {row.family: _from_row(row) for row in Rating.objects.filter(player=player)}
    return [rows.get(family) or _start(player.pk, family) for family in Family.values]


def player_rating_history(*, player: Player, family: str | None = None) -> QuerySet[RatingChange]:
    """Every change a rated match made to the player's ratings (one family's, if given);
    unordered: the caller pages them newest first."""
    changes = RatingChange.objects.filter(player=player)
    return changes.filter(family=family) if family else changes


@dataclass(frozen=True)
class SeatRating:
    seat: Seat
    rating: PlayerRating | None  # None: the house bot's seat (practice), never rated


@dataclass(frozen=True)
class MatchRatings:
    """The ratings of a match's players in the match's family, as they stand now."""

    match: Match
    family: str
    rated: bool  # whether R15 rates this match (never practice)
    seats: list[SeatRating]


def match_ratings(*, player: Player, match_id: object) -> MatchRatings:
    """The ratings of the players at a match ``player`` sits (or sat) at; any other match
    is 404 (``games.selectors.player_match``)."""
    match = player_match(player=player, match_id=match_id)
    family = family_of(variant=match.variant, seat_count=match.seat_count)
    seats = match_seats(match)
    bots = set(match.house_bot_seats)
    found = ratings_of(
        player_ids=[seat.player_id for seat in seats if seat.position not in bots], family=family
    )
    return MatchRatings(
        match=match,
        family=family,
        rated=counts_for_rating(match),
        seats=[SeatRating(seat, found.get(seat.player_id)) for seat in seats],
    )


# --- The leaderboard by rating (R15, docs/leaderboards.md) -------------------------------------
def rating_board(
    *,
    family: str,
    since: datetime,
    until: datetime,
    players: QuerySet[Player],
    network_operator_id: UUID | None = None,
) -> QuerySet[RatingChange, Any]:
    """The board by rating of one period [``since``, ``until``): each of ``players`` whose
    rating in ``family`` changed in it, at the rating their last rated match of the period
    left them (their current rating, for the period under way), best first; a provisional
    rating (RD above 110, R15) is not ranked. With ``network_operator_id``, only players who
    played a rated network match (a network table's or tournament's) in the period.

    One statement, whatever the page: a row per player (their last change, found by "no
    later change in the period": a hash anti-join), their rated matches in the family to date
    joined beside it, and ``rank`` numbered by the window over the whole board: rating, then
    who reached it first (their last match's end), then the screen name (unique whatever the
    case). No subquery runs per row: a page of a board of 20,000 stays one set operation.
    Values:
    ``rank``, ``player_id``, ``operator_id``, ``screen_name``, ``rating``, ``rd``,
    ``reached_at``, ``matches``. Unordered: the caller pages it by ``rank``."""
    period = RatingChange.objects.filter(
        family=family, finished_at__gte=since, finished_at__lt=until
    )
    mine = period.filter(player=OuterRef("player"))
    later = mine.filter(
        Q(finished_at__gt=OuterRef("finished_at"))
        | Q(finished_at=OuterRef("finished_at"), pk__gt=OuterRef("pk"))
    )
    rows = period.filter(~Exists(later), player__in=players, rd_after__lte=engine.PROVISIONAL_RD)
    if network_operator_id is not None:
        rows = rows.filter(Exists(mine.filter(match__operator_id=network_operator_id)))
    best_first = [
        F("rating_after").desc(),
        F("finished_at").asc(),
        Lower("player__screen_name").asc(),
    ]
    # The player's rated matches in the family to date, from their Rating row: a join, where
    # a count of the period's would be a subquery per row of the board.
    standing = FilteredRelation("player__ratings", condition=Q(player__ratings__family=family))
    return rows.annotate(standing=standing).values(
        "player_id",
        operator_id=F("player__operator_id"),
        screen_name=F("player__screen_name"),
        rating=F("rating_after"),
        rd=F("rd_after"),
        reached_at=F("finished_at"),
        matches=F("standing__matches"),
        rank=Window(RowNumber(), order_by=best_first),
    )


# --- What the rating service and its sweep read ----------------------------------------------
def unrated_matches(
    *, since: datetime | None = None, until: datetime | None = None
) -> QuerySet[Match]:
    """The matches R15 rates that ended in [``since``, ``until``] (either end open when
    None) and are not rated yet, oldest first (the order they must be rated in)."""
    matches = rated_matches()
    if since is not None:
        matches = matches.filter(finished_at__gte=since)
    if until is not None:
        matches = matches.filter(finished_at__lte=until)
    return matches.filter(~Exists(RatedMatch.objects.filter(match=OuterRef("pk")))).order_by(
        "finished_at", "pk"
    )


def unrated_match_end(*, match_id: int) -> datetime | None:
    """When ``match_id`` ended, if R15 rates it and it is not rated yet; else None."""
    return unrated_matches().filter(pk=match_id).values_list("finished_at", flat=True).first()


def is_rated_match(*, match_id: int) -> bool:
    """Whether R15 rates ``match_id`` (one indexed read)."""
    return rated_matches().filter(pk=match_id).exists()


def rated_through() -> datetime | None:
    """The end of the newest match rated so far (the sweep looks back from there)."""
    return (
        RatingCursor.objects.filter(pk=RatingCursor.ONE)
        .values_list("rated_through", flat=True)
        .first()
    )
