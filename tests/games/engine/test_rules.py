"""Room options (R6, R7, R9): defaults, allowed values, round trip."""

import pytest

from games.engine import RuleSet


def test_r9_defaults():
    rules = RuleSet()
    assert rules.knock_limit == 10  # R6
    assert (rules.gin_bonus, rules.big_gin_bonus, rules.undercut_bonus) == (25, 31, 25)  # R9
    assert rules.tie_rule == "undercut"  # R9
    assert rules.stock_exhaustion == "void"  # R7


@pytest.mark.parametrize(
    "options",
    [
        {"undercut_bonus": 10},
        {"undercut_bonus": 20},
        {"gin_bonus": 20},
        {"big_gin_bonus": 25},
        {"big_gin_bonus": 50},
        {"knock_limit": 0},
        {"knock_limit": 7},
        {"tie_rule": "no_score"},
        {"stock_exhaustion": "reshuffle"},
    ],
)
def test_r9_allowed_room_options(options):
    rules = RuleSet(**options)
    assert RuleSet.from_dict(rules.to_dict()) == rules


@pytest.mark.parametrize(
    "options",
    [
        {"undercut_bonus": 15},
        {"gin_bonus": 31},
        {"big_gin_bonus": 30},
        {"knock_limit": 11},
        {"knock_limit": -1},
        {"knock_limit": 10.0},
        {"knock_limit": True},
        {"gin_bonus": "25"},
        {"tie_rule": "split"},
        {"stock_exhaustion": "redeal"},
    ],
)
def test_r9_other_values_are_refused(options):
    with pytest.raises(ValueError, match=next(iter(options))):
        RuleSet(**options)


def test_rules_are_keyword_only_frozen_and_strict_from_dict():
    with pytest.raises(TypeError):
        RuleSet(10)  # type: ignore[misc]
    with pytest.raises(AttributeError):
        RuleSet().knock_limit = 5  # type: ignore[misc]
    with pytest.raises(ValueError, match="unknown"):
        RuleSet.from_dict({"knock_limit": 10, "jokers": True})
    assert RuleSet().to_dict() == {
        "knock_limit": 10,
        "gin_bonus": 25,
        "big_gin_bonus": 31,
        "undercut_bonus": 25,
        "tie_rule": "undercut",
        "stock_exhaustion": "void",
    }
