"""A case's actions on players (docs/integrity.md "Actions"), each atomic with its
``CaseAction`` row, its audit row and the ``integrity.case_action`` webhook to the
operators concerned (masked across the network):

- ``case_warn``: the player's operator (only) is told to warn them, with the message
  (nothing changes here);
- ``case_suspend`` / ``case_suspension_lift``: the player sits at no table while a
  suspension is in force (``integrity.pairing.play_refusal``, asked on every sit);
- ``case_pairing_block``: the two players are never seated together again (a
  ``case_block`` PlayerLink, which the seating path already refuses);
- ``case_ban``: the player sits at no table, and at network tables neither do their
  other accounts (linked by device, address or payment instrument); shared with every
  member of the network.
The confiscation is in integrity/services/confiscation.py (four eyes).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from gin_platform.audit import audit_record
from gin_platform.models import Player
from gin_platform.tenancy.principals import actor_for
from integrity import selectors
from integrity.locks import lock_case
from integrity.models import Case, CaseAction, LinkKind, PlayerLink, Sanction
from integrity.problems import CaseActionInvalidProblem
from integrity.services.cases import check_case_player, check_open, check_text
from integrity.services.events import event_send, network_member_ids, player_shown

Kind = CaseAction.Kind


def action_record(
    *,
    case: Case,
    kind: str,
    user: Any,
    reason: str = "",
    player: Player | None = None,
    other: Player | None = None,
    data: dict[str, Any] | None = None,
    operator_ids: set[Any] | None = None,
    public: dict[str, Any] | None = None,
    public_for: Callable[[Any], dict[str, Any]] | None = None,
) -> CaseAction:
    """The action's row, its audit row and its webhook (to ``operator_ids``: by default
    the operators of the case's players, with ``public`` added to each copy, and what
    ``public_for(operator_id)`` builds for that operator's)."""
    action = CaseAction.objects.create(
        case=case,
        kind=kind,
        player=player,
        other_player=other,
        reason=reason,
        data=data or {},
        actor=user,
    )
    audit_record(
        operator=None,
        actor=actor_for(user),
        action=f"integrity.{kind}",
        obj=case,
        data={
            "action": action.pk,
            "player": str(player.pk) if player else None,
            "other_player": str(other.pk) if other else None,
            "reason": reason,
            **(data or {}),
        },
    )
    targets = operator_ids if operator_ids is not None else selectors.case_operator_ids(case)

    def data_for(operator_id: Any) -> dict[str, Any]:
        return {
            "case_id": case.pk,
            "action": kind,
            "player": player_shown(player, operator_id=operator_id) if player else None,
            "other_player": player_shown(other, operator_id=operator_id) if other else None,
            "at": action.created_at.isoformat(),
            **(public or {}),
            **(public_for(operator_id) if public_for is not None else {}),
        }

    event_send(operator_ids=targets, event_type="integrity.case_action", data_for=data_for)
    return action


def _open_case_player(
    case: Case, player_id: object, field: str = "player_id"
) -> tuple[Case, Player]:
    locked = lock_case(case_id=case.pk)
    check_open(locked)
    return locked, check_case_player(locked, player_id, field)


@transaction.atomic
def case_warn(*, case: Case, player_id: object, reason: str, user: Any) -> CaseAction:
    """Ask the player's operator to warn them (the webhook to that operator carries it)."""
    locked, player = _open_case_player(case, player_id)
    reason = check_text(reason, "reason")
    return action_record(
        case=locked,
        kind=Kind.WARN,
        user=user,
        reason=reason,
        player=player,
        operator_ids={player.operator_id},  # the warning is for the player's operator only
        public={"message": reason},
    )


@transaction.atomic
def case_suspend(*, case: Case, player_id: object, reason: str, user: Any) -> CaseAction:
    """Suspend the player from play until lifted (refused if one is in force already)."""
    locked, player = _open_case_player(case, player_id)
    reason = check_text(reason, "reason")
    if selectors.sanction_in_force(player_id=player.pk, kind=Sanction.Kind.SUSPENSION):
        raise CaseActionInvalidProblem("the player is suspended already", field="player_id")
    try:
        with transaction.atomic():
            Sanction.objects.create(
                player=player, kind=Sanction.Kind.SUSPENSION, case=locked, reason=reason
            )
    except IntegrityError:  # a concurrent suspension of the same player won
        raise CaseActionInvalidProblem(
            "the player is suspended already", field="player_id"
        ) from None
    return action_record(case=locked, kind=Kind.SUSPEND, user=user, reason=reason, player=player)


@transaction.atomic
def case_suspension_lift(*, case: Case, player_id: object, reason: str, user: Any) -> CaseAction:
    """Lift the player's suspension (a suspension of any case; a ban stays)."""
    locked = lock_case(case_id=case.pk)
    player = check_case_player(locked, player_id, "player_id")
    reason = check_text(reason, "reason")
    lifted = Sanction.objects.filter(
        player=player, kind=Sanction.Kind.SUSPENSION, lifted_at__isnull=True
    ).update(lifted_at=timezone.now())
    if not lifted:
        raise CaseActionInvalidProblem("the player is not suspended", field="player_id")
    return action_record(
        case=locked, kind=Kind.LIFT_SUSPENSION, user=user, reason=reason, player=player
    )


@transaction.atomic
def case_pairing_block(
    *, case: Case, player_id: object, other_player_id: object, reason: str, user: Any
) -> CaseAction:
    """Never seat these two players together again (PlayerLink kind ``case_block``; a
    block lifted before is put back in force)."""
    locked, player = _open_case_player(case, player_id)
    other = check_case_player(locked, other_player_id, "other_player_id")
    if other.pk == player.pk:
        raise CaseActionInvalidProblem("a pairing is two players", field="other_player_id")
    reason = check_text(reason, "reason")
    low, high = sorted((player, other), key=lambda p: p.pk)
    link, created = PlayerLink.objects.get_or_create(
        player_low=low,
        player_high=high,
        kind=LinkKind.CASE_BLOCK,
        defaults={"source": f"staff:{user.pk}", "evidence": {"case_id": locked.pk}},
    )
    if not created and link.ended_at is not None:
        link.ended_at = None
        link.evidence = {**link.evidence, "case_id": locked.pk}
        link.save(update_fields=["ended_at", "evidence"])
    return action_record(
        case=locked,
        kind=Kind.BLOCK_PAIRING,
        user=user,
        reason=reason,
        player=player,
        other=other,
        data={"link": link.pk},
    )


@transaction.atomic
def case_ban(*, case: Case, player_id: object, reason: str, user: Any) -> CaseAction:
    """Ban the player: they sit at no table, nor (at network tables) do their other
    accounts; every member of the network is told, the player masked for all but their
    own operator."""
    locked, player = _open_case_player(case, player_id)
    reason = check_text(reason, "reason")
    if selectors.sanction_in_force(player_id=player.pk, kind=Sanction.Kind.BAN):
        raise CaseActionInvalidProblem("the player is banned already", field="player_id")
    try:
        with transaction.atomic():
            Sanction.objects.create(
                player=player, kind=Sanction.Kind.BAN, case=locked, reason=reason
            )
    except IntegrityError:
        raise CaseActionInvalidProblem("the player is banned already", field="player_id") from None
    return action_record(
        case=locked,
        kind=Kind.BAN,
        user=user,
        reason=reason,
        player=player,
        operator_ids=selectors.case_operator_ids(locked) | network_member_ids(),
        public={"shared_with_network": True},
    )


def case_action_take(
    *,
    case: Case,
    kind: str,
    player_id: object,
    reason: str,
    user: Any,
    other_player_id: object = None,
) -> CaseAction:
    """One of the actions above by its kind (the staff endpoint's one call): ``warn``,
    ``suspend``, ``lift_suspension``, ``block_pairing`` (with ``other_player_id``), ``ban``."""
    common = {"case": case, "player_id": player_id, "reason": reason, "user": user}
    if kind == Kind.BLOCK_PAIRING:
        if other_player_id is None:
            raise CaseActionInvalidProblem(
                "block_pairing names other_player_id", field="other_player_id"
            )
        return case_pairing_block(**common, other_player_id=other_player_id)
    actions: dict[str, Callable[..., CaseAction]] = {
        Kind.WARN: case_warn,
        Kind.SUSPEND: case_suspend,
        Kind.LIFT_SUSPENSION: case_suspension_lift,
        Kind.BAN: case_ban,
    }
    if kind not in actions:
        raise CaseActionInvalidProblem(f"no action {kind!r} here", field="kind")
    return actions[kind](**common)
