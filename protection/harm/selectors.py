"""Reads of the markers of harm for the back office and the job: the rules with their
settings, and the flags (a staff user limited to some operators reads their players' only)."""

from __future__ import annotations

from collections.abc import Collection
from datetime import date
from typing import Any

from django.db.models import QuerySet

from gin_platform.http.problems import NotFoundProblem
from gin_platform.models import Player
from protection.harm.rules import RULES
from protection.models import HarmFlag, HarmRule


def harm_rule_list() -> list[HarmRule]:
    """Every rule in the job's order, with its settings; a rule without its row (a test
    database flushed after the seeding migration) at its documented defaults, enabled."""
    rows = HarmRule.objects.select_related("updated_by").in_bulk(list(RULES), field_name="code")
    return [
        rows.get(code) or HarmRule(code=code, enabled=True, params=dict(rule.defaults))
        for code, rule in RULES.items()
    ]


def harm_rule_get(*, code: str) -> HarmRule:
    for row in harm_rule_list():
        if row.code == code:
            return row
    raise NotFoundProblem(f"there is no marker of harm {code!r}; they are {', '.join(RULES)}")


def harm_flag_list(
    *,
    operator_ids: Collection[Any] | None,
    player_id: Any = None,
    rule: str | None = None,
    day_from: date | None = None,
    day_to: date | None = None,
) -> QuerySet[HarmFlag]:
    """Flags about the players of ``operator_ids`` (None: every operator), optionally of
    one player, one rule, and days from ``day_from`` to ``day_to`` inclusive."""
    rows = HarmFlag.objects.select_related("player", "player__operator")
    if operator_ids is not None:
        rows = rows.filter(operator_id__in=operator_ids)
    if player_id is not None:
        rows = rows.filter(player_id=player_id)
    if rule is not None:
        rows = rows.filter(rule=rule)
    if day_from is not None:
        rows = rows.filter(day__gte=day_from)
    if day_to is not None:
        rows = rows.filter(day__lte=day_to)
    return rows


def player_harm_flags(*, player: Player) -> QuerySet[HarmFlag]:
    """The player's flags, newest day first (the back office's player page)."""
    return HarmFlag.objects.filter(player=player).order_by("-day", "rule")
