"""The layout, and no top-level name shadows the standard library."""

import sys
from pathlib import Path

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
    from django.apps import apps

    assert apps.get_app_config("platform").name == "gin_platform"


def test_readme_starts_with_the_two_commands():
    head = (ROOT / "README.md").read_text().splitlines()[:15]
    text = "\n".join(head)
    assert "make demo" in text and "make test" in text
