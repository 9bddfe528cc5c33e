"""The games app's code is laid out by concern (README "Architecture"; the map in
docs/games.md "Where things are"): the services package has one module per concern and
keeps every public name at ``games.services``; its modules import each other in one
direction; reads, API shapes, query parameters and row locks each have their one place; no
tracker number stands in for a rule's name."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from games import selectors, services, tasks
from games.services import (
    hand_lifecycle,
    house_bot,
    interruptions,
    network,
    pair_seating,
    play,
    protection_clock,
    rooms,
    seating,
    timers,
    tournament_matches,
    waiting_list,
)

ROOT = Path(__file__).resolve().parents[2]
GAMES = ROOT / "games"
MAX_LINES = 600

SERVICE_MODULES = {
    "rooms": set(),
    "network": {"rooms"},
    # Player protection at the table (docs/player-protection.md): a leaf.
    "protection_clock": set(),
    "hand_lifecycle": {"protection_clock"},
    # R13: the turn clock's stages, and the platform's outages (deadlines moved, voids).
    "turn_clock": {"hand_lifecycle", "protection_clock"},
    "interruptions": {"hand_lifecycle", "network"},
    "play": {"network", "hand_lifecycle", "turn_clock", "protection_clock"},
    "timers": {"hand_lifecycle", "turn_clock", "interruptions", "play"},
    "house_bot": {"play"},
    "seat_checks": {"house_bot"},
    "seating": {"rooms", "network", "hand_lifecycle", "timers", "house_bot", "seat_checks"},
    "waiting_list": {"rooms", "seat_checks", "seating"},
    # R15's quick seat: two seats taken together as seating takes one.
    "pair_seating": {"seating"},
    # R14: a tournament's matches, started as seating starts a full table.
    "tournament_matches": {
        "hand_lifecycle",
        "house_bot",
        "interruptions",
        "seat_checks",
        "seating",
    },
}

# What ``games.services`` offered before it became a package, with the module that owns it.
PUBLIC_NAMES = {
    rooms: [
        "MAX_AMOUNT",
        "MAX_STAKE_PER_POINT_CHOICES",
        "MAX_TABLES_PER_REQUEST",
        "room_create",
        "room_update",
        "table_create",
        "tournament_room_check",
        "tournament_room_open",
    ],
    seating: ["SeatResult", "seat_leave", "seat_take", "table_seat_bot"],
    hand_lifecycle: ["SCORE_FIELDS", "bot_move_delay"],
    play: [
        "RESULT_FORMAT",
        "ActionResult",
        "hand_apply_action",
        "match_mark_settled",
        "match_settled_record",
        "matches_settled_record",
        "player_action_apply",
    ],
    timers: [
        "TIMER_ACTOR",
        "TIMER_BATCH",
        "TimerSweep",
        "match_forfeit",
        "match_resign",
        "turn_grace",
        "turn_timers_expire",
    ],
    network: [
        "match_event_enqueue",
        "network_room_create",
        "network_room_opt_in",
        "network_room_opt_out",
        "player_ref_for",
        "player_screen_name_set",
        "result_for_operator",
        "screen_name_problem",
    ],
    waiting_list: [
        "WAITING_LIST_ACTOR",
        "waiting_list_expire",
        "waiting_list_join",
        "waiting_list_leave",
        "waiting_list_match",
    ],
    interruptions: ["match_void"],
    pair_seating: ["PairSeat", "PairSeatRefused", "pair_seat"],
    tournament_matches: [
        "NO_SHOW_ACTOR",
        "tournament_match_open",
        "tournament_match_rules",
        "tournament_match_void",
        "tournament_no_shows_sweep",
        "tournament_seat_claim",
    ],
    protection_clock: ["PROTECTION_ACTOR", "reality_check_closed", "stop_after_hand"],
    house_bot: [
        "BOT_ACTOR",
        "HOUSE_BOT_NAME",
        "bot_play",
        "house_bot_player",
        "is_house_bot",
    ],
}


def _application_modules() -> list[Path]:
    return sorted(
        path
        for path in GAMES.rglob("*.py")
        if "migrations" not in path.parts and "__pycache__" not in path.parts
    )


def test_the_services_are_a_package_with_one_module_per_concern():
    package = GAMES / "services"
    assert package.is_dir() and not (GAMES / "services.py").exists()
    modules = {path.stem for path in package.glob("*.py")} - {"__init__"}
    assert modules == set(SERVICE_MODULES)


def test_every_public_name_is_still_importable_from_games_services():
    for module, names in PUBLIC_NAMES.items():
        for name in names:
            assert getattr(services, name) is getattr(module, name), (module.__name__, name)
    exported = {name for names in PUBLIC_NAMES.values() for name in names}
    assert set(services.__all__) == exported


def test_the_services_do_not_re_export_reads_or_other_apps():
    for name in ("selectors", "wallet", "engine", "room_get", "game_view", "money"):
        assert not hasattr(services, name), name


def _sibling_imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith("games.services."):
                found.add(node.module.removeprefix("games.services."))
            elif node.module == "games.services":
                found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("games.services."):
                    found.add(alias.name.removeprefix("games.services."))
    return found


def test_the_services_modules_import_each_other_in_one_direction():
    """rooms and the hand's lifecycle import no sibling, network only rooms; play builds on
    network, the lifecycle and the turn clock, timers on those and the interruptions,
    house_bot on play; seating on all of
    them; the waiting list on seating. No cycle, so each module can be read (and imported)
    on its own terms."""
    for name, allowed in SERVICE_MODULES.items():
        imported = _sibling_imports(GAMES / "services" / f"{name}.py")
        assert imported <= allowed, (name, imported - allowed)


def test_the_services_queue_only_tasks_of_games_tasks_by_their_names():
    """A service names the task it queues (gin_platform/enqueue.py takes the name): the task
    module imports the services, never the other way round. Each name is a task there."""
    named = {
        node.value
        for path in (GAMES / "services").glob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value.startswith("games.tasks.")
    }
    assert named == {
        "games.tasks.bot_move",
        "games.tasks.waiting_list_match",
        "games.tasks.match_void_task",
    }
    for name in named:
        assert getattr(tasks, name.rpartition(".")[2]).name == name


def test_no_module_of_the_games_app_is_over_600_lines():
    long = {
        str(path.relative_to(ROOT)): n
        for path in _application_modules()
        if (n := len(path.read_text().splitlines())) > MAX_LINES
    }
    assert long == {}


def test_the_views_parse_no_query_parameter_and_run_no_query_by_hand():
    """Query parameters go through games.api.filters; reads through games.selectors."""
    source = (GAMES / "api" / "views.py").read_text()
    for forbidden in ("query_params.get", ".objects", "refresh_from_db", "_int_param"):
        assert forbidden not in source, forbidden


def test_the_selectors_build_no_api_shape():
    """The dict builders are games.api.presenters'; selectors return rows and querysets."""
    for name in (
        "money",
        "lobby_room",
        "match_summary",
        "operator_match",
        "public_result",
        "hand_view",
        "showdown_view",
        "game_view",
        "watcher_hand_view",
        "watch_view",
        "event_for_viewer",
        "hand_history",
        "hand_fairness",
        "HAND_VIEW_KEYS",
        "WATCH_HAND_KEYS",
    ):
        assert not hasattr(selectors, name), name


TRACKER = re.compile(r"\b(?:issues?|items?)\s+\d", re.IGNORECASE)


def test_code_and_docs_name_rules_not_tracker_numbers():
    paths = [*_application_modules(), ROOT / "docs" / "games.md"]
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in paths
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if TRACKER.search(line)
    ]
    assert found == []
