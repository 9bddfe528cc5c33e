"""R15's quick-seat pairing (matchmaking/bands.py), pure: the band's width over time, who may
meet whom, and the pairs a queue seats (docs/rules.md R15 "Quick seat"'s worked examples;
then properties over any queue, with Hypothesis)."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from matchmaking.bands import Waiting, band_width, may_meet, pairs

T0 = datetime(2026, 12, 6, 20, 0, tzinfo=UTC)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def nobody_linked(first, second) -> bool:
    return False


def ticket(number: int, rating: float, joined: float = 0.0, player: object = None) -> Waiting:
    return Waiting(number, player if player is not None else f"p{number}", rating, at(joined))


def test_the_band_starts_at_100_widens_by_50_every_10_s_and_holds_anybody_after_60_s():
    widths = [band_width(seconds) for seconds in (0, 5, 9.99, 10, 19.9, 20, 30, 40, 50, 59.99)]
    assert widths == [100, 100, 100, 150, 150, 200, 250, 300, 350, 350]
    assert band_width(60) == band_width(3600) == math.inf
    assert band_width(-1) == 100  # a clock a little behind the join


def test_two_new_players_meet_within_100_points_only():
    now = at(0)
    assert may_meet(ticket(1, 1500), ticket(2, 1600), now=now)
    assert not may_meet(ticket(1, 1500), ticket(2, 1600.01), now=now)


def test_a_band_that_reaches_the_other_rating_is_enough():
    """The worked example: Ann (1500) has waited 25 s, +-200; Bob (1680) has just come,
    +-100. Ann's band holds 1680, so they meet; at 15 s (+-150) it did not."""
    ann, bob = ticket(1, 1500, joined=0), ticket(2, 1680, joined=25)
    assert may_meet(ann, bob, now=at(25)) and may_meet(bob, ann, now=at(25))
    assert not may_meet(ann, ticket(2, 1680, joined=15), now=at(15))


def test_after_60_s_anybody_at_all():
    lonely = ticket(1, 2400, joined=0)
    assert not may_meet(lonely, ticket(2, 1200, joined=59.9), now=at(59.9))
    assert may_meet(lonely, ticket(2, 1200, joined=60), now=at(60))


def test_one_player_never_meets_themselves_nor_a_linked_player():
    assert not may_meet(ticket(1, 1500, player="ann"), ticket(2, 1500, player="ann"), now=at(0))
    linked = {frozenset({"p1", "p2"})}

    def is_linked(first, second) -> bool:
        return frozenset({first, second}) in linked

    both = [ticket(1, 1500), ticket(2, 1500)]
    assert pairs(both, now=at(0), linked=nobody_linked) == [tuple(both)]
    assert pairs(both, now=at(0), linked=is_linked) == []


def test_the_closest_ratings_are_paired_first():
    """1500 joined first; 1590 and 1510 came later. 1500 and 1510 are the closest pair; 1590
    waits (nobody else is within its band)."""
    waiting = [ticket(1, 1500, 0), ticket(2, 1590, 1), ticket(3, 1510, 2)]
    chosen = pairs(waiting, now=at(2), linked=nobody_linked)
    assert [(a.ticket, b.ticket) for a, b in chosen] == [(1, 3)]


def test_a_tie_goes_to_the_pair_that_has_waited_longer():
    """1500 and 1600 are both 50 from 1550; the one waiting since 0 s is paired, the
    longer-waiting player first in the pair."""
    waiting = [ticket(1, 1550, 5), ticket(2, 1600, 3), ticket(3, 1500, 0)]
    chosen = pairs(waiting, now=at(5), linked=nobody_linked)
    assert [(a.ticket, b.ticket) for a, b in chosen] == [(3, 1)]


def test_a_widening_band_pairs_what_it_did_not_before():
    ann, bob = ticket(1, 1500, 0), ticket(2, 1750, 0)
    assert pairs([ann, bob], now=at(29.9), linked=nobody_linked) == []  # +-200 each
    assert pairs([ann, bob], now=at(30), linked=nobody_linked) == [(ann, bob)]  # +-250


# --- Any queue ----------------------------------------------------------------------------
queues = st.lists(
    st.tuples(
        st.floats(min_value=800, max_value=2600, allow_nan=False),
        st.floats(min_value=0, max_value=90),
        st.integers(min_value=0, max_value=30),  # the player: some hold two tickets
    ),
    max_size=24,
)
link_sets = st.sets(st.tuples(st.integers(0, 30), st.integers(0, 30)), max_size=20)


@settings(max_examples=300, deadline=None)
@given(queue=queues, links=link_sets, now=st.floats(min_value=0, max_value=120))
def test_any_queue_pairs_each_ticket_once_within_its_bands_and_leaves_nobody_who_may_meet(
    queue, links, now
):
    waiting = [
        Waiting(index, player, rating, at(joined))
        for index, (rating, joined, player) in enumerate(queue)
        if joined <= now
    ]
    linked_players = {frozenset(pair) for pair in links}

    def linked(first, second) -> bool:
        return frozenset({first, second}) in linked_players

    moment = at(now)
    chosen = pairs(waiting, now=moment, linked=linked)
    seated = [w.ticket for pair in chosen for w in pair]
    assert len(seated) == len(set(seated))  # nobody seated twice
    for first, second in chosen:
        assert may_meet(first, second, now=moment)
        assert first.player != second.player and not linked(first.player, second.player)
        assert (first.joined_at, first.ticket) <= (second.joined_at, second.ticket)
    gaps = [abs(a.rating - b.rating) for a, b in chosen]
    assert gaps == sorted(gaps)  # the closest first
    left = [w for w in waiting if w.ticket not in seated]
    for index, first in enumerate(left):
        for second in left[index + 1 :]:
            assert not may_meet(first, second, now=moment) or linked(first.player, second.player)
    # Anybody who has waited 60 s is left over only when nobody else is there to meet.
    for lonely in (w for w in left if w.waited(moment) >= 60):
        others = [w for w in left if w is not lonely and w.player != lonely.player]
        assert all(linked(lonely.player, other.player) for other in others)
