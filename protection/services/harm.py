"""Markers of harm (docs/player-protection.md "Markers of harm"): the daily job that applies
the enabled rules to a UTC day and raises their flags, and the risk team's changes to a rule.

- ``harm_markers_flag``: each enabled rule reads the day's facts and names the players it
  finds; each new flag is raised in a transaction of its own with its audit row and the
  ``player.flagged`` webhook to the player's operator (sent after the commit). A flag is
  unique per player, rule and day: running the job again for a day, or twice at once,
  raises nothing more.
- ``harm_rule_update``: enable or disable a rule, change some of its parameters (checked
  whole, by the rule); audited with the settings before and after.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import asdict
from datetime import date, timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from gin_platform.audit import audit_record
from gin_platform.events.catalogue import player_ref
from gin_platform.events.webhooks import webhook_enqueue
from gin_platform.http.problems import NotFoundProblem
from gin_platform.models import Player
from gin_platform.tenancy.principals import Actor, actor_for
from protection.harm.findings import DayWindow
from protection.harm.params import ParamsInvalid, params_merged
from protection.harm.rules import RULES
from protection.harm.selectors import harm_rule_list
from protection.locks import lock_harm_rule
from protection.models import HarmFlag, HarmRule
from protection.problems import HarmRuleInvalidProblem

logger = logging.getLogger(__name__)

# Who raises flags: the daily job.
HARM_ACTOR = Actor.system("protection.harm")


def harm_day_default() -> date:
    """The day a run looks at unless told: the UTC day before now (the last whole one)."""
    return (timezone.now() - timedelta(days=1)).date()


def harm_markers_flag(*, day: date | None = None) -> dict[str, int]:
    """Apply every enabled rule to the UTC ``day`` (default: yesterday) and raise a flag for
    each player a rule finds, once; how many new flags each rule raised. A rule whose stored
    parameters no longer pass its check is skipped and logged (the others still run)."""
    moment = timezone.now()
    window = DayWindow.of(day or harm_day_default(), now=moment)
    raised: dict[str, int] = {}
    for row in harm_rule_list():
        if not row.enabled:
            continue
        rule = RULES[row.code]
        try:
            params = rule.parse(params_merged(defaults=rule.defaults, current=row.params, given={}))
        except ParamsInvalid as exc:
            logger.error("harm rule %s skipped: its stored %s", row.code, exc)
            continue
        findings = rule.evaluate(rule.read(window, params), params)
        players = Player.objects.select_related("operator").in_bulk(
            [finding.player_id for finding in findings]
        )
        raised[row.code] = sum(
            harm_flag_raise(
                player=players[finding.player_id],
                rule=row.code,
                day=window.day,
                evidence=finding.evidence,
            )
            is not None
            for finding in findings
        )
    return raised


def flag_event_data(flag: HarmFlag, player: Player) -> dict[str, Any]:
    """The ``player.flagged`` payload: the operator's own player, the rule, the day and
    the figures."""
    return {
        **player_ref(player),
        "flag_id": flag.pk,
        "rule": flag.rule,
        "day": flag.day.isoformat(),
        "evidence": flag.evidence,
        "flagged_at": flag.created_at.isoformat(),
    }


@transaction.atomic
def harm_flag_raise(
    *, player: Player, rule: str, day: date, evidence: dict[str, Any]
) -> HarmFlag | None:
    """Raise ``rule``'s flag about ``player`` for ``day``, with its audit row and webhook;
    None when it is raised already (by an earlier run, or by a run at the same time: the
    unique row decides)."""
    if HarmFlag.objects.filter(player=player, rule=rule, day=day).exists():
        return None
    try:
        with transaction.atomic():
            flag = HarmFlag.objects.create(
                player=player, operator_id=player.operator_id, rule=rule, day=day, evidence=evidence
            )
    except IntegrityError:
        return None
    audit_record(
        actor=HARM_ACTOR,
        action="protection.player_flagged",
        obj=flag,
        operator=player.operator,
        data={"player_id": str(player.pk), "rule": rule, "day": day.isoformat()},
    )
    webhook_enqueue(
        operator=player.operator, event_type="player.flagged", data=flag_event_data(flag, player)
    )
    return flag


@transaction.atomic
def harm_rule_update(
    *,
    code: str,
    user: Any,
    enabled: bool | None = None,
    params: Mapping[str, Any] | None = None,
) -> HarmRule:
    """Enable or disable the rule ``code`` and set the parameters named in ``params`` (the
    others keep their values); the whole set is checked by the rule
    (``harm-rule-invalid`` naming the parameter). Audited with the settings before and
    after; a change that changes nothing writes nothing."""
    rule = RULES.get(code)
    if rule is None:
        raise NotFoundProblem(f"there is no marker of harm {code!r}; they are {', '.join(RULES)}")
    row = lock_harm_rule(code=code, params=dict(rule.defaults))
    try:
        merged = params_merged(defaults=rule.defaults, current=row.params, given=params or {})
        checked = asdict(rule.parse(merged))
    except ParamsInvalid as exc:
        raise HarmRuleInvalidProblem(str(exc), field=exc.field) from None
    switched = row.enabled if enabled is None else enabled
    old = {"enabled": row.enabled, "params": row.params}
    new = {"enabled": switched, "params": checked}
    if new == old:
        return row
    row.enabled, row.params = switched, checked
    row.updated_at, row.updated_by = timezone.now(), user
    row.save(update_fields=["enabled", "params", "updated_at", "updated_by"])
    audit_record(
        actor=actor_for(user),
        action="protection.harm_rule_changed",
        obj=row,
        operator=None,
        data={"code": code, "old": old, "new": new},
    )
    return row
