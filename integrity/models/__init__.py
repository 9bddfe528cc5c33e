"""Integrity's tables, by concern: links (who may never share a table), detection (alerts
with their evidence) and cases (the risk team's work)."""

from integrity.models.cases import Case
from integrity.models.detection import Alert, DetectionCursor, PairStats, PlayerStats
from integrity.models.links import LinkKind, PlayerLink

__all__ = [
    "Alert",
    "Case",
    "DetectionCursor",
    "LinkKind",
    "PairStats",
    "PlayerLink",
    "PlayerStats",
]
