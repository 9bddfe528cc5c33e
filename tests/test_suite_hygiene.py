"""The suite checks what it claims: every test asserts something (an ``assert``,
``pytest.raises``/``warns``/``fail``, or a helper of the suite that does), found by reading
the tests' code."""

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
