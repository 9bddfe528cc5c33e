"""The layout: no top-level name shadows the standard library, no module of an app is over
600 lines, gin_platform is divided by concern (docs/architecture.md "The map") and tenancy's
services import each other in one direction."""

import ast
import importlib
import sys
from pathlib import Path

from django.apps import apps

from gin_platform.tenancy import services as tenancy_services

ROOT = Path(__file__).resolve().parents[2]


def top_level_modules(root: Path) -> list[str]:
    names = []
    for entry in root.iterdir():
        if entry.is_dir() and (entry / "__init__.py").exists():
            names.append(entry.name)
        elif entry.suffix == ".py":
            names.append(entry.stem)
    return names


def test_no_top_level_module_is_named_after_the_standard_library():
    clashes = sorted(set(top_level_modules(ROOT)) & set(sys.stdlib_module_names))
    assert clashes == [], f"these shadow the standard library: {clashes}"


def test_the_check_itself_catches_a_clash(tmp_path):
    (tmp_path / "platform").mkdir()
    (tmp_path / "platform" / "__init__.py").write_text("")
    (tmp_path / "uuid.py").write_text("")
    assert set(top_level_modules(tmp_path)) & set(sys.stdlib_module_names) == {
        "platform",
        "uuid",
    }


def test_design_card_layout_exists():
    for name in (
        "manage.py",
        "pyproject.toml",
        "README.md",
        "Makefile",
        ".ci/run",
        "gin_platform",
        "games",
        "wallet",
        "settlement",
        "tests",
        "deploy",
    ):
        assert (ROOT / name).exists(), name


def test_platform_app_label_is_platform():
    assert apps.get_app_config("platform").name == "gin_platform"


def test_readme_starts_with_the_two_commands():
    head = (ROOT / "README.md").read_text().splitlines()[:15]
    text = "\n".join(head)
    assert "make demo" in text and "make test" in text


# --- gin_platform by concern ------------------------------------------------------------------
MAX_LINES = 600
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


def test_no_module_of_an_app_is_longer_than_600_lines():
    """The house rule, for every app: no module over 600 lines (migrations excepted)."""
    long = [
        f"{path.relative_to(ROOT)}: {count}"
        for app in APPS
        for path in sorted((ROOT / app).rglob("*.py"))
        if "migrations" not in path.parts
        and (count := len(path.read_text().splitlines())) > MAX_LINES
    ]
    assert long == []


# The packages gin_platform is divided into, and the modules left at its top: the Django app
# itself (apps, models, locks, tasks) and what every part shares.
PLATFORM_PACKAGES = {
    "admin",
    "api",
    "demo",
    "events",
    "http",
    "i18n",
    "management",
    "migrations",
    "project",
    "request_path",
    "staff",
    "templates",
    "tenancy",
}
PLATFORM_MODULES = {
    "__init__",
    "apps",
    "audit",
    "encryption",
    "enqueue",
    "health",
    "heartbeat",  # R13: when the platform could take moves (beside the health checks)
    "locks",
    "models",
    "money",
    "redaction",
    "signing",
    "tasks",
}


def test_gin_platform_is_divided_by_concern():
    platform = ROOT / "gin_platform"
    packages = {p.name for p in platform.iterdir() if p.is_dir() and p.name != "__pycache__"}
    modules = {p.stem for p in platform.glob("*.py")}
    assert packages == PLATFORM_PACKAGES
    assert modules == PLATFORM_MODULES


# Each module of tenancy's services and the modules of the package it may import.
TENANCY_SERVICES = {
    "operators": set(),
    "network": {"operators"},
    "sandbox": set(),
    "api_keys": {"sandbox"},
    "players": {"operators"},
    "origins": set(),
    "launch": {"players"},
    "socket_tickets": {"launch", "players"},
    "pruning": set(),
}


def test_tenancy_services_import_each_other_in_one_direction():
    package = "gin_platform.tenancy.services"
    found = {}
    for name in TENANCY_SERVICES:
        tree = ast.parse((ROOT / "gin_platform/tenancy/services" / f"{name}.py").read_text())
        found[name] = {
            node.module.rsplit(".", 1)[1]
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.startswith(package + ".")
        }
    assert found == TENANCY_SERVICES
    assert {p.stem for p in (ROOT / "gin_platform/tenancy/services").glob("*.py")} == {
        "__init__",
        *TENANCY_SERVICES,
    }


def defined_names(path: Path) -> set[str]:
    """The public names a module defines itself (functions, classes, constants)."""
    names = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return {name for name in names if not name.startswith("_")}


def test_tenancy_services_offer_every_public_name_of_their_modules():
    """Callers import ``gin_platform.tenancy.services``: every public name of its modules is
    there, the same object."""
    missing = []
    for name in TENANCY_SERVICES:
        module = importlib.import_module(f"gin_platform.tenancy.services.{name}")
        for public in defined_names(ROOT / "gin_platform/tenancy/services" / f"{name}.py"):
            if getattr(tenancy_services, public, None) is not getattr(module, public):
                missing.append(f"{name}.{public}")
            elif public not in tenancy_services.__all__:
                missing.append(f"{name}.{public} (__all__)")
    assert missing == []
