"""Player protection's tables, by concern: play sessions and their reality checks."""

from protection.models.sessions import EndReason, PlaySession, RealityCheck

__all__ = ["EndReason", "PlaySession", "RealityCheck"]
