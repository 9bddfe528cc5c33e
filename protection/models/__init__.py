"""Player protection's tables, by concern: play sessions and their reality checks, and the
markers of harm (their rules and the flags they raise)."""

from protection.models.harm import HarmFlag, HarmRule, HarmRuleCode
from protection.models.sessions import EndReason, PlaySession, RealityCheck

__all__ = [
    "EndReason",
    "HarmFlag",
    "HarmRule",
    "HarmRuleCode",
    "PlaySession",
    "RealityCheck",
]
