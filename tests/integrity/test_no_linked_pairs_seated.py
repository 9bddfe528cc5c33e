"""The acceptance test of the seating rule (docs/integrity.md "The seating rule"): in
10,000 synthetic sits and waiting-list matches, among players of two operators of a network
linked by every kind of link the platform knows (a device both operators sent, a payment
instrument, a household address the platform saw, household and associate links the
operators declared), not one linked pair is ever seated at one table, while unlinked pairs
are, by the thousand.

Most of the work drives the services directly (``seat_take``, ``waiting_list_join``,
``waiting_list_match``); a smaller share goes over HTTP. The 10,000 are run as four shards of
2,500, each with its own population and seed, so that no one test takes more than about a
minute and parallel workers (xdist) spread them. The verdict is read from the seats
themselves against the link table, not from the code under test."""

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
from tests.integrity.links_world import World, room_make, share_identifier, world_make
from tests.wallet.factories import fund

# Real commits: tens of thousands of savepoints in one test transaction would slow every
# query of the run (PostgreSQL's subtransaction overflow), and the commit hooks run as live.
pytestmark = pytest.mark.django_db(transaction=True)

TOTAL = 10_000
SHARDS = 4
PER_SHARD = TOTAL // SHARDS
HTTP_SITS = 80  # per shard
WAITING_LIST_ENTRIES = 180  # per shard
SERVICE_SITS = PER_SHARD - HTTP_SITS - WAITING_LIST_ENTRIES
CLUSTERS = 16  # of four players: two of each operator, every pair linked
LONE_PLAYERS = 16  # linked to nobody
LINKED_SHARE = 0.7  # of the tries at a table with somebody seated: by a player linked to them
WAITING_GROUP = 6  # entries joined per waiting-list round: a whole cluster and two others
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


class Population:
    def __init__(self, clusters: list[list], lone: list) -> None:
        self.clusters = clusters
        self.everyone = [*itertools.chain(*clusters), *lone]
        self.mates = {
            p.pk: [m for m in members if m.pk != p.pk] for members in clusters for p in members
        }

    def candidate(self, seated: list, rng: random.Random):
        """The next player to try the table: linked to somebody seated (LINKED_SHARE of the
        time, when anybody is), else anybody linked to nobody seated; and whether linked."""
        ids = {p.pk for p in seated}
        linked = {m.pk: m for p in seated for m in self.mates.get(p.pk, []) if m.pk not in ids}
        if linked and rng.random() < LINKED_SHARE:
            return rng.choice(sorted(linked.values(), key=lambda p: p.pk)), True
        free = [p for p in self.everyone if p.pk not in ids and p.pk not in linked]
        return rng.choice(free), False


def service_sits(room, people: Population, rng, tally: Tally, count: int) -> None:
    """``count`` sits through ``seat_take`` at fresh four-seat tables (R12): the first player
    sits alone, then players try to join, most of them linked to somebody seated."""
    while tally.attempts < count:
        table = Table.objects.create(room=room)
        seated: list = []
        while len(seated) < room.seats and tally.attempts < count:
            candidate, linked = people.candidate(seated, rng)
            tally.attempts += 1
            tally.linked_tries += linked
            try:
                games.seat_take(player=candidate, table=table, actor=SYSTEM)
            except LinkedPlayersProblem:
                tally.refused += 1
                continue
            seated.append(candidate)
            tally.seated += 1


def http_sits(room, people: Population, rng, tally: Tally, count: int) -> None:
    """The same over HTTP at two-seat tables, with each player's own session."""
    clients = {p.pk: session_client(p) for p in people.everyone}
    done = 0
    while done < count:
        table = Table.objects.create(room=room)
        seated: list = []
        while len(seated) < room.seats and done < count:
            candidate, linked = people.candidate(seated, rng)
            done += 1
            tally.linked_tries += linked
            answer = sit(clients[candidate.pk], table.pk)
            if answer.status_code == 409:
                assert answer.json()["type"] == "/problems/linked-players"
                tally.refused += 1
                continue
            assert answer.status_code == 201, answer.json()
            seated.append(candidate)
            tally.seated += 1


def waiting_list_rounds(room, people: Population, rng, tally: Tally, count: int) -> int:
    """``count`` waiting-list entries in rounds of WAITING_GROUP: a whole cluster first (its
    entries the oldest, all linked to each other), then players linked to none of them,
    matched as production does (the task each join queues on its commit, and a sweep
    after); those left waiting leave. Returns how many entries were seated."""
    joined = 0
    while joined < count:
        cluster = rng.choice(people.clusters)
        ids = {p.pk for p in cluster}
        others = rng.sample([p for p in people.everyone if p.pk not in ids], WAITING_GROUP - 4)
        for player in [*cluster, *others][: count - joined]:
            games.waiting_list_join(player=player, room=room, actor=SYSTEM)
            joined += 1
        while games.waiting_list_match(room_id=room.pk):
            pass
        for entry in WaitingListEntry.objects.filter(status="waiting").select_related("player"):
            games.waiting_list_leave(player=entry.player, room=room, actor=SYSTEM)
    seated = WaitingListEntry.objects.filter(room=room, status="seated").count()
    tally.seated += seated
    return seated


@pytest.mark.slow
@pytest.mark.parametrize("shard", range(SHARDS), ids=lambda n: f"shard {n + 1} of {SHARDS}")
def test_no_linked_pair_is_ever_seated_in_ten_thousand_sits_and_matches(shard):
    world = world_make()
    four = room_make(name="Net Four", seats=4)
    two = room_make(name="Net Two")
    listed_room = room_make(name="Net Waiting")
    clusters, lone = clusters_make(world)
    links = linked_in_force()
    # Every pair inside a cluster is linked; no lone player is linked to anybody.
    assert len(links) == CLUSTERS * 6
    people = Population(clusters, lone)
    rng = random.Random(40 + shard)
    tally = Tally()
    service_sits(four, people, rng, tally, SERVICE_SITS)
    http_sits(two, people, rng, tally, HTTP_SITS)
    listed = waiting_list_rounds(listed_room, people, rng, tally, WAITING_LIST_ENTRIES)

    pairs = [pair for room in (four, two, listed_room) for pair in seated_pairs(room)]
    linked_seated = [pair for pair in pairs if pair in links]
    assert linked_seated == []
    # Not vacuous: linked players tried thousands of times and were refused each time, and
    # unlinked ones were seated together by the thousand, by every path.
    assert tally.linked_tries >= 1_000 and tally.refused == tally.linked_tries
    assert len(pairs) >= 1_000 and tally.seated >= 800
    assert listed >= WAITING_LIST_ENTRIES * 0.6  # the rest were linked to all left waiting
    print(
        f"\nshard {shard + 1} of {SHARDS}: {SERVICE_SITS + HTTP_SITS} sits "
        f"({HTTP_SITS} over HTTP) and "
        f"{WAITING_LIST_ENTRIES} waiting-list entries: {tally.linked_tries} linked tries, "
        f"{tally.refused} refused, {tally.seated} seated, {len(pairs)} pairs at a table, "
        f"{len(linked_seated)} of them linked"
    )
