"""The OpenAPI document through a linter we did not write: Redocly CLI's recommended rules,
every warning an error (redocly.yaml), pinned with integrity hashes in package-lock.json and
installed by `make install-node` (`npm ci`), which `make test` runs first (docs/api.md)."""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REDOCLY = ROOT / "node_modules" / ".bin" / "redocly"
CONFIG = ROOT / "redocly.yaml"


def lint(document: dict, tmp_path: Path) -> list[dict]:
    """The problems Redocly reports on ``document`` with the project's configuration."""
    assert REDOCLY.exists(), "the linter is not installed: run `make install-node` (npm ci)"
    path = tmp_path / "openapi.json"
    path.write_text(json.dumps(document))
    result = subprocess.run(
        [REDOCLY, "lint", path, "--config", CONFIG, "--lint-config", "error", "--format", "json"],
        cwd=ROOT,
        env={
            "PATH": os.environ["PATH"],
            "HOME": str(tmp_path),
            "REDOCLY_TELEMETRY": "off",
            "REDOCLY_SUPPRESS_NOTIFICATIONS": "true",
        },
        capture_output=True,
        text=True,
        timeout=120,
    )
    report = json.loads(result.stdout)
    problems = report["problems"]
    assert (result.returncode == 0) == (problems == []), result.stderr[-2000:]
    return problems


def test_the_document_passes_the_recommended_rules_warnings_included(document, tmp_path):
    problems = lint(document, tmp_path)
    assert [
        f"{p['ruleId']} ({p['severity']}): {p['message']} at {p['location'][0]['pointer']}"
        for p in problems
    ] == []


def test_the_linter_fails_an_operation_without_security_or_id_and_an_anything_anyof(
    document, tmp_path
):
    """The configuration is in force and strict: what these rules catch fails the lint."""
    broken = copy.deepcopy(document)
    del broken["paths"]["/api/v1/health/live"]["get"]["security"]
    del broken["webhooks"]["seat.taken"]["post"]["operationId"]
    fx = broken["components"]["schemas"]["StatementPlayerOutput"]["properties"]["fx"]
    fx.pop("type")
    fx["anyOf"] = [{}, {"type": "null"}]
    del broken["servers"]
    found = {(p["ruleId"], p["severity"]) for p in lint(broken, tmp_path)}
    assert found == {
        ("security-defined", "error"),
        ("operation-operationId", "error"),
        ("no-illogical-composition-keywords", "error"),
        ("no-empty-servers", "error"),
    }


def test_the_linter_is_pinned_with_integrity_hashes():
    package = json.loads((ROOT / "package.json").read_text())
    lock = json.loads((ROOT / "package-lock.json").read_text())
    pins = package["devDependencies"]
    assert set(pins) == {"@redocly/cli"} and "dependencies" not in package
    assert all(re.fullmatch(r"\d+\.\d+\.\d+", version) for version in pins.values()), pins
    assert lock["packages"][""]["devDependencies"] == pins
    installed = {k: v for k, v in lock["packages"].items() if k}
    assert installed["node_modules/@redocly/cli"]["version"] == pins["@redocly/cli"]
    assert all(entry["integrity"].startswith("sha512-") for entry in installed.values())


def test_every_rule_turned_off_says_why():
    lines = CONFIG.read_text().splitlines()
    assert "  - recommended-strict" in lines
    for number, line in enumerate(lines):
        if re.match(r"\s+[\w-]+:\s*off\b", line):
            assert lines[number - 1].lstrip().startswith("#"), f"no reason above {line!r}"


def test_make_test_installs_the_linter_from_the_lock_before_pytest():
    """`npm ci` (the lock's versions and hashes, no install scripts), never a global install;
    `-W package-lock.json`: as after a fresh clone or an edited lock."""
    result = subprocess.run(
        ["make", "--dry-run", "--no-print-directory", "-W", "package-lock.json", "test"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    commands = result.stdout.splitlines()
    install = commands.index("npm ci --ignore-scripts --no-audit --no-fund --loglevel=error")
    assert install < next(i for i, c in enumerate(commands) if c.endswith("-m pytest"))
    assert not [c for c in commands if "npm install" in c or " -g " in c]
