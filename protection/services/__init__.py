"""Player protection's state changes, one module per concern (``harm``: the markers of harm's
daily job and the risk team's rule changes); the package offers every public name."""

from protection.services.harm import (
    HARM_ACTOR,
    flag_event_data,
    harm_day_default,
    harm_flag_raise,
    harm_markers_flag,
    harm_rule_update,
)

__all__ = [
    "HARM_ACTOR",
    "flag_event_data",
    "harm_day_default",
    "harm_flag_raise",
    "harm_markers_flag",
    "harm_rule_update",
]
