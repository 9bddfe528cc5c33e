"""Benchmark: one leaderboard page's statement on PostgreSQL at scale (docs/leaderboards.md
"One statement per page").

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \\
        .venv/bin/python tests/benchmarks/bench_leaderboards.py [--players 20000]
        [--changes 10] [--entries 40000] [--repeat 7]

Seeds a scratch database (``bench_boards_<pid>`` on the server of DATABASE_URL, migrated,
dropped at the end): one operator with ``--players`` players, every one with a screen name;
``--changes`` heads-up Match Play rating changes each, spread over four weeks (one in
twenty provisional); ``--entries`` entries in 500 ended tournaments in EUR over the same
four weeks (buy-in 10.00 + 1.00, a tenth of them paid a prize). Then times the statement
each board page runs, as the API runs it (``leaderboards.selectors.leaderboard``, paged by
``rank`` as ``LeaderboardPagination`` pages it, 50 rows): the first page and one 5,000 ranks
down, of the rating board and the winnings board, for a week and for the month, the median
of ``--repeat`` runs after one warm-up, and each statement's plan's execution time
(EXPLAIN ANALYZE). It is a script, not a test: pytest does not collect it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/postgres"
PAGE = 50
TOURNAMENTS = 500


def with_database(url: str, name: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path=f"/{name}"))


def admin_execute(url: str, statement: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(statement)


def django_setup(url: str) -> None:
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gin_platform.project.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    os.environ["DEBUG"] = "false"  # as in production: DEBUG keeps every query's SQL
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def seed(*, players: int, changes: int, entries: int, first: date) -> None:
    """Rows straight into the tables (SQL ``generate_series``): the figures, not how a match
    or a tournament made them, are what the boards read."""
    from django.db import connection

    from games.models import Match
    from gin_platform.models import Operator
    from ratings.models import RatedMatch
    from tests.factories import SYSTEM
    from tests.games.factories import RoomFactory, TableFactory
    from tournaments.services.creation import TournamentOptions, tournament_create

    operator = Operator.objects.create(name="Bench", slug="bench", base_currency="EUR")
    room = RoomFactory(operator=operator)
    table = TableFactory(room=room)
    # One match per change number: a player's n-th change is at match n (one per player).
    rated = []
    for _ in range(changes):
        match = Match.objects.create(
            table=table,
            room=room,
            operator=operator,
            variant="match",
            currency="EUR",
            status=Match.Status.FINISHED,
            result={},
            finished_at=datetime.now(UTC),
        )
        rated.append(
            RatedMatch.objects.create(
                match=match, family="heads_up_match", finished_at=match.finished_at, players=2
            )
        )
    tournaments = [
        tournament_create(
            operator=operator,
            options=TournamentOptions(
                name=f"Bench {number}",
                kind="sit_and_go",
                seats=2,
                currency="EUR",
                max_entries=64,
                buy_in=1_000,
                entry_fee=100,
                round_settings=[{"variant": "ftk", "target": None}],
            ),
            actor=SYSTEM,
        ).pk
        for number in range(TOURNAMENTS)
    ]
    since = datetime.combine(first, datetime.min.time(), tzinfo=UTC)
    with connection.cursor() as cursor:
        cursor.execute(
            """INSERT INTO platform_player (id, operator_id, external_ref, display_name,
                   wallet_currency, display_currency, locale, status, kyc_status, screen_name,
                   leaderboard_opt_out, created_at)
               SELECT gen_random_uuid(), %s, 'p' || n, 'Player ' || n, 'EUR', 'EUR', 'en',
                   'active', 'verified', 'P' || n, false, now()
               FROM generate_series(1, %s) AS n""",
            [operator.pk, players],
        )
        for index, rated_match in enumerate(rated):
            # Each player's change number ``index``: somewhere in the four weeks, later
            # numbers later; one in twenty left provisional (RD 150).
            cursor.execute(
                """INSERT INTO ratings_ratingchange (rated_match_id, match_id, player_id, family,
                       finished_at, place, wins, draws, losses, rating_before, rd_before,
                       volatility_before, rating_after, rd_after, volatility_after)
                   SELECT %s, %s, p.id, 'heads_up_match',
                       %s::timestamptz + (%s + random()) * (interval '28 days' / %s),
                       1, 1, 0, 0, 1500, 100, 0.06, 1200 + random() * 800,
                       CASE WHEN random() < 0.05 THEN 150 ELSE 40 + random() * 70 END, 0.06
                   FROM platform_player p WHERE p.operator_id = %s""",
                [rated_match.pk, rated_match.match_id, since, index, changes, operator.pk],
            )
        cursor.execute(  # each player's Rating: their count of matches, the board's join
            """INSERT INTO ratings_rating (player_id, family, rating, rd, volatility, matches,
                   updated_at)
               SELECT p.id, 'heads_up_match', 1500, 60, 0.06, %s, now()
               FROM platform_player p WHERE p.operator_id = %s""",
            [changes, operator.pk],
        )
        cursor.execute(
            """WITH numbered AS (
                   SELECT id, row_number() OVER (ORDER BY id) AS n FROM platform_player
                   WHERE operator_id = %s)
               INSERT INTO tournaments_entry (tournament_id, player_id, number, status, payment,
                   paid, entry_reference, refund_reference, registered_at, out_reason,
                   prize, prize_ticket, prize_reference)
               SELECT t.id, p.id, e.n, 'out', 'cash', 1100, '', '', now(), 'lost',
                   CASE WHEN random() < 0.1 THEN (random() * 20000)::bigint ELSE 0 END,
                   false, ''
               FROM generate_series(1, %s) AS e(n)
               JOIN LATERAL (SELECT %s::bigint[] AS ids) AS a ON true
               JOIN tournaments_tournament t ON t.id = a.ids[1 + (e.n - 1) %% %s]
               JOIN numbered p ON p.n = 1 + ((e.n * 7919) %% %s)
               ON CONFLICT DO NOTHING""",
            [operator.pk, entries, tournaments, TOURNAMENTS, players],
        )
        cursor.execute(
            """UPDATE tournaments_tournament
               SET status = 'finished',
                   ended_at = %s::timestamptz + (id %% 28) * interval '1 day' + interval '20 hours'
               WHERE id = ANY(%s)""",
            [since, tournaments],
        )
        cursor.execute("ANALYZE")


def measure(*, first: date, repeat: int) -> list[tuple[str, float, float, int]]:
    """(label, median wall ms, EXPLAIN ANALYZE execution ms, rows on the board)."""
    from django.db import connection

    from gin_platform.models import Operator
    from leaderboards.periods import MONTH, WEEK, period_of
    from leaderboards.selectors import leaderboard

    operator = Operator.objects.get(slug="bench")
    results = []
    for kind, day in ((WEEK, first + timedelta(days=15)), (MONTH, first + timedelta(days=15))):
        for board in ("rating", "winnings"):
            found = leaderboard(
                operator=operator,
                scope="operator",
                board=board,
                period=period_of(kind, day),
                family="heads_up_match",
                currency="EUR",
            )
            size = found.rows.count()
            for after in (0, 5_000):
                page = found.rows.filter(rank__gt=after).order_by("rank")[:PAGE]
                list(page.all())  # warm-up
                times = []
                for _ in range(repeat):
                    start = time.perf_counter()
                    rows = list(page.all())  # a fresh queryset: no result cache
                    times.append((time.perf_counter() - start) * 1000)
                assert len(rows) == min(PAGE, max(0, size - after))
                sql, params = page.query.sql_with_params()
                with connection.cursor() as cursor:
                    cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + sql, params)
                    plan = cursor.fetchone()[0]
                plan = plan[0] if isinstance(plan, list) else plan
                label = f"{board} {kind} ranks {after + 1}-{after + PAGE}"
                results.append((label, statistics.median(times), plan["Execution Time"], size))
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=20_000)
    parser.add_argument("--changes", type=int, default=10)
    parser.add_argument("--entries", type=int, default=40_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--keep", action="store_true", help="keep the scratch database")
    args = parser.parse_args()
    server = os.environ.get("DATABASE_URL", DEFAULT_URL)
    if not server.startswith(("postgres://", "postgresql://")):
        sys.exit("DATABASE_URL must be a PostgreSQL server's URL")
    name = f"bench_boards_{os.getpid()}"
    admin_execute(server, f'CREATE DATABASE "{name}"')
    try:
        django_setup(with_database(server, name))
        first = date.today() - timedelta(days=35)
        first -= timedelta(days=first.weekday())  # a Monday: four whole ISO weeks
        start = time.perf_counter()
        seed(players=args.players, changes=args.changes, entries=args.entries, first=first)
        print(
            f"seeded in {time.perf_counter() - start:.1f} s: {args.players} players, "
            f"{args.players * args.changes} rating changes, {args.entries} entries"
        )
        print(f"{'page':<34} {'board rows':>10} {'median ms':>10} {'plan ms':>8}")
        for label, wall, plan, size in measure(first=first, repeat=args.repeat):
            print(f"{label:<34} {size:>10} {wall:>10.1f} {plan:>8.1f}")
    finally:
        from django.db import connections

        connections.close_all()
        if args.keep:
            print(f"kept: {with_database(server, name)}")
        else:
            admin_execute(server, f'DROP DATABASE IF EXISTS "{name}"')
    return 0


if __name__ == "__main__":
    sys.exit(main())
