"""The markers of harm by code, in the order the job applies them."""

from __future__ import annotations

from protection.harm import chasing_losses, deposits_rising, long_sessions, night_play
from protection.harm.findings import Rule

RULES: dict[str, Rule] = {
    rule.code: rule
    for rule in (deposits_rising.RULE, long_sessions.RULE, chasing_losses.RULE, night_play.RULE)
}
