"""README "Configuration" names every environment variable the code reads, and nothing else.

The code's reads are found in its syntax trees, not listed by hand: every ``.py`` file under
the apps and deploy/ is parsed, and a read is ``os.environ.get("X")``, ``os.environ["X"]``,
``os.getenv("X")``, ``ENV.get("X")`` / ``ENV["X"]`` / ``env.get("X")`` (the settings' alias of
``os.environ``, and the ``env`` mapping the configuration helpers take), or
``env_bool(ENV, "X")`` / ``env_list(ENV, "X")``. ``os.environ.setdefault`` is not a read: the
code supplies a default for a library (``DJANGO_SETTINGS_MODULE``), not a setting of its own.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
SCANNED = ("gin_platform", "games", "wallet", "settlement", "deploy")
ENV_ALIASES = {"ENV", "env"}
ENV_HELPERS = {"env_bool", "env_list"}
# Read by the celery command line, not by our code (click's auto_envvar_prefix): the deploy
# files set it, so the table documents it.
CELERY_COMMAND = {"CELERY_WORKER_CONCURRENCY"}


def _is_environ(node: ast.AST) -> bool:
    """``os.environ``, or a name the code binds to it or to a mapping like it."""
    if isinstance(node, ast.Name):
        return node.id in ENV_ALIASES
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "environ"
        and isinstance(node.value, ast.Name)
        and node.value.id == "os"
    )


def _text(node: ast.AST) -> str | None:
    is_text = isinstance(node, ast.Constant) and isinstance(node.value, str)
    return node.value if is_text else None


def names_read(source: str) -> set[str]:
    """The environment variables a module's code reads (the forms in the module docstring)."""
    names: set[str | None] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            if _is_environ(node.value):
                names.add(_text(node.slice))
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in {"get", "pop"}:
                if _is_environ(func.value):
                    names.add(_text(node.args[0]))
            elif isinstance(func, ast.Attribute) and func.attr == "getenv":
                if isinstance(func.value, ast.Name) and func.value.id == "os":
                    names.add(_text(node.args[0]))
            elif isinstance(func, ast.Name) and func.id in ENV_HELPERS and len(node.args) > 1:
                names.add(_text(node.args[1]))
    return {name for name in names if name}


def code_reads() -> dict[str, list[str]]:
    """Every variable read under SCANNED, with the files that read it."""
    found: dict[str, list[str]] = {}
    for package in SCANNED:
        for path in sorted((ROOT / package).rglob("*.py")):
            for name in names_read(path.read_text()):
                found.setdefault(name, []).append(str(path.relative_to(ROOT)))
    return found


def configuration_table() -> set[str]:
    """The variables in the first column of the table under README's "## Configuration"."""
    text = README.read_text()
    assert "\n## Configuration\n" in text, "README has no Configuration section"
    section = text.split("\n## Configuration\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    assert rows, "README's Configuration section has no table of variables"
    return {name for row in rows for name in re.findall(r"`([A-Z][A-Z0-9_]*)`", row.split("|")[1])}


def test_the_scan_finds_what_the_settings_and_deploy_read():
    """Guards the scan itself: reads through each form are found, in settings, the
    configuration helpers, the ASGI entry point and deploy/."""
    reads = code_reads()
    assert {
        "GIN_ENV",  # ENV.get
        "DATABASE_URL",  # ENV[...]
        "DEBUG",  # env_bool(ENV, ...)
        "ALLOWED_HOSTS",  # env_list(ENV, ...)
        "REDIS_URL",  # env.get in a configuration helper
        "REALTIME_HEARTBEAT_SECONDS",
        "CHANNEL_LAYER_PREFIX",
        "ASGI_THREADS",  # os.environ.get
        "GUNICORN_WORKERS",  # deploy/gunicorn.conf.py
        "DATABASE_POOL_MAX_SIZE",  # env.get in deploy/gunicorn.conf.py
    } <= set(reads)
    assert "DJANGO_SETTINGS_MODULE" not in reads  # only setdefault: a default for Django


def test_the_scan_reads_each_form_and_nothing_it_writes():
    source = """
import os
ENV = os.environ
a = ENV.get("A_GET"); b = ENV["B_ITEM"]; c = os.environ.get("C_OS"); d = os.getenv("D_ENV")
e = env_bool(ENV, "E_BOOL", default=False); f = env_list(ENV, "F_LIST", default=[])
def helper(env): return env.get("G_PARAM")
os.environ["WRITTEN"] = "1"
os.environ.setdefault("DEFAULTED", "x")
environ = {}; environ["WSGI_KEY"]
"""
    assert names_read(source) == {
        "A_GET",
        "B_ITEM",
        "C_OS",
        "D_ENV",
        "E_BOOL",
        "F_LIST",
        "G_PARAM",
    }


def test_every_variable_the_code_reads_is_in_the_readme_configuration_table():
    table = configuration_table()
    missing = {name: files for name, files in sorted(code_reads().items()) if name not in table}
    assert missing == {}, f"add these to README's Configuration table: {missing}"


def test_the_configuration_table_names_only_variables_something_reads():
    unread = configuration_table() - set(code_reads()) - CELERY_COMMAND
    assert unread == set(), f"README's Configuration table names variables no code reads: {unread}"
