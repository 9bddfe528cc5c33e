"""`make demo` end to end: a real server on the embedded database, three games over HTTP."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_demo_plays_and_settles_three_games(tmp_path):
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL"}
    } | {"GIN_VAR_DIR": str(tmp_path)}
    for command in (["migrate", "--verbosity", "0"], ["demo"]):
        result = subprocess.run(
            [sys.executable, "manage.py", *command],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert result.returncode == 0, result.stderr[-3000:]
    out = result.stdout
    for variant in ("(ftk,", "(match,", "(money,"):
        assert variant in out
    assert out.count("Settlement statement") == 3
    assert out.count("Game over:") == 3
    assert "final scores" in out  # the Money Play statement explains its bonuses
    assert "wallet alice:" in out and "->" in out
    assert "Server stopped. Demo finished" in out
