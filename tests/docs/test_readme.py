"""README.md is the page a newcomer reads in five minutes: short, the architecture drawn, every
doc in its table. (Its two commands come first: tests/platform/test_layout.py; its
configuration table: test_configuration_table.py.)"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
MOST_LINES = 250


def section(heading: str) -> str:
    text = README.read_text()
    assert f"\n## {heading}\n" in text, f"README has no {heading} section"
    return text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


def test_the_readme_is_short():
    lines = len(README.read_text().splitlines())
    assert lines <= MOST_LINES, f"README.md has {lines} lines: move detail to docs/"


def test_the_architecture_section_draws_a_move_and_a_payout():
    diagrams = re.findall(r"^```text\n(.*?)^```$", section("Architecture"), re.S | re.M)
    move = [d for d in diagrams if "/api/v1/matches/{id}/actions" in d and "/ws/v1/" in d]
    payout = [d for d in diagrams if "match_finished" in d and "ledger" in d]
    assert move, "no diagram of a move (over REST and the socket)"
    assert payout, "no diagram of a payout (from match_finished to the ledger)"
    assert "docs/architecture.md" in section("Architecture")


def test_the_documentation_table_has_every_doc_and_only_docs_that_exist():
    listed = set(re.findall(r"^\| (docs/[\w-]+\.md) \|", section("Documentation"), re.M))
    on_disk = {f"docs/{path.name}" for path in (ROOT / "docs").glob("*.md")}
    assert listed == on_disk, {"missing": on_disk - listed, "gone": listed - on_disk}
