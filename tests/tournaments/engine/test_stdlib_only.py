"""The tournament engine imports only the standard library and games.engine (docs/rules.md
R14 is pure logic: no Django, no database)."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

PROBE = """
import json, sys
before = set(sys.modules)
import tournaments.engine
new = sorted(set(sys.modules) - before)
print(json.dumps(new))
"""


def test_the_tournament_engine_imports_only_the_standard_library_and_games_engine():
    completed = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    loaded = json.loads(completed.stdout)
    project = sorted(name for name in loaded if name.split(".")[0] not in sys.stdlib_module_names)
    assert all(
        name in ("games", "tournaments") or name.startswith(("games.engine", "tournaments.engine"))
        for name in project
    ), project
    assert "tournaments.engine.bracket" in project and "games.engine.fairness" in project
