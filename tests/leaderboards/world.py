"""What the leaderboard tests stand on: rating changes at chosen moments, with chosen
figures, each from a match of its own (an operator's table or the network's), and ended
tournaments whose entries paid and won chosen amounts. Written row by row where the figures
matter more than how a match got them; tests/leaderboards/test_boards.py also plays a real
tournament and real rated matches through the services."""

from __future__ import annotations

import itertools
from datetime import datetime

from games.models import Match, Room
from ratings.models import Family, RatedMatch, Rating, RatingChange
from tests.factories import SYSTEM
from tests.games.factories import RoomFactory, TableFactory
from tournaments.models import Entry, Tournament
from tournaments.services.creation import TournamentOptions, tournament_create

numbers = itertools.count(1)


def rated_at(
    player,
    *,
    rating: float,
    at: datetime,
    rd: float = 60.0,
    family: str = Family.HEADS_UP_MATCH,
    room: Room | None = None,
) -> RatingChange:
    """``player``'s rating became ``rating`` (RD ``rd``) at a match that ended ``at``: in
    ``room`` (a network room for a network match), else at a table of their operator's. The
    player's ``Rating`` in the family counts one more match (and stands where the latest
    such change left it, as the rating service leaves it)."""
    room = room or RoomFactory(operator=player.operator)
    table = TableFactory(room=room)
    match = Match.objects.create(
        table=table,
        room=room,
        operator=room.operator,
        variant=room.variant,
        currency=room.currency,
        status=Match.Status.FINISHED,
        result={},
        finished_at=at,
    )
    rated = RatedMatch.objects.create(match=match, family=family, finished_at=at, players=2)
    standing, _ = Rating.objects.get_or_create(
        player=player,
        family=family,
        defaults={"rating": rating, "rd": rd, "volatility": 0.06, "updated_at": at},
    )
    standing.matches += 1
    if standing.updated_at <= at:
        standing.rating, standing.rd, standing.updated_at = rating, rd, at
    standing.save()
    return RatingChange.objects.create(
        rated_match=rated,
        match=match,
        player=player,
        family=family,
        finished_at=at,
        place=1,
        wins=1,
        draws=0,
        losses=0,
        rating_before=rating - 12.5,
        rd_before=rd + 4,
        volatility_before=0.06,
        rating_after=rating,
        rd_after=rd,
        volatility_after=0.06,
    )


def ended_tournament(
    owner, *, at: datetime, entries, currency: str = "EUR", status: str = "finished"
) -> Tournament:
    """A tournament of ``owner`` (an operator, or the network's operator) in ``currency``
    that ended ``at``; ``entries``: ``(player, paid, prize)`` in minor units, or
    ``(player, paid, prize, how)`` with ``how`` the entry's payment (``cash``, ``ticket``,
    ``free``) or ``"prize-ticket"`` (a satellite's ticket won: ``prize`` is its worth) or
    ``"refunded"`` (its money given back)."""
    tournament = tournament_create(
        operator=owner,
        options=TournamentOptions(
            name=f"Cup {next(numbers)}",
            kind="sit_and_go",
            seats=2,
            currency=currency,
            max_entries=64,
            round_settings=[{"variant": "ftk", "target": None}],
        ),
        actor=SYSTEM,
    )
    for number, (player, paid, prize, *how) in enumerate(entries, 1):
        kind = how[0] if how else "cash"
        Entry.objects.create(
            tournament=tournament,
            player=player,
            number=number,
            status="refunded" if kind == "refunded" else "out",
            payment=kind if kind in ("ticket", "free") else "cash",
            paid=paid,
            prize=prize,
            prize_ticket=kind == "prize-ticket",
        )
    Tournament.objects.filter(pk=tournament.pk).update(status=status, ended_at=at)
    tournament.refresh_from_db()
    return tournament
