"""Integrity's state changes (docs/integrity-links.md): the marks of identifiers seen and the
links found from them (``marks``), what operators declare and send (``links``)."""

from integrity.services.links import (
    DeclaredLink,
    operator_source,
    player_identifier_record,
    player_link_declare,
    player_link_end,
)
from integrity.services.marks import (
    INTEGRITY_ACTOR,
    RecordedMark,
    derive_rule,
    links_derive,
    links_derive_pending,
    mark_record,
)

__all__ = [
    "INTEGRITY_ACTOR",
    "DeclaredLink",
    "RecordedMark",
    "derive_rule",
    "links_derive",
    "links_derive_pending",
    "mark_record",
    "operator_source",
    "player_identifier_record",
    "player_link_declare",
    "player_link_end",
]
