"""README "Architecture": games.engine imports nothing outside the standard library."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
FRAMEWORKS = ("django", "rest_framework", "celery", "kombu", "redis", "psycopg", "numpy")

PROBE = """
import json, sys
before = set(sys.modules)
import games.engine
import games.engine.bots, games.engine.views, games.engine.serialization, games.engine.match
new = sorted(set(sys.modules) - before)
print(json.dumps(new))
"""


def test_engine_imports_only_the_standard_library():
    completed = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    loaded = json.loads(completed.stdout)
    top_level = {name.split(".")[0] for name in loaded}
    outside = sorted(top_level - set(sys.stdlib_module_names) - {"games"})
    assert outside == [], f"games.engine pulled in non-stdlib modules: {outside}"
    assert not [name for name in loaded if name.split(".")[0] in FRAMEWORKS]
    # The engine package itself is the only project code loaded.
    assert {name for name in loaded if name.startswith("games")} <= {
        "games",
        *(name for name in loaded if name.startswith("games.engine")),
    }
