"""Who imports whom (docs/architecture.md "The import contracts"): the import-linter
contracts in pyproject.toml hold on the tree, `make test` runs them before pytest, each
contract fails on a copy of the tree with one forbidden import added, and the page lists
every contract."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"
PACKAGES = (
    "gin_platform",
    "games",
    "wallet",
    "settlement",
    "integrity",
    "protection",
    "tournaments",
    "ratings",
    "matchmaking",
    "leaderboards",
)


def contracts() -> list[dict]:
    with (ROOT / "pyproject.toml").open("rb") as config:
        return tomllib.load(config)["tool"]["importlinter"]["contracts"]


def contract_named(name: str) -> dict:
    (contract,) = [c for c in contracts() if c["name"] == name]
    return contract


def lint_imports(tree: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--no-logo"],  # reads tree/pyproject.toml
        cwd=tree,
        env={**os.environ, "COLUMNS": "400", "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )


def broken(output: str) -> set[str]:
    """The names of the contracts lint-imports reports BROKEN (a contract with an exception
    says how many imports it ignored)."""
    found = re.finditer(r"^(.+?) BROKEN(?: \(\d+ ignored imports?\))?\s*$", output, re.MULTILINE)
    return {m.group(1) for m in found}


def test_the_tree_keeps_every_import_contract():
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"Contracts: {len(contracts())} kept, 0 broken." in result.stdout, result.stdout


def test_make_test_runs_the_import_contracts_before_pytest():
    makefile = (ROOT / "Makefile").read_text()
    recipe = re.search(r"^test:.*\n((?:\t.*\n)+)", makefile, re.MULTILINE)
    assert recipe, "no test target in the Makefile"
    lines = recipe.group(1).splitlines()
    lint = next(i for i, line in enumerate(lines) if "lint-imports" in line)
    pytest_line = next(i for i, line in enumerate(lines) if "-m pytest" in line)
    assert lint < pytest_line


def test_the_architecture_page_lists_every_contract():
    page = (ROOT / "docs" / "architecture.md").read_text()
    section = page.split("### The import contracts", 1)[1].split("\n## ", 1)[0]
    missing = [c["name"] for c in contracts() if c["name"] not in section]
    assert missing == []


@pytest.fixture(scope="module")
def clean_tree(tmp_path_factory) -> Path:
    """The project's packages and pyproject.toml, copied once."""
    tree = tmp_path_factory.mktemp("tree")
    for package in PACKAGES:
        shutil.copytree(
            ROOT / package, tree / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    shutil.copy(ROOT / "pyproject.toml", tree / "pyproject.toml")
    return tree


@pytest.fixture
def tree(clean_tree, tmp_path) -> Path:
    copy = tmp_path / "tree"
    shutil.copytree(clean_tree, copy)
    return copy


ENGINE = "The engine imports only the standard library"
WALLET = "wallet knows no games"
SETTLEMENT = "games never imports settlement (it sends games.signals.match_finished)"
LEDGER = "games moves money only through wallet.services: no ledger rows or locks"
PAIRING = (
    "games asks integrity one question only, through integrity.pairing "
    "(may these players share a table?)"
)
PAIRING_PURE = "integrity.pairing imports no games: games calls it from the seating path"
PROTECTION = (
    "games asks player protection through protection.play only "
    "(may this player sit? is a reality check due?)"
)
PROTECTION_PURE = "protection.play imports no games: games calls it from the seating and move paths"
WIRING = "Only the apps and gin_platform's wiring modules import an app"
DEMO = "gin_platform's demo is run only by its management command"
GAMES_VIEWS = "games' views, serializers and tasks import no other app's models"
WALLET_VIEWS = "wallet's views and serializers import no other app's models"
SETTLEMENT_VIEWS = "settlement's views, serializers and tasks import no other app's models"
PLATFORM_VIEWS = "gin_platform's views, serializers and tasks import no app's models"
SETTLEMENT_LEDGER = "settlement reads the ledger only through wallet's selectors"
WALLET_LAYERS = "wallet's layers: api, admin and tasks, then services, selectors, models"
SETTLEMENT_LAYERS = (
    "settlement's layers: api, admin, tasks and receivers, then services, reports, selectors, "
    "models"
)
NO_TOURNAMENTS = (
    "games never imports tournaments (tournaments open games' matches and hear "
    "games.signals.match_finished)"
)
TOURNAMENT_ENGINE = "The tournament engine imports only the standard library and games.engine"
TOURNAMENT_LAYERS = (
    "tournaments' layers: entry points, then services, pushes, presenters, selectors, the "
    "engine, models"
)
NO_RATINGS = (
    "games never imports ratings (ratings hear games.signals.match_finished and read games' "
    "selectors)"
)
RATING_ENGINE = "The rating engine imports only the standard library"
RATING_LAYERS = (
    "ratings' layers: api, tasks, receivers and the command, then services, selectors, the "
    "engine, models"
)
NO_MATCHMAKING = (
    "games never imports matchmaking (matchmaking reads games.matchmaking_selectors and seats "
    "pairs through games.services)"
)
MATCHMAKING_BANDS = "The quick seat's pairing (matchmaking.bands) imports only the standard library"
MATCHMAKING_LAYERS = (
    "matchmaking's layers: api and tasks, then services, presenters, selectors, problems, the "
    "pairing, models"
)
RATINGS_NO_TOURNAMENTS = (
    "ratings never imports tournaments (tournaments read ratings.selectors to seed a bracket)"
)
NO_LEADERBOARDS = "Nothing imports leaderboards (they read ratings' and tournaments' selectors)"
LEADERBOARD_PERIODS = (
    "The leaderboards' periods (leaderboards.periods) import only the standard library"
)
LEADERBOARD_LAYERS = (
    "leaderboards' layers: api and the page, then services, selectors, problems, periods"
)
GAMES_LAYERS = "games' layers: entry points, then services, pushes, presenters, selectors, models"
PLATFORM_LAYERS = (
    "gin_platform's layers: api, admin, tasks and commands, then services, selectors, models"
)

# (module, the line added to it, the contract it breaks). A module that does not exist in the
# tree is created.
BREAKS = [
    ("games/engine/probe.py", "import django", ENGINE),
    ("games/probe.py", "from tournaments import models", NO_TOURNAMENTS),
    ("settlement/probe.py", "import tournaments.selectors", NO_TOURNAMENTS),
    ("tournaments/engine/probe.py", "import django", TOURNAMENT_ENGINE),
    ("tournaments/engine/probe.py", "from games.engine import fairness", TOURNAMENT_ENGINE),
    ("tournaments/engine/probe.py", "from tournaments import models", TOURNAMENT_ENGINE),
    ("tournaments/services/probe.py", "from tournaments import tasks", TOURNAMENT_LAYERS),
    ("tournaments/selectors.py", "from tournaments.services import prizes", TOURNAMENT_LAYERS),
    # The watchers' pushes render with the presenters; the services call the publisher.
    (
        "tournaments/realtime/publisher.py",
        "from tournaments.services import events",
        TOURNAMENT_LAYERS,
    ),
    ("tournaments/api/presenters.py", "from tournaments.realtime import render", TOURNAMENT_LAYERS),
    (
        "tournaments/services/probe.py",
        "from tournaments.realtime import consumers",
        TOURNAMENT_LAYERS,
    ),
    ("tournaments/realtime/render.py", "from tournaments.web import views", TOURNAMENT_LAYERS),
    ("wallet/probe.py", "import tournaments.models", WALLET),
    ("tournaments/probe.py", "from integrity.models import PlayerLink", PAIRING),
    ("games/probe.py", "from ratings import selectors", NO_RATINGS),
    ("settlement/probe.py", "import ratings.models", NO_RATINGS),
    ("ratings/engine/probe.py", "import django", RATING_ENGINE),
    ("ratings/engine/probe.py", "from games import engine", RATING_ENGINE),
    ("ratings/engine/probe.py", "from ratings import models", RATING_ENGINE),
    ("ratings/services.py", "from ratings import tasks", RATING_LAYERS),
    ("ratings/selectors.py", "from ratings import services", RATING_LAYERS),
    ("wallet/probe.py", "import ratings.selectors", WALLET),
    ("gin_platform/probe.py", "from ratings import selectors", WIRING),
    ("games/probe.py", "from matchmaking import services", NO_MATCHMAKING),
    ("ratings/probe.py", "import matchmaking.models", NO_MATCHMAKING),
    ("tournaments/probe.py", "from matchmaking import selectors", NO_MATCHMAKING),
    ("ratings/probe.py", "from tournaments import selectors", RATINGS_NO_TOURNAMENTS),
    ("tournaments/probe.py", "from leaderboards import selectors", NO_LEADERBOARDS),
    ("ratings/probe.py", "import leaderboards.periods", NO_LEADERBOARDS),
    ("games/probe.py", "from leaderboards import services", NO_LEADERBOARDS),
    ("wallet/probe.py", "import leaderboards.selectors", WALLET),
    ("gin_platform/probe.py", "from leaderboards import selectors", WIRING),
    ("leaderboards/periods.py", "import django", LEADERBOARD_PERIODS),
    ("leaderboards/periods.py", "from ratings import models", LEADERBOARD_PERIODS),
    ("leaderboards/selectors.py", "from leaderboards import services", LEADERBOARD_LAYERS),
    ("leaderboards/services.py", "from leaderboards.api import views", LEADERBOARD_LAYERS),
    ("leaderboards/problems.py", "from leaderboards import selectors", LEADERBOARD_LAYERS),
    ("matchmaking/bands.py", "import django", MATCHMAKING_BANDS),
    ("matchmaking/bands.py", "from games import engine", MATCHMAKING_BANDS),
    ("matchmaking/bands.py", "from matchmaking import models", MATCHMAKING_BANDS),
    ("matchmaking/selectors.py", "from matchmaking import services", MATCHMAKING_LAYERS),
    ("matchmaking/services.py", "from matchmaking import tasks", MATCHMAKING_LAYERS),
    ("matchmaking/probe.py", "from integrity.models import PlayerLink", PAIRING),
    ("matchmaking/probe.py", "from protection.models import PlaySession", PROTECTION),
    ("wallet/probe.py", "import matchmaking.models", WALLET),
    ("gin_platform/probe.py", "from matchmaking import selectors", WIRING),
    ("games/engine/probe.py", "import numpy", ENGINE),
    ("games/engine/probe.py", "from games import models", ENGINE),
    ("games/engine/probe.py", "from gin_platform import money", ENGINE),
    ("wallet/probe.py", "from games.engine import deadwood", WALLET),
    ("wallet/probe.py", "import settlement.models", WALLET),
    ("wallet/probe.py", "from integrity import pairing", WALLET),
    ("games/probe.py", "from integrity.models import PlayerLink", PAIRING),
    ("settlement/probe.py", "from integrity import pairing", PAIRING),
    ("integrity/pairing.py", "from games.models import Seat", PAIRING_PURE),
    ("games/probe.py", "from protection.models import PlaySession", PROTECTION),
    ("settlement/probe.py", "from protection import play", PROTECTION),
    ("protection/play.py", "from games.models import Seat", PROTECTION_PURE),
    ("wallet/probe.py", "from protection import play", WALLET),
    # Indirectly: through a platform module that imports settlement.
    ("games/probe.py", "import gin_platform.probe", SETTLEMENT),
    ("games/probe.py", "from wallet.models import LedgerEntry", LEDGER),
    ("gin_platform/probe.py", "from wallet import services", WIRING),
    ("gin_platform/health.py", "from games.models import Match", WIRING),
    ("gin_platform/tenancy/services/operators.py", "from gin_platform.demo import client", DEMO),
    ("games/api/views.py", "from wallet.models import LedgerTransaction", GAMES_VIEWS),
    ("games/api/serializers.py", "from gin_platform.models import Player", GAMES_VIEWS),
    ("games/tasks.py", "from settlement.models import Settlement", GAMES_VIEWS),
    ("games/services/play.py", "from games.tasks import bot_move", GAMES_LAYERS),
    ("games/realtime/publisher.py", "from games.realtime import consumers", GAMES_LAYERS),
    ("wallet/api/serializers.py", "from gin_platform.models import Player", WALLET_VIEWS),
    ("settlement/api/views.py", "from gin_platform.models import Operator", SETTLEMENT_VIEWS),
    ("settlement/tasks.py", "from wallet.models import LedgerTransaction", SETTLEMENT_VIEWS),
    ("gin_platform/api/player_views.py", "from wallet.models import Account", PLATFORM_VIEWS),
    ("settlement/network.py", "from wallet.models import LedgerEntry", SETTLEMENT_LEDGER),
    ("settlement/statements.py", "from wallet.selectors import postings", SETTLEMENT_LEDGER),
    ("wallet/selectors/probe.py", "from wallet import services", WALLET_LAYERS),
    ("wallet/services/probe.py", "from wallet.api import views", WALLET_LAYERS),
    ("settlement/selectors.py", "from settlement import services", SETTLEMENT_LAYERS),
    # The services name the tasks they queue; the tasks import the services.
    ("settlement/services.py", "from settlement import tasks", SETTLEMENT_LAYERS),
    ("gin_platform/events/webhooks.py", "from gin_platform import tasks", PLATFORM_LAYERS),
    (
        "gin_platform/tenancy/services/players.py",
        "from gin_platform.api import inputs",
        PLATFORM_LAYERS,
    ),
    (
        "gin_platform/tenancy/selectors.py",
        "from gin_platform.tenancy import services",
        PLATFORM_LAYERS,
    ),
    ("gin_platform/models.py", "from gin_platform.events import selectors", PLATFORM_LAYERS),
]


@pytest.mark.parametrize(("module", "line", "contract"), BREAKS)
def test_a_forbidden_import_breaks_its_contract(tree, module, line, contract):
    contract_named(contract)  # the contract exists under this name
    if contract == SETTLEMENT:  # the platform module the games module goes through
        (tree / "gin_platform" / "probe.py").write_text("import settlement.services\n")
    path = tree / module
    path.write_text((path.read_text() if path.exists() else "") + f"\n{line}\n")

    result = lint_imports(tree)

    assert result.returncode == 1, result.stdout + result.stderr
    assert contract in broken(result.stdout), result.stdout


def test_the_copied_tree_keeps_every_contract(tree):
    """The copy the tests above break passes as it is, so each failure is the added line's."""
    result = lint_imports(tree)
    assert result.returncode == 0, result.stdout + result.stderr
