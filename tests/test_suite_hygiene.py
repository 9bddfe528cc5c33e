"""The suite checks what it claims: every test asserts something (an ``assert``,
``pytest.raises``/``warns``/``fail``, or a helper of the suite that does), found by reading
the tests' code. And the tree keeps its layout rules: no module of an app over 600 lines, no
``_name`` taken from another module."""

from __future__ import annotations

import ast
import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
CHECKING_CALLS = {
    "raises",
    "warns",
    "fail",
    "deprecated_call",
    # schemathesis: runs the checks on a response and raises on the first that fails
    "validate_response",
    "call_and_validate",
}
# A Hypothesis state machine's rules and invariants assert; running it is the check.
RUNS_A_STATE_MACHINE = {"runTest", "run_state_machine_as_test"}


class Module:
    """One file of the suite: its functions (methods too) by name, and the names it imports
    from other modules of the suite (``from tests.helpers import assert_problem as _problem``
    makes ``_problem`` mean ``tests.helpers.assert_problem``)."""

    def __init__(self, name: str, tree: ast.Module) -> None:
        self.name = name
        self.functions: dict[str, list[ast.FunctionDef]] = {}
        self.imported: dict[str, tuple[str, str]] = {}
        self.imported_modules: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self.functions.setdefault(node.name, []).append(node)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                self.imported_modules.add(node.module)
                for alias in node.names:
                    self.imported[alias.asname or alias.name] = (node.module, alias.name)


def called(call: ast.Call) -> tuple[str, bool] | None:
    """The name a call uses, and whether it is an attribute (``obj.name(...)``)."""
    if isinstance(call.func, ast.Attribute):
        return call.func.attr, True
    if isinstance(call.func, ast.Name):
        return call.func.id, False
    return None


def checks_directly(function: ast.AST) -> bool:
    for node in ast.walk(function):
        if isinstance(node, ast.Assert):
            return True
        if isinstance(node, ast.Call) and (called(node) or ("", False))[0] in (
            CHECKING_CALLS | RUNS_A_STATE_MACHINE
        ):
            return True
    return False


def load_suite() -> dict[str, Module]:
    """Every module of the suite (the benchmarks are scripts, not tests)."""
    modules = {}
    for path in sorted(TESTS.rglob("*.py")):
        relative = path.relative_to(TESTS.parent).with_suffix("")
        if "benchmarks" in relative.parts:
            continue
        name = ".".join(relative.parts)
        modules[name] = Module(name, ast.parse(path.read_text(), filename=str(path)))
    return modules


def targets(modules: dict[str, Module], module: Module, call: ast.Call) -> set[tuple[str, str]]:
    """The suite functions a call may reach, as (module, name)."""
    found = called(call)
    if found is None:
        return set()
    name, attribute = found
    if not attribute:
        if name in module.functions:
            return {(module.name, name)}
        origin, original = module.imported.get(name, (None, None))
        if origin in modules and original in modules[origin].functions:
            return {(origin, original)}
        return set()
    # obj.name(...): a method of this module or of a suite module it imports from.
    scope = [module.name, *(m for m in module.imported_modules if m in modules)]
    return {(m, name) for m in scope if name in modules[m].functions}


def checking_functions(modules: dict[str, Module]) -> set[tuple[str, str]]:
    """(module, name) of the functions that assert, directly or through another one."""
    checking = {
        (m.name, name)
        for m in modules.values()
        for name, defs in m.functions.items()
        if any(checks_directly(f) for f in defs)
    }
    grown = True
    while grown:
        grown = False
        for m in modules.values():
            for name, defs in m.functions.items():
                if (m.name, name) in checking:
                    continue
                reached = {
                    target
                    for f in defs
                    for node in ast.walk(f)
                    if isinstance(node, ast.Call)
                    for target in targets(modules, m, node)
                }
                if reached & checking:
                    checking.add((m.name, name))
                    grown = True
    return checking


def find_tests_that_check_nothing() -> list[str]:
    modules = load_suite()
    checking = checking_functions(modules)
    return sorted(
        f"{m.name}:{f.lineno} {name}"
        for m in modules.values()
        if m.name.rsplit(".", 1)[-1].startswith("test_")
        for name, defs in m.functions.items()
        if name.startswith("test") and (m.name, name) not in checking
        for f in defs
    )


def test_every_test_asserts_something():
    assert find_tests_that_check_nothing() == []


def test_the_scan_finds_a_test_without_an_assertion(tmp_path, monkeypatch):
    """The scan itself: a test that only calls code is found, also when a helper of the same
    name in another module asserts; one that asserts through a helper, under an alias or as a
    method, is not."""
    suite = tmp_path / "tests"
    suite.mkdir()
    (suite / "helpers.py").write_text(
        "def assert_ok(x):\n    assert x\n\n"
        "class Checker:\n    def check(self, x):\n        assert x\n"
    )
    (suite / "other.py").write_text("def run(x):\n    assert x\n")
    (suite / "test_probe.py").write_text(
        "from tests.helpers import Checker, assert_ok as ok\n\n"
        "def run(x):\n    print(x)\n\n"
        "def test_silent():\n    run(1)\n\n"
        "def test_through_a_helper():\n    ok(1)\n\n"
        "def test_through_a_method():\n    Checker().check(1)\n\n"
        "def test_direct():\n    assert 1\n"
    )
    monkeypatch.setattr(f"{__name__}.TESTS", suite)
    assert [line.split()[-1] for line in find_tests_that_check_nothing()] == ["test_silent"]


def is_slow_mark(node: ast.AST) -> bool:
    """``pytest.mark.slow`` (as a decorator, or in a ``pytest.param(..., marks=...)``)."""
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "slow"
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "mark"
    )


def slow_tests() -> set[str]:
    """``path::name`` of every test marked slow, whole or for some of its parameters."""
    found = set()
    for path in sorted(TESTS.rglob("test_*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
                decorators = [n for d in node.decorator_list for n in ast.walk(d)]
                if any(is_slow_mark(n) for n in decorators):
                    found.add(f"{path.relative_to(TESTS.parent)}::{node.name}")
    return found


def test_every_slow_test_is_listed_in_docs_testing_md():
    """docs/testing.md "Slow tests" names exactly the tests marked ``slow``."""
    page = (TESTS.parent / "docs" / "testing.md").read_text()
    section = page.split("## Slow tests", 1)[1].split("\n## ", 1)[0]
    listed = set(re.findall(r"`(tests/[\w/]+\.py::test_\w+)(?:\[[^\]`]*\])?`", section))
    assert listed == slow_tests()


# --- The layout rules of the whole tree (docs/testing.md "Shared helpers") -------------------
ROOT = TESTS.parent
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
MAX_LINES = 600
# Underscore names that are not the project's to hide: documented API of Django and the
# standard library that only looks private, and library hooks with no public equivalent.
# Read on a name imported from another module (or imported, for a qualified one), they are
# no reach-in.
NOT_THE_PROJECTS = {
    "_meta": "Django: a model's options (the documented Model._meta API)",
    "_default_manager": "Django: a model's default manager (documented)",
    "_base_manager": "Django: a model's base manager (documented)",
    "_asdict": "the standard library: a named tuple's documented methods",
    "_replace": "the standard library: a named tuple's documented methods",
    "_fields": "the standard library: a named tuple's documented attributes",
    "_make": "the standard library: a named tuple's documented methods",
    "_after_fork": "Celery: an app drops its pooled broker connections and producers, as a "
    "forked child does (tests/broker.py points the app at another broker); no public way",
    "channels_redis.utils._consistent_hash": "channels-redis: the shard the pub/sub layer "
    "uses for a channel, which games/realtime/layer_send.py must choose exactly alike",
}


def python_files(*tops: str) -> list[Path]:
    """Every module under the given top-level folders, migrations and benchmarks left out."""
    return sorted(
        path
        for top in tops
        for path in (ROOT / top).rglob("*.py")
        if "migrations" not in path.parts and "benchmarks" not in path.parts
    )


def test_no_module_of_any_app_is_over_600_lines():
    """The 600-line rule, for every app (migrations excepted)."""
    long = {
        str(path.relative_to(ROOT)): n
        for path in python_files(*APPS)
        if (n := len(path.read_text().splitlines())) > MAX_LINES
    }
    assert long == {}


def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_from(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The absolute module an ``ImportFrom`` reads (relative imports resolved)."""
    if not node.level:
        return node.module or ""
    package = module.split(".") if is_package else module.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def private_reach_ins(path: Path, root: Path = ROOT, tops: tuple[str, ...] = ()) -> list[str]:
    """Every ``_name`` this module takes from another module: ``from x import _y``, and
    ``x._y`` where ``x`` is a name it imported from a module of the project (a module, a
    class, a function: ``from games.services import play`` then ``play._deal``; ``import
    games.services.play`` then ``games.services.play._deal``). ``from x import y as _y`` is
    fine: the name taken is ``y``."""
    tops = tops or (*APPS, "tests")
    module = module_name(path, root)
    tree = ast.parse(path.read_text(), filename=str(path))
    here = f"{path.relative_to(root)}"
    found: list[tuple[int, str]] = []
    imported: dict[str, str] = {}  # local name -> the dotted name it stands for
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = imported_from(node, module, path.name == "__init__.py")
            for alias in node.names:
                if is_private(alias.name) and f"{source}.{alias.name}" not in NOT_THE_PROJECTS:
                    found.append((node.lineno, f"from {source} import {alias.name}"))
                if source.split(".")[0] in tops:
                    imported[alias.asname or alias.name] = f"{source}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in tops:
                    if alias.asname:
                        imported[alias.asname] = alias.name
                    else:  # `import a.b.c` binds `a`; the chain a.b.c is the module
                        imported[alias.name] = alias.name
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and is_private(node.attr)):
            continue
        if node.attr in NOT_THE_PROJECTS:
            continue
        dotted = dotted_name(node.value)
        if dotted in imported:
            found.append((node.lineno, f"{imported[dotted]}.{node.attr}"))
    return [f"{here}:{line} {what}" for line, what in sorted(found)]


def dotted_name(node: ast.AST) -> str | None:
    """``a.b.c`` for a chain of attributes on a name; None for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def test_no_module_takes_a_private_name_from_another():
    """A ``_name`` stays inside its module: a name another module uses is public, with a
    docstring. The apps and the suite alike (NOT_THE_PROJECTS are the exceptions)."""
    assert [
        reach_in for path in python_files(*APPS, "tests") for reach_in in private_reach_ins(path)
    ] == []


def test_the_scan_finds_each_kind_of_reach_in(tmp_path):
    """The scan itself: a private name imported, absolutely or relatively, or read from an
    imported module, class or dotted module path is found; an alias to a private name, a
    documented underscore name, a private name of the module's own or of an object the
    module made is not."""
    package = tmp_path / "app"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "core.py").write_text("def _secret():\n    pass\n")
    probe = package / "probe.py"
    probe.write_text(
        "import app.core\n"
        "from app import core\n"
        "from app.core import Model, public as _public\n"
        "from app.core import _secret\n"
        "from .core import _relative\n"
        "from . import core as c\n\n"
        "def _mine():\n    pass\n\n"
        "def use(thing):\n"
        "    _mine()\n"
        "    thing._anything\n"
        "    Model._meta\n"
        "    Model._hidden\n"
        "    core._secret()\n"
        "    c._other\n"
        "    app.core._dotted\n"
    )
    found = private_reach_ins(probe, root=tmp_path, tops=("app",))
    assert found == [
        "app/probe.py:4 from app.core import _secret",
        "app/probe.py:5 from app.core import _relative",
        "app/probe.py:15 app.core.Model._hidden",
        "app/probe.py:16 app.core._secret",
        "app/probe.py:17 app.core._other",
        "app/probe.py:18 app.core._dotted",
    ]
