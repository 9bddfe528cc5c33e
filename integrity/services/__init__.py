"""Integrity's state changes, one module per concern (docs/integrity.md):

- ``cases``: cases, alerts grouped into them (automatically and by hand), notes, closing;
- ``actions``: a case's actions on players (warn, suspend and lift, block a pairing, ban);
- ``confiscation``: a colluder's winnings to the victims, with four eyes;
- ``reports``: players' reports of an opponent;
- ``events``: the ``integrity.*`` webhooks, masked across the network;
- ``marks``: identifiers seen (keyed hashes) and the links found from them;
- ``links``: what operators declare (household, associate links) and send (identifiers)
  (docs/integrity.md).
Every function is keyword-only, atomic and audited; webhooks are sent after the commit.
"""

from integrity.services.actions import (
    case_action_take,
    case_ban,
    case_pairing_block,
    case_suspend,
    case_suspension_lift,
    case_warn,
)
from integrity.services.cases import (
    alert_dismiss,
    alert_group,
    alerts_group,
    case_alerts_add,
    case_close,
    case_note_add,
    case_open,
    case_open_by_staff,
)
from integrity.services.confiscation import (
    confiscation_approve,
    confiscation_propose,
    confiscation_reject,
)
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
from integrity.services.reports import player_report_create

__all__ = [
    "INTEGRITY_ACTOR",
    "DeclaredLink",
    "RecordedMark",
    "alert_dismiss",
    "alert_group",
    "alerts_group",
    "case_action_take",
    "case_alerts_add",
    "case_ban",
    "case_close",
    "case_note_add",
    "case_open",
    "case_open_by_staff",
    "case_pairing_block",
    "case_suspend",
    "case_suspension_lift",
    "case_warn",
    "confiscation_approve",
    "confiscation_propose",
    "confiscation_reject",
    "derive_rule",
    "links_derive",
    "links_derive_pending",
    "mark_record",
    "operator_source",
    "player_identifier_record",
    "player_link_declare",
    "player_link_end",
    "player_report_create",
]
