"""Request and answer shapes of the tournaments API (docs/tournaments.md "API")."""

from __future__ import annotations

from rest_framework import serializers

from gin_platform.api.fields import DecimalString
from gin_platform.api.inputs import StrictInput
from gin_platform.api.serializers import Money
from tournaments.models import BracketTable, Entry, Tournament, TournamentRequest


class RoundSettingInput(StrictInput):
    variant = serializers.ChoiceField(choices=["ftk", "match"])
    target = serializers.IntegerField(
        required=False, allow_null=True, default=None, help_text="Match Play only: 1 to 1000"
    )


class TournamentCreateInput(StrictInput):
    name = serializers.CharField(max_length=100)
    kind = serializers.ChoiceField(choices=Tournament.Kind.choices)
    seats = serializers.IntegerField(help_text="Seats per table: 2 (heads-up), 3 or 4 (R12)")
    advance = serializers.IntegerField(
        required=False, default=1, help_text="Players each table sends on; it divides the seats"
    )
    currency = serializers.CharField(max_length=3)
    buy_in = DecimalString(required=False, default="0", help_text="Into the prize pool")
    entry_fee = DecimalString(required=False, default="0", help_text="Your revenue")
    guaranteed = DecimalString(
        required=False, default="0", help_text="The prize pool's floor: you pay the overlay"
    )
    prize_table = serializers.ListField(
        child=serializers.IntegerField(min_value=0),
        required=False,
        default=list,
        help_text="Basis points per place, best first, adding up to 10000 (empty: R14's "
        "default, a quarter of the field paid)",
    )
    min_entries = serializers.IntegerField(required=False, default=2)
    max_entries = serializers.IntegerField(
        help_text="A sit and go starts when this many registered"
    )
    no_show_seconds = serializers.IntegerField(required=False, default=120)
    registration_opens_at = serializers.DateTimeField(required=False, allow_null=True, default=None)
    starts_at = serializers.DateTimeField(required=False, allow_null=True, default=None)
    turn_seconds = serializers.IntegerField(required=False, default=30)
    rules = serializers.DictField(
        required=False, default=dict, help_text="The room's rules (R5-R9)"
    )
    satellite_for = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        help_text="A satellite: its prizes are tickets to this tournament of yours",
    )
    round_settings = RoundSettingInput(
        many=True,
        help_text="Each round's match from the first; the last one plays every later round",
    )
    seeding = serializers.ChoiceField(
        choices=Tournament.Seeding.choices,
        required=False,
        default=Tournament.Seeding.DRAW,
        help_text="How round 1 is dealt (R14): `draw`, the provably fair draw from the "
        "committed seed; `rating`, the seeds by rating in the first round's variant family "
        "(R15; ties by the draw), the best meeting last, byes to the best seeds",
    )


class EntryCreateInput(StrictInput):
    player_id = serializers.UUIDField()
    ticket = serializers.BooleanField(required=False, default=False)


class RegisterInput(StrictInput):
    ticket = serializers.BooleanField(
        required=False, default=False, help_text="Enter with my ticket for this tournament"
    )


class RoundSettingOutput(serializers.Serializer):
    variant = serializers.ChoiceField(choices=["ftk", "match"])
    target = serializers.IntegerField(allow_null=True)


class PlacePrizeOutput(serializers.Serializer):
    place = serializers.IntegerField()
    prize = Money()
    ticket = serializers.BooleanField(help_text="A satellite's ticket to its target, worth `prize`")


class MyTicketOutput(serializers.Serializer):
    value = Money(help_text="What my ticket to this tournament is worth now, in its currency")
    covers_entry = serializers.BooleanField(
        help_text="Worth the whole entry (buy-in and fee): registering with `ticket: true` "
        "takes it; a ticket worth less enters nothing"
    )


class TournamentOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.ChoiceField(choices=Tournament.Kind.choices)
    status = serializers.ChoiceField(choices=Tournament.Status.choices)
    network = serializers.BooleanField(help_text="Open to every member operator's players")
    seats = serializers.IntegerField()
    advance = serializers.IntegerField()
    round_settings = RoundSettingOutput(many=True)
    buy_in = Money()
    entry_fee = Money()
    guaranteed = Money()
    prize_pool = Money(help_text="Fixed at the start: the buy-ins and the overlay")
    overlay = Money()
    entries = serializers.IntegerField(help_text="Registered now, or drawn once started")
    min_entries = serializers.IntegerField()
    max_entries = serializers.IntegerField()
    no_show_seconds = serializers.IntegerField()
    registration_opens_at = serializers.DateTimeField()
    starts_at = serializers.DateTimeField(allow_null=True)
    started_at = serializers.DateTimeField(allow_null=True)
    ended_at = serializers.DateTimeField(allow_null=True)
    rounds = serializers.IntegerField(help_text="The bracket's rounds (0 before the start)")
    seed_commitment = serializers.CharField(help_text="SHA-256 of the draw's seed")
    seed = serializers.CharField(
        allow_null=True, help_text="The draw's seed, revealed once the tournament has ended"
    )
    seeding = serializers.ChoiceField(
        choices=Tournament.Seeding.choices,
        help_text="Round 1 by the draw, or by rating (each player's `seed_rating` in the bracket)",
    )
    cancel_reason = serializers.CharField()
    satellite_for = serializers.IntegerField(
        allow_null=True, help_text="A satellite's target: its prizes are tickets to it"
    )
    my_ticket = MyTicketOutput(
        allow_null=True,
        help_text="A player's session only: the ticket I hold to this tournament (granted by "
        "my operator, or won in a satellite), null when I hold none. Always null for an "
        "operator's API key and in the watch socket's frames",
    )


class TournamentDetailOutput(TournamentOutput):
    prizes = PlacePrizeOutput(
        many=True, help_text="What each paid place is worth (the entries so far before the start)"
    )


class NamedPlayerOutput(serializers.Serializer):
    entry = serializers.IntegerField(help_text="The entry's number: the order of registration")
    display_name = serializers.CharField(allow_null=True)
    screen_name = serializers.CharField(allow_null=True)
    player_id = serializers.UUIDField(
        allow_null=True, help_text="Only for the caller's own players (operators)"
    )
    seed_rating = serializers.FloatField(
        allow_null=True,
        help_text="Seeded by rating: the rating it was seeded by, at the start (null: the draw)",
    )


class BracketTableOutput(serializers.Serializer):
    round = serializers.IntegerField()
    number = serializers.IntegerField()
    status = serializers.ChoiceField(choices=BracketTable.Status.choices)
    match_id = serializers.IntegerField(allow_null=True)
    players = NamedPlayerOutput(many=True)
    advancing = serializers.ListField(
        child=serializers.IntegerField(), help_text="Entry numbers going on (the final: ranking)"
    )


class EntryOutput(serializers.Serializer):
    tournament_id = serializers.IntegerField()
    number = serializers.IntegerField()
    player_id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=Entry.Status.choices)
    payment = serializers.ChoiceField(choices=Entry.Payment.choices)
    paid = Money()
    registered_at = serializers.DateTimeField()
    draw_position = serializers.IntegerField(
        allow_null=True, help_text="The place in the draw, or the seed when seeded by rating"
    )
    seed_rating = serializers.FloatField(
        allow_null=True, help_text="Seeded by rating: the rating it was seeded by"
    )
    round_out = serializers.IntegerField(allow_null=True)
    out_reason = serializers.CharField(help_text="lost, absent or linked; empty while in")
    place_from = serializers.IntegerField(allow_null=True)
    place_to = serializers.IntegerField(allow_null=True)
    prize = Money(allow_null=True)
    prize_ticket = serializers.BooleanField(
        help_text="The prize is a ticket (worth `prize`) to the satellite's target"
    )
    match_id = serializers.IntegerField(
        allow_null=True, help_text="The match waiting for this player or being played, if any"
    )


class TournamentSeatOutput(serializers.Serializer):
    match_id = serializers.IntegerField()
    round = serializers.IntegerField()
    table = serializers.IntegerField()


# --- A player's statement of one tournament ---------------------------------------------------
class TournamentStatementLineOutput(serializers.Serializer):
    transaction_id = serializers.IntegerField(help_text="The ledger transaction")
    kind = serializers.CharField(
        help_text="What it was: buy_in (the entry), refund, ticket_entry, "
        "ticket_refund, ticket_grant, tournament_prize..."
    )
    account = serializers.CharField(
        help_text="The account the line moved: player (the wallet), ticket, escrow (the "
        "tournament's pot; a satellite's, for a ticket won there), house_fx (a conversion)"
    )
    component = serializers.CharField(help_text="What the amount stands for: stake, prize...")
    amount = Money(help_text="Signed: negative out of the account, positive into it")
    reference = serializers.CharField(help_text="The ledger transaction's reference")
    created_at = serializers.DateTimeField()


class TournamentStatementTotalsOutput(serializers.Serializer):
    paid_in = Money(help_text="Into the tournament: entries paid, in money or with a ticket")
    paid_out = Money(help_text="Out of the tournament to the player: refunds, prizes, tickets")
    net = Money(help_text="paid_out - paid_in")


class EntryStatementOutput(serializers.Serializer):
    tournament_id = serializers.IntegerField()
    player_id = serializers.UUIDField()
    entry_number = serializers.IntegerField(help_text="The player's (latest) entry")
    status = serializers.ChoiceField(choices=Entry.Status.choices)
    currency = serializers.CharField(help_text="The tournament's currency (the totals')")
    lines = TournamentStatementLineOutput(many=True, help_text="Oldest first")
    totals = TournamentStatementTotalsOutput()


# --- Staff: four eyes -----------------------------------------------------------------------------
class StaffTournamentCreateInput(TournamentCreateInput):
    reason = serializers.CharField(
        max_length=500, help_text="Why: kept with the request and in the audit log"
    )


class StaffCancelInput(StrictInput):
    reason = serializers.CharField(
        max_length=500, help_text="Why: kept with the request and in the audit log"
    )


class TournamentRequestDecisionInput(StrictInput):
    note = serializers.CharField(max_length=500, required=False, allow_blank=True, default="")


class TournamentRequestFilterInput(serializers.Serializer):
    status = serializers.ChoiceField(choices=TournamentRequest.Status.choices, required=False)
    kind = serializers.ChoiceField(choices=TournamentRequest.Kind.choices, required=False)


class TournamentRequestOutput(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=TournamentRequest.Kind.choices)
    status = serializers.ChoiceField(choices=TournamentRequest.Status.choices)
    operator_id = serializers.UUIDField(help_text="The tournament's owner")
    network = serializers.BooleanField(help_text="A network tournament's request")
    tournament_id = serializers.IntegerField(
        allow_null=True, help_text="cancel: the tournament; create: the one created, once executed"
    )
    options = serializers.DictField(
        allow_null=True,
        help_text="create: the tournament's options as POST /tournaments takes them (amounts "
        "as decimal strings); null for cancel",
    )
    reason = serializers.CharField()
    proposed_by = serializers.CharField()
    proposed_at = serializers.DateTimeField()
    decided_by = serializers.CharField(allow_null=True)
    decided_at = serializers.DateTimeField(allow_null=True)
    decision_note = serializers.CharField()
    result_ref = serializers.CharField(
        help_text="What the execution made (tournament:<id>), the failure's problem slug, or "
        "empty while pending"
    )
