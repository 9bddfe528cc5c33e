"""Integrity's tables, by concern: links (who may never share a table), detection (alerts
with their evidence), cases (the risk team's work) and reports (players')."""

from integrity.models.cases import Case, CaseAction, CaseNote, Confiscation, Sanction
from integrity.models.detection import Alert, DetectionCursor, PairStats, PlayerStats
from integrity.models.links import LinkKind, LinkMark, MarkKind, PlayerLink
from integrity.models.reports import PlayerReport

__all__ = [
    "Alert",
    "Case",
    "CaseAction",
    "CaseNote",
    "Confiscation",
    "DetectionCursor",
    "LinkKind",
    "LinkMark",
    "MarkKind",
    "PairStats",
    "PlayerLink",
    "PlayerReport",
    "PlayerStats",
    "Sanction",
]
