"""Shapes of integrity's answers. Staff see the players of the operators in their scope in
full and every other player masked (screen name and an opaque id); players see their own
reports' status only. An operator sees its own players' links (``link_view``, never an
identifier: docs/integrity.md "Who sees what")."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.urls import reverse

from gin_platform.models import Player
from gin_platform.money import money_dict
from gin_platform.staff.scope import in_scope
from integrity import selectors
from integrity.models import (
    Alert,
    Case,
    CaseAction,
    CaseNote,
    Confiscation,
    LinkMark,
    PlayerLink,
    PlayerReport,
    Sanction,
)
from integrity.services.events import masked_id


def player(row: Player | None, *, user: Any) -> dict[str, Any] | None:
    if row is None:
        return None
    if in_scope(user, row.operator_id):
        return {
            "player_id": str(row.pk),
            "operator_id": str(row.operator_id),
            "external_ref": row.external_ref,
            "screen_name": row.screen_name,
        }
    return {
        "masked_id": masked_id(row, operator_id=f"staff:{user.pk}"),
        "screen_name": row.screen_name,
    }


def _label(row: Player, *, user: Any) -> str:
    shown = player(row, user=user) or {}
    return str(shown.get("player_id") or shown.get("masked_id"))


def alert(row: Alert, *, user: Any) -> dict[str, Any]:
    return {
        "id": row.pk,
        "signal": row.signal,
        "player": player(row.player, user=user),
        "other_player": player(row.other_player, user=user),
        "score": row.score,
        "threshold": row.threshold,
        "reasoning": row.reasoning,
        "status": row.status,
        "case_id": row.case_id,
        "created_at": row.created_at,
    }


def case_summary(case: Case) -> dict[str, Any]:
    return {
        "id": case.pk,
        "status": case.status,
        "title": case.title,
        "opened_by": case.opened_by,
        "created_at": case.created_at,
        "closed_at": case.closed_at,
    }


def note(row: CaseNote) -> dict[str, Any]:
    return {"id": row.pk, "author": str(row.author), "text": row.text, "created_at": row.created_at}


def action(row: CaseAction, *, user: Any) -> dict[str, Any]:
    return {
        "id": row.pk,
        "kind": row.kind,
        "player": player(row.player, user=user),
        "other_player": player(row.other_player, user=user),
        "reason": row.reason,
        "actor": str(row.actor),
        "created_at": row.created_at,
    }


def sanction(row: Sanction, *, user: Any) -> dict[str, Any]:
    return {
        "id": row.pk,
        "kind": row.kind,
        "player": player(row.player, user=user),
        "in_force": row.lifted_at is None,
        "created_at": row.created_at,
        "lifted_at": row.lifted_at,
    }


def confiscation(row: Confiscation, *, user: Any) -> dict[str, Any]:
    players = {
        str(p.pk): p for p in Player.objects.filter(pk__in=[r["player_id"] for r in row.refunds])
    }
    return {
        "id": row.pk,
        "case_id": row.case_id,
        "status": row.status,
        "colluder": player(row.colluder, user=user),
        "amount": money_dict(row.amount, row.currency),
        "refunds": [
            {
                "player": player(players[str(r["player_id"])], user=user),
                "amount": money_dict(int(r["amount"]), row.currency),
            }
            for r in row.refunds
        ],
        "reason": row.reason,
        "proposed_by": str(row.proposed_by),
        "proposed_at": row.proposed_at,
        "decided_by": str(row.decided_by) if row.decided_by else None,
        "decided_at": row.decided_at,
        "decision_note": row.decision_note,
        "result_ref": row.result_ref,
    }


def _pair_evidence(case: Case, low: Player, high: Player, *, user: Any) -> dict[str, Any]:
    """The money flow between the pair game by game and in total per currency (each
    player's net: a positive net won), and their matches with each hand's replay URL."""
    labels = {str(low.pk): _label(low, user=user), str(high.pk): _label(high, user=user)}
    flows = selectors.money_flow(player_ids=(low.pk, high.pk))
    totals: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    games = []
    for flow in flows:
        for player_id, net in flow.net.items():
            totals[flow.currency][labels[player_id]] += net
        games.append(
            {
                "game_ref": flow.game_ref,
                "net": {
                    labels[pid]: money_dict(net, flow.currency) for pid, net in flow.net.items()
                },
            }
        )
    matches = [
        {
            "match_id": match.pk,
            "status": match.status,
            "variant": match.variant,
            "created_at": match.created_at,
            "hands": [
                {
                    "number": hand.number,
                    "status": hand.status,
                    "replay": reverse(
                        "staff-integrity-case-hand",
                        kwargs={"case_id": case.pk, "match_id": match.pk, "number": hand.number},
                    ),
                }
                for hand in match.hands.all()
            ],
        }
        for match in selectors.shared_matches(player_ids=(low.pk, high.pk))
    ]
    return {
        "players": [player(low, user=user), player(high, user=user)],
        "money_flow": {
            "games": games,
            "totals": {
                currency: {label: money_dict(net, currency) for label, net in nets.items()}
                for currency, nets in totals.items()
            },
        },
        "matches": matches,
    }


def case(row: Case, *, user: Any) -> dict[str, Any]:
    players = {str(p.pk): p for p in selectors.case_players(row)}
    evidence = []
    for low_id, high_id in selectors.case_pairs(row):
        low, high = players.get(str(low_id)), players.get(str(high_id))
        if low is not None and high is not None:
            evidence.append(_pair_evidence(row, low, high, user=user))
    return case_summary(row) | {
        "resolution": row.resolution,
        "players": [player(p, user=user) for p in players.values()],
        "alerts": [alert(a, user=user) for a in selectors.case_alerts(row)],
        "notes": [note(n) for n in selectors.case_notes(row)],
        "actions": [action(a, user=user) for a in selectors.case_actions(row)],
        "sanctions": [sanction(s, user=user) for s in selectors.case_sanctions(row)],
        "confiscations": [confiscation(c, user=user) for c in selectors.case_confiscations(row)],
        "evidence": {"pairs": evidence},
    }


def report(row: PlayerReport) -> dict[str, Any]:
    """A report as its reporter sees it: what they sent and its status, nothing more."""
    return {
        "id": row.pk,
        "match_id": row.match_id,
        "reported": row.reported.screen_name or row.reported.display_name,
        "category": row.reason,
        "status": row.status,
        "created_at": row.created_at,
        "updated_at": row.updated_at,
    }


# --- Linked accounts (the operator's view) ----------------------------------------------------


def link_source(link: PlayerLink) -> str:
    """operator, platform or risk_team (never whose id)."""
    if link.source.startswith("operator:"):
        return "operator"
    if link.source == "platform":
        return "platform"
    return "risk_team"


def link_view(link: PlayerLink, *, player: Player) -> dict[str, Any]:
    other = link.player_high_id if link.player_low_id == player.pk else link.player_low_id
    seen_at = link.evidence.get("seen_at") if link_source(link) == "platform" else None
    return {
        "id": link.pk,
        "player_id": player.pk,
        "other_player_id": other,
        "kind": link.kind,
        "made_by": link_source(link),
        "seen_at": seen_at,
        "created_at": link.created_at,
        "ended_at": link.ended_at,
    }


def mark_view(mark: LinkMark) -> dict[str, Any]:
    return {
        "player_id": mark.player_id,
        "kind": mark.kind,
        "first_seen_at": mark.first_seen_at,
        "last_seen_at": mark.last_seen_at,
    }
