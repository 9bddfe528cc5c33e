"""What `make demo` and `make test` install: the runtime lock (requirements/base.lock) is
enough to run the platform, and the development lock (requirements/dev.lock) adds the test,
lint and benchmark tools to it without changing a runtime pin."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib.metadata import distribution
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEAVY_TOOLS = {"open-spiel", "numpy", "scipy", "rlcard", "schemathesis"}
TEST_TOOLS = {"pytest", "pytest-django", "hypothesis", "factory-boy", "ruff", "import-linter"}


def pins(lock: str) -> dict[str, tuple[str, frozenset[str]]]:
    """package -> (version, its hashes) of a uv-compiled lock file."""
    text = (ROOT / "requirements" / lock).read_text()
    found = {}
    for block in re.split(r"\n(?=[A-Za-z0-9])", text):
        head = re.match(r"([A-Za-z0-9_.\-]+)==(\S+)", block)
        if head:
            hashes = frozenset(re.findall(r"--hash=(sha256:[0-9a-f]+)", block))
            found[head.group(1).lower()] = (head.group(2), hashes)
    return found


def test_the_dev_lock_pins_every_runtime_package_exactly_as_the_runtime_lock():
    base, dev = pins("base.lock"), pins("dev.lock")
    assert base, "no pins read from base.lock"
    differing = {name: (pin, dev.get(name)) for name, pin in base.items() if dev.get(name) != pin}
    assert differing == {}


def test_the_runtime_lock_holds_no_test_or_benchmark_tool():
    base, dev = pins("base.lock"), pins("dev.lock")
    assert set(dev) >= (HEAVY_TOOLS | TEST_TOOLS)
    assert (HEAVY_TOOLS | TEST_TOOLS) & set(base) == set()


def dev_only_modules() -> set[str]:
    """Top-level import names of the packages only the development lock installs."""
    base, dev = pins("base.lock"), pins("dev.lock")
    names = set()
    for package in set(dev) - set(base):
        dist = distribution(package)
        top_level = dist.read_text("top_level.txt")
        if top_level:
            names |= set(top_level.split())
        else:  # wheels without top_level.txt: the first part of each file's path
            names |= {
                Path(str(f)).parts[0].removesuffix(".py")
                for f in dist.files or ()
                if not str(f).startswith(("..", "__")) and ".dist-info" not in str(f)
            }
    return {name for name in names if name.isidentifier()}


RUNTIME_ONLY = """
import importlib, importlib.abc, os, pkgutil, sys

BLOCKED = set(sys.argv[1].split(","))


class DevelopmentPackages(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"{name} is installed by the development lock only")


sys.meta_path.insert(0, DevelopmentPackages())
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gin_platform.project.settings")
import django

django.setup()
APPS = (
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
for package in APPS:
    for module in pkgutil.walk_packages(importlib.import_module(package).__path__, package + "."):
        importlib.import_module(module.name)
from django.core.management import call_command

call_command("check")
print("runtime-only imports ok")
"""


def test_the_platform_runs_without_the_development_packages(tmp_path):
    """Every module of the four packages imports, and `manage.py check` passes, in a process
    that cannot import anything only the development lock installs (as after `make demo`)."""
    blocked = dev_only_modules()
    assert {"pytest", "numpy", "schemathesis", "requests"} <= blocked
    result = subprocess.run(
        [sys.executable, "-c", RUNTIME_ONLY, ",".join(sorted(blocked))],
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "GIN_VAR_DIR": str(tmp_path), "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "runtime-only imports ok" in result.stdout


def make_dry_run(target: str, venv: Path) -> str:
    """The commands `make <target>` would run with an empty virtualenv at ``venv``."""
    result = subprocess.run(
        ["make", "--dry-run", "--no-print-directory", target, f"VENV={venv}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_make_demo_installs_the_runtime_lock_only(tmp_path):
    commands = make_dry_run("demo", tmp_path / "venv")
    assert "-r requirements/base.lock" in commands
    assert "dev.lock" not in commands
    assert "manage.py demo" in commands


def test_make_test_installs_the_development_lock_into_the_same_virtualenv(tmp_path):
    venv = tmp_path / "venv"
    commands = make_dry_run("test", venv)
    assert "-r requirements/dev.lock" in commands
    assert f"{venv}/bin/python -m pytest" in commands
    # The development install leaves both stamps (dev.lock holds base.lock's pins): the demo
    # installs nothing more.
    venv.mkdir()
    for stamp in set(re.findall(r"\S*/\.installed-(?:base|dev)-\w+", commands)):
        Path(stamp).touch()
    assert "pip install" not in make_dry_run("demo", venv)
