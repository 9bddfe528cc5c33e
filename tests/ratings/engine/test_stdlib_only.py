"""The rating engine imports only the standard library (R15's arithmetic is pure: no
Django, no database, no other project package)."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

PROBE = """
import json, sys
before = set(sys.modules)
import ratings.engine
new = sorted(set(sys.modules) - before)
print(json.dumps(new))
"""


def test_the_rating_engine_imports_only_the_standard_library():
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
    assert all(name == "ratings" or name.startswith("ratings.engine") for name in project), project
    assert "ratings.engine.glicko2" in project
