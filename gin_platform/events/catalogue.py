"""The catalogue of operator events: every type the platform records and sends, with what it
means and the serializer that documents its ``data`` (docs/webhooks.md "Event types").

``webhook_enqueue`` refuses a type that is not here; the OpenAPI document's ``webhooks``
section has one entry per type (gin_platform/api/event_webhooks.py and
settlement/api/webhooks.py), and tests/platform/test_openapi_document.py checks the three
agree with what the code sends.

Payload conventions, the same as ``game.settled`` and the REST API: a player is named by the
operator's ``player_id`` and ``external_ref`` (the operator's own data); money is an object
``{"amount": "<decimal string>", "currency": "<code>"}`` (gin_platform.money.money_dict);
nothing a player could not see (``hand.ended`` has the result, never the cards).
``game.finished`` keeps its historical shape: ``data.result`` is the games contract, amounts
in minor units.

Payload serializers are named by dotted path, like SPECTACULAR_SETTINGS: gin_platform does
not import the apps (pyproject.toml, import-linter); ``payload_serializer`` imports one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.module_loading import import_string

ALL = "*"  # a subscription to every type, present and future


@dataclass(frozen=True)
class EventType:
    name: str
    description: str
    payload: str  # dotted path of the serializer documenting ``data``
    summary: str


def _event(name: str, summary: str, description: str, payload: str) -> EventType:
    return EventType(name=name, summary=summary, description=description, payload=payload)


_DATA = "gin_platform.api.event_serializers."
_INTEGRITY = "integrity.api.event_serializers."
_PROTECTION = "protection.api.event_serializers."
_TOURNAMENTS = "tournaments.api.event_serializers."

EVENT_TYPES: dict[str, EventType] = {
    event.name: event
    for event in (
        _event(
            "deposit.completed",
            "A deposit was credited",
            "A deposit was credited to the player's wallet (POST .../wallet/deposits).",
            _DATA + "CashierEventData",
        ),
        _event(
            "deposit.refused",
            "A deposit was refused",
            "A deposit was refused (limits, caps, self-exclusion, inactive player...); nothing "
            "moved. Sent once per request, never for an Idempotency-Key replay.",
            _DATA + "CashierRefusedEventData",
        ),
        _event(
            "withdrawal.completed",
            "A withdrawal was paid out",
            "A withdrawal was debited from the player's wallet (POST .../wallet/withdrawals).",
            _DATA + "CashierEventData",
        ),
        _event(
            "withdrawal.refused",
            "A withdrawal was refused",
            "A withdrawal was refused (KYC, funds, caps...); nothing moved. Sent once per "
            "request, never for an Idempotency-Key replay.",
            _DATA + "CashierRefusedEventData",
        ),
        _event(
            "limit.changed",
            "A player's limit was changed",
            "A deposit or loss limit was set, lowered, raised or removed. A decrease applies at "
            "once; an increase or removal at `effective_at` (after the jurisdiction's "
            "cooling-off: 24 h; es 3 days, it 7 days): no second event is sent when it takes "
            "effect.",
            _DATA + "LimitChangedEventData",
        ),
        _event(
            "self_exclusion.started",
            "A player excluded themselves",
            "A self-exclusion began: no deposits, no buy-ins and no seats (practice tables "
            "included) until `ends_at`. `by` says whether the player took it themselves.",
            _DATA + "BreakEventData",
        ),
        _event(
            "time_out.started",
            "A player took a time-out",
            "A time-out began (24 hours, 7 days, 30 days or 6 weeks): no deposits, no buy-ins "
            "and no seats (practice tables included) until `ends_at`. `by` says whether the "
            "player took it themselves.",
            _DATA + "BreakEventData",
        ),
        _event(
            "seat.taken",
            "A player sat down",
            "A player took a seat; at a money table the buy-in moved into the game's escrow.",
            _DATA + "SeatTakenEventData",
        ),
        _event(
            "seat.left",
            "A player left a seat",
            "A player left before the game started (buy-in refunded) or left a running game "
            "(a forfeit: `forfeited` true, the result follows in game.finished).",
            _DATA + "SeatLeftEventData",
        ),
        _event(
            "hand.ended",
            "A hand ended",
            "A hand of a match ended: how, who won it and the points. Never the cards.",
            _DATA + "HandEndedEventData",
        ),
        _event(
            "game.finished",
            "A game has its result",
            "A match ended; its money moves next (game.settled).",
            "settlement.api.serializers.GameFinishedDataOutput",
        ),
        _event(
            "game.settled",
            "A game's money has been posted",
            "Settlement posted the game to the ledger, exactly once per game.",
            "settlement.api.serializers.GameSettledDataOutput",
        ),
        _event(
            "game.voided",
            "A game was voided",
            "R13: a platform outage past the limit interrupted the match; every stake or "
            "cashier amount went back to its player in one transaction, with no fee. Also a "
            "tournament's match whose tournament was cancelled (R14): nothing was staked.",
            _DATA + "GameVoidedEventData",
        ),
        _event(
            "settlement.failed",
            "A game could not be settled",
            "Settling a finished game failed with an error that retrying will not fix; the "
            "game stays finished and unpaid until the platform team acts. Once per game.",
            _DATA + "SettlementFailedEventData",
        ),
        _event(
            "wallet.call_failed",
            "A call to the operator's wallet failed",
            "A seamless-wallet call (a credit or rollback we owe the player) to the "
            "operator's wallet has gone unacknowledged for WALLET_CREDIT_ALERT_SECONDS; it "
            "is still being retried. Sent once per call (wallet.services.seamless).",
            _DATA + "WalletCallFailedEventData",
        ),
        _event(
            "integrity.case_opened",
            "An integrity case was opened",
            "The risk team opened a case about players of yours (detection's alerts or a "
            "player's report). Other operators' players appear by screen name and an opaque "
            "id only.",
            _INTEGRITY + "CaseOpenedEventData",
        ),
        _event(
            "integrity.case_action",
            "The risk team acted on a case",
            "A warning (to the player's operator only, with the message), a suspension or "
            "its lifting, a blocked pairing, a ban (sent to every network member), or a step "
            "of a confiscation (proposed, executed, rejected, failed) with its amounts.",
            _INTEGRITY + "CaseActionEventData",
        ),
        _event(
            "integrity.case_closed",
            "An integrity case was closed",
            "The case about players of yours is closed, with the actions taken.",
            _INTEGRITY + "CaseClosedEventData",
        ),
        _event(
            "integrity.report_received",
            "A player reported another player",
            "Your player reported an opponent of a match they played; the integrity team "
            "reviews it (the player sees its status, never the outcome).",
            _INTEGRITY + "ReportReceivedEventData",
        ),
        _event(
            "session.started",
            "A player's play session started",
            "A play session began: the player set its limits, or made the first real-money "
            'buy-in where the profile asks for none (docs/player-protection.md "Sessions").',
            _PROTECTION + "SessionStartedEventData",
        ),
        _event(
            "session.reality_check",
            "A reality check was shown",
            "The player's reality check was shown (at a turn boundary, their turn clock paused, "
            "or at once away from the tables): render it in your client if you render the game; "
            "the player answers continue or end_session.",
            _PROTECTION + "SessionRealityCheckEventData",
        ),
        _event(
            "session.limit_reached",
            "A session's limit was reached",
            "The play session reached its duration or loss limit: no new buy-in; the game in "
            "progress ends as the jurisdiction profile says (at the end of the hand, "
            "forfeit-free, or when the match ends).",
            _PROTECTION + "SessionLimitReachedEventData",
        ),
        _event(
            "session.ended",
            "A player's play session ended",
            "The play session ended (the player, a reached limit, a break, or idle), with its "
            "final net position.",
            _PROTECTION + "SessionEndedEventData",
        ),
        _event(
            "player.flagged",
            "A marker of harm flagged a player",
            "The daily job of the markers of harm (docs/player-protection.md) found that your "
            "player met a rule on a UTC day: deposits rising week on week, a long session, "
            "losses chased after a limit, or night play; with the figures that met it. Once "
            "per player, rule and day.",
            _PROTECTION + "PlayerFlaggedEventData",
        ),
        _event(
            "tournament.registered",
            "A player registered for a tournament",
            "Your player took an entry (R14): paid with money (the buy-in and fee moved into "
            "the tournament's escrow), a ticket, or free (a freeroll).",
            _TOURNAMENTS + "EntryEventData",
        ),
        _event(
            "tournament.unregistered",
            "A player withdrew from a tournament",
            "Your player withdrew before the start (or a self-exclusion withdrew them): the "
            "entry was refunded in full, buy-in and fee or the ticket.",
            _TOURNAMENTS + "EntryEventData",
        ),
        _event(
            "tournament.started",
            "A tournament started",
            "A tournament your players entered started: the draw is made, the prize pool fixed "
            "(with the overlay, if the guarantee needed one) and the first round seated.",
            _TOURNAMENTS + "TournamentStartedEventData",
        ),
        _event(
            "tournament.match_ready",
            "A player's tournament match is ready",
            "Your player's next match is seated: they have `no_show_seconds` to take the seat "
            "(POST /api/v1/tournaments/{id}/seat, or the hosted page) before forfeiting it.",
            _TOURNAMENTS + "MatchReadyEventData",
        ),
        _event(
            "tournament.eliminated",
            "A player is out of a tournament",
            "Your player lost their match (or did not take the seat in time): they are out. "
            "Their place, and its prize, follow when the round has ended.",
            _TOURNAMENTS + "EliminatedEventData",
        ),
        _event(
            "tournament.prize_paid",
            "A tournament place was paid",
            "Your player's place is final and paid (R14: players out in one round share its "
            "places); `prize` may be 0 for a place the prize table does not pay.",
            _TOURNAMENTS + "PrizePaidEventData",
        ),
        _event(
            "tournament.finished",
            "A tournament finished",
            "A tournament your players entered has ended, every place paid; its seed is "
            "revealed so that anyone can replay the draw (docs/fairness.md).",
            _TOURNAMENTS + "TournamentEndedEventData",
        ),
        _event(
            "tournament.cancelled",
            "A tournament was cancelled",
            "A tournament your players entered was cancelled (R14): before any result every "
            "entry was refunded in full; after one, the players still in shared the pool not "
            "yet paid.",
            _TOURNAMENTS + "TournamentEndedEventData",
        ),
    )
}


class UnknownEventType(ValueError):
    """A programming error: every event type must be in the catalogue."""


def event_type_get(name: str) -> EventType:
    try:
        return EVENT_TYPES[name]
    except KeyError:
        raise UnknownEventType(f"{name!r} is not in gin_platform.events.catalogue") from None


def payload_serializer(name: str) -> Any:
    """The serializer class documenting the ``data`` of events of type ``name``."""
    return import_string(event_type_get(name).payload)


def player_ref(player: Any) -> dict[str, str]:
    """How a payload names a player: the operator's player id and its own reference."""
    return {"player_id": str(player.pk), "external_ref": player.external_ref}
