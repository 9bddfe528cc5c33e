"""The acceptance test of the seating rule (docs/integrity-links.md "The seating rule"): in
10,000 synthetic sits and waiting-list matches, among players of two operators of a network
linked by every kind of link the platform knows (a device both operators sent, a payment
instrument, a household address the platform saw, household and associate links the
operators declared), not one linked pair is ever seated at one table, while unlinked pairs
are, by the thousand.

Most of the work drives the services directly (``seat_take``, ``waiting_list_join``,
``waiting_list_match``) so that the run stays within a couple of minutes; a smaller share
goes over HTTP. The verdict is read from the seats themselves against the link table, not
from the code under test."""

from __future__ import annotations

import itertools
import random
from collections import defaultdict

import pytest

from games import services as games
from games.models import Seat, Table, WaitingListEntry
from games.problems import LinkedPlayersProblem
from integrity import services as integrity
from integrity.models import PlayerLink
from tests.factories import SYSTEM
from tests.games.helpers import sit
from tests.helpers import session_client
from tests.integrity.world import World, room_make, share_identifier, world_make
from tests.wallet.factories import fund

pytestmark = pytest.mark.django_db

TOTAL = 10_000
HTTP_SITS = 400
WAITING_LIST_ENTRIES = 2_400
SERVICE_SITS = TOTAL - HTTP_SITS - WAITING_LIST_ENTRIES
CLUSTERS = 16  # of four players: two of each operator, every pair linked
LONE_PLAYERS = 16  # linked to nobody
FUNDS = 5_000_000  # minor units: enough buy-ins (5.00 EUR) for every sit


def clusters_make(world: World) -> tuple[list[list], list]:
    """The population and its links, made as production makes them."""
    clusters = []
    for number in range(CLUSTERS):
        a1, a2 = world.player(world.a), world.player(world.a)
        b1, b2 = world.player(world.b), world.player(world.b)
        members = [a1, b1, a2, b2]
        kind = number % 3
        if kind == 0:  # one device, sent by both operators
            share_identifier(members, kind="device", value=f"tablet-{number}")
        elif kind == 1:  # one payment instrument
            share_identifier(members, kind="payment_instrument", value=f"card-fp-{number}")
        else:  # a household address, and the operators' own declarations
            share_identifier(members, kind="address", value=f"81.2.{number}.160")
            integrity.player_link_declare(
                player=a1, other_player_id=a2.pk, kind="associate", actor=SYSTEM
            )
            integrity.player_link_declare(
                player=b1, other_player_id=b2.pk, kind="household", actor=SYSTEM
            )
        clusters.append(members)
    lone = [world.player(world.a if n % 2 else world.b) for n in range(LONE_PLAYERS)]
    for player in itertools.chain(*clusters, lone):
        fund(player, FUNDS)
    return clusters, lone


def linked_in_force() -> set[tuple]:
    return set(
        PlayerLink.objects.filter(ended_at__isnull=True).values_list(
            "player_low_id", "player_high_id"
        )
    )


def seated_pairs(room) -> list[tuple]:
    """Every pair of players who shared a table of ``room`` (any state but left)."""
    by_match = defaultdict(set)
    for match_id, player_id in Seat.objects.filter(match__room=room).values_list(
        "match_id", "player_id"
    ):
        by_match[match_id].add(player_id)
    return [
        tuple(sorted(pair))
        for players in by_match.values()
        for pair in itertools.combinations(players, 2)
    ]


class Tally:
    def __init__(self) -> None:
        self.attempts = 0
        self.linked_tries = 0
        self.refused = 0
        self.seated = 0


def service_sits(room, clusters, lone, rng, tally: Tally, count: int) -> None:
    """``count`` sits through ``seat_take``: a player sits alone at a fresh table, then
    players try to join them, half of them linked to the one seated."""
    cluster_of = {p.pk: members for members in clusters for p in members}
    everyone = [*itertools.chain(*clusters), *lone]
    while tally.attempts < count:
        anchor = rng.choice(everyone)
        table = Table.objects.create(room=room)
        games.seat_take(player=anchor, table=table, actor=SYSTEM)
        tally.attempts += 1
        tally.seated += 1
        mates = [p for p in cluster_of.get(anchor.pk, []) if p.pk != anchor.pk]
        while tally.attempts < count:
            strangers = [p for p in everyone if p not in mates and p.pk != anchor.pk]
            candidate = rng.choice(mates if mates and rng.random() < 0.6 else strangers)
            tally.attempts += 1
            tally.linked_tries += candidate in mates
            try:
                games.seat_take(player=candidate, table=table, actor=SYSTEM)
            except LinkedPlayersProblem:
                tally.refused += 1
                continue
            tally.seated += 1
            break


def http_sits(room, clusters, lone, rng, tally: Tally, count: int) -> None:
    """The same over HTTP, with each player's own session."""
    clients = {p.pk: session_client(p) for p in itertools.chain(*clusters, lone)}
    cluster_of = {p.pk: members for members in clusters for p in members}
    everyone = [*itertools.chain(*clusters), *lone]
    done = 0
    while done < count:
        anchor = rng.choice(everyone)
        table = Table.objects.create(room=room)
        assert sit(clients[anchor.pk], table.pk).status_code == 201
        done += 1
        tally.seated += 1
        mates = [p for p in cluster_of.get(anchor.pk, []) if p.pk != anchor.pk]
        while done < count:
            strangers = [p for p in everyone if p not in mates and p.pk != anchor.pk]
            candidate = rng.choice(mates if mates and rng.random() < 0.6 else strangers)
            done += 1
            tally.linked_tries += candidate in mates
            answer = sit(clients[candidate.pk], table.pk)
            if answer.status_code == 409:
                assert answer.json()["type"] == "/problems/linked-players"
                tally.refused += 1
                continue
            assert answer.status_code == 201, answer.json()
            tally.seated += 1
            break


def waiting_list_rounds(room, clusters, lone, tally: Tally, count: int) -> int:
    """``count`` waiting-list entries, joined cluster by cluster (so that the oldest entries
    are linked to each other) and matched by ``waiting_list_match``; returns how many were
    seated."""
    order = [*itertools.chain(*clusters), *lone]
    joined = seated = 0
    while joined < count:
        for player in order[: count - joined]:
            games.waiting_list_join(player=player, room=room, actor=SYSTEM)
            joined += 1
        while True:
            now = games.waiting_list_match(room_id=room.pk)
            seated += now
            if not now:
                break
        for entry in WaitingListEntry.objects.filter(status="waiting").select_related(
            "player"
        ):  # linked to everyone still waiting: they leave, and join again next round
            games.waiting_list_leave(player=entry.player, room=room, actor=SYSTEM)
    tally.seated += seated
    return seated


def test_no_linked_pair_is_ever_seated_in_ten_thousand_sits_and_matches():
    world = world_make()
    room = room_make(name="Net Acceptance")
    clusters, lone = clusters_make(world)
    links = linked_in_force()
    # Every pair inside a cluster is linked; no lone player is linked to anybody.
    assert len(links) == CLUSTERS * 6
    rng = random.Random(40)
    tally = Tally()
    service_sits(room, clusters, lone, rng, tally, SERVICE_SITS)
    http_sits(room, clusters, lone, rng, tally, HTTP_SITS)
    listed = waiting_list_rounds(room, clusters, lone, tally, WAITING_LIST_ENTRIES)

    pairs = seated_pairs(room)
    linked_seated = [pair for pair in pairs if pair in links]
    assert linked_seated == []
    # Not vacuous: linked players tried thousands of times and were refused each time, and
    # the unlinked ones were seated together by the thousand, by every path.
    assert tally.linked_tries >= 2_000 and tally.refused == tally.linked_tries
    assert len(pairs) >= 3_000 and tally.seated >= 6_000
    assert listed >= WAITING_LIST_ENTRIES * 0.9
    print(
        f"\n{SERVICE_SITS + HTTP_SITS} sits ({HTTP_SITS} over HTTP) and "
        f"{WAITING_LIST_ENTRIES} waiting-list entries: {tally.linked_tries} linked tries, "
        f"{tally.refused} refused, {len(pairs)} pairs seated, {len(linked_seated)} linked"
    )
