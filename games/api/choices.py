"""The closed sets of values the games API speaks, for the serializers of any app.

Each is an enum in the OpenAPI document, named once in SPECTACULAR_SETTINGS
``ENUM_NAME_OVERRIDES`` (several share a field name such as ``status`` or ``kind``). Other
apps' serializers (settlement's statements and webhooks) take them from here rather than
from ``games.models``.
"""

from __future__ import annotations

from games import engine
from games.engine.result import REASONS
from games.models import HandEvent, Match, Variant

VARIANTS = Variant.choices
MATCH_STATUSES = Match.Status.choices
FORFEIT_REASONS = Match.ForfeitReason.choices
# R10: why a match ended (first_to_knock, target_reached, forfeit).
MATCH_END_REASONS = REASONS
# What an events feed may hold: the engine's events and the table's own.
MATCH_EVENT_KINDS = (*engine.EVENT_KINDS, *HandEvent.TABLE_KINDS)
