"""Who a pushed message is for: one seat of a match, or the match's watchers.

Each audience has one channel-layer group; a message is rendered once per audience, never
per socket, and no socket joins a group other than its own audience's.
"""

from __future__ import annotations

from dataclasses import dataclass

WATCHERS = "watch"
MAX_SEATS = 4  # R12: a table seats 2, 3 or 4 players


@dataclass(frozen=True)
class Audience:
    match_id: int
    seat: int | None  # None: the watchers (R11: public information only)

    @property
    def key(self) -> str:
        return WATCHERS if self.seat is None else f"seat{self.seat}"

    @property
    def group(self) -> str:
        return f"match.{self.match_id}.{self.key}"


def match_audiences(match_id: int, seat_count: int = 2) -> list[Audience]:
    """Every seat's audience and the watchers'. A push asks for ``MAX_SEATS`` seats and
    keeps those somebody listens to (``presence.listened``), so it needs no query to know
    the table's size (R12); a seat nobody holds renders nothing."""
    return [Audience(match_id, seat) for seat in range(seat_count)] + [Audience(match_id, None)]
