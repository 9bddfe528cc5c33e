"""Shapes of the markers of harm's answers: a rule with its settings, a flag with its
player (the staff user's scope already limited the flags to their operators' players)."""

from __future__ import annotations

from typing import Any

from protection.harm.rules import RULES
from protection.models import HarmFlag, HarmRule


def harm_rule(row: HarmRule) -> dict[str, Any]:
    rule = RULES[row.code]
    return {
        "code": row.code,
        "summary": rule.summary,
        "enabled": row.enabled,
        "params": {**rule.defaults, **row.params},
        "defaults": dict(rule.defaults),
        "updated_at": row.updated_at,
        "updated_by": row.updated_by.get_username() if row.updated_by else None,
    }


def harm_flag(row: HarmFlag) -> dict[str, Any]:
    return {
        "id": row.pk,
        "player": {
            "player_id": row.player_id,
            "operator_id": row.operator_id,
            "external_ref": row.player.external_ref,
            "screen_name": row.player.screen_name,
        },
        "rule": row.rule,
        "day": row.day,
        "evidence": row.evidence,
        "created_at": row.created_at,
    }
