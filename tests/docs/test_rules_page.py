"""docs/rules.md is the rule book the code cites by number: every rule R1-R14 keeps its
heading, in order, and every R-number the code cites is one of them."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "rules.md"
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


def rule_numbers() -> list[int]:
    return [int(number) for number in re.findall(r"^## R(\d+) ", PAGE.read_text(), re.MULTILINE)]


def test_every_rule_keeps_its_heading_in_order() -> None:
    numbers = rule_numbers()
    assert numbers == list(range(1, len(numbers) + 1))
    assert len(numbers) >= 14
    title = PAGE.read_text().splitlines()[0]
    assert title.endswith(f"(R1-R{numbers[-1]})"), title


def test_every_rule_the_code_cites_is_on_the_page() -> None:
    known = set(rule_numbers())
    cited = {
        (str(path.relative_to(ROOT)), int(number))
        for app in APPS
        for path in (ROOT / app).rglob("*.py")
        for number in re.findall(r"\bR(\d{1,2})\b", path.read_text())
    }
    assert sorted(c for c in cited if c[1] not in known) == []
