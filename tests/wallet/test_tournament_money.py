"""A tournament's money (R14; wallet/services/tournament.py and tickets.py) on PostgreSQL:
entries into the tournament's ordinary escrow with the table cashier, tickets, the overlay,
prizes paid a round at a time, the fees; every posting balanced, replayed by its reference,
refused with nothing posted; racing threads paying one round post it once. The whole
tournament, seamless and network players included: test_tournament_flows.py."""

from __future__ import annotations

from collections import defaultdict

import pytest

from gin_platform.money import PRACTICE_CURRENCY
from tests.factories import PlayerFactory
from tests.races import race
from tests.wallet.factories import SYSTEM, fund, ref
from tests.wallet.tables import balance, buy_in, house
from wallet import services
from wallet.models import Account, LedgerEntry, LedgerTransaction
from wallet.problems import (
    EscrowNotFoundProblem,
    EscrowOperatorMismatchProblem,
    GameRefInvalidProblem,
    InsufficientFundsProblem,
    LimitExceededProblem,
    NothingToRefundProblem,
    PayoutInvalidProblem,
    ReferenceConflictProblem,
    SelfExcludedProblem,
)
from wallet.selectors import balances, reconciliation, tournaments
from wallet.services import TournamentPrize

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

T = "tournament:42"
SATELLITE = "tournament:41"
ENTRY = 1100  # buy-in 10.00 + entry fee 1.00


@pytest.fixture(autouse=True)
def _reconciles_after_each_test(db):
    yield
    report = reconciliation.reconcile()
    assert report.ok, report.render()


def _books(txn) -> dict[tuple, int]:
    """Each operator's books and currency in the transaction: all must be 0."""
    totals: dict[tuple, int] = defaultdict(int)
    for entry in LedgerEntry.objects.filter(transaction=txn).select_related("account"):
        totals[(entry.account.operator_id, entry.currency)] += entry.amount
    return totals


def _balanced(txn) -> None:
    assert txn.entries.exists()
    assert set(_books(txn).values()) == {0}


def _ledger_size() -> tuple[int, int]:
    return LedgerTransaction.objects.count(), LedgerEntry.objects.count()


def _escrow(game=T) -> int:
    return balances.escrow_balance(game_ref=game, currency="EUR")


def _promotion(operator) -> int:
    return tournaments.promotion_balance(operator=operator, currency="EUR")


def enter(player, game=T, amount=ENTRY, **kwargs):
    return buy_in(player, amount, game=game, **kwargs)


def pay(prizes, *, game=T, reference=None, **kwargs):
    return services.tournament_prizes_pay(
        game_ref=game,
        currency="EUR",
        prizes=prizes,
        reference=reference or ref("prizes"),
        actor=SYSTEM,
        **kwargs,
    )


def grant(player, amount=ENTRY, game=T, reference=None):
    return services.ticket_grant(
        player=player,
        tournament_ref=game,
        amount=amount,
        currency="EUR",
        reference=reference or ref("grant"),
        actor=SYSTEM,
    )


def enter_with_ticket(player, amount=ENTRY, game=T, reference=None, **kwargs):
    return services.ticket_enter(
        player=player,
        tournament_ref=game,
        amount=amount,
        currency="EUR",
        reference=reference or ref("ticket-entry"),
        actor=SYSTEM,
        **kwargs,
    )


def overlay(operator, amount, game=T, reference=None):
    return services.tournament_overlay_add(
        game_ref=game,
        currency="EUR",
        amount=amount,
        operator=operator,
        reference=reference or ref("overlay"),
        actor=SYSTEM,
    )


def take_fee(amount, game=T, reference=None):
    return services.tournament_fee_take(
        game_ref=game,
        currency="EUR",
        amount=amount,
        reference=reference or ref("fee"),
        actor=SYSTEM,
    )


@pytest.fixture
def field(operator):
    """Four players of the operator, 100.00 EUR each, entered (11.00 each: 44.00 in T)."""
    players = [PlayerFactory(operator=operator) for _ in range(4)]
    for who in players:
        fund(who, 10_000)
        enter(who)
    return players


# --- Entries: the table cashier's buy-in and refund -------------------------------------------
def test_a_cash_entry_is_an_ordinary_buy_in_and_unregistering_its_refund(operator, eur_usd):
    usd = PlayerFactory(operator=operator, wallet_currency="USD")
    fund(usd, 10_000)
    entry = enter(usd)
    assert entry.kind == "buy_in" and entry.game_ref == T
    assert entry.fx[0]["converted"] == 1180  # 11.00 EUR at 1.0720, rounded up: 11.80 USD
    assert balance(usd) == 10_000 - 1180
    refund = services.table_refund(
        player=usd, game_ref=T, currency="EUR", reference=ref("unregister"), actor=SYSTEM
    )
    assert balance(usd) == 10_000 and _escrow() == 0
    _balanced(refund)


def test_a_cash_entry_keeps_the_tables_limits_and_breaks(player):
    fund(player, 10_000)
    services.player_limit_set(player=player, kind="loss", period="day", amount=1000, actor=SYSTEM)
    with pytest.raises(LimitExceededProblem):
        enter(player)  # the loss limit counts the whole entry at registration (R14)
    other = PlayerFactory(operator=player.operator)
    fund(other, 10_000)
    services.self_exclusion_create(player=other, days=1, actor=SYSTEM)
    with pytest.raises(SelfExcludedProblem):
        enter(other)
    assert _escrow() == 0


def test_practice_chips_enter_and_win_a_practice_tournament(operator):
    players = [PlayerFactory(operator=operator) for _ in range(2)]
    for who in players:
        enter(who, amount=500, currency=PRACTICE_CURRENCY)
    paid = services.tournament_prizes_pay(
        game_ref=T,
        currency=PRACTICE_CURRENCY,
        prizes=[TournamentPrize(player=players[0], amount=1000)],
        reference=ref("prizes"),
        actor=SYSTEM,
    )
    _balanced(paid)
    assert balance(players[0], PRACTICE_CURRENCY) == 10_000 - 500 + 1000


def test_paying_a_round_never_settles_the_escrow_so_entries_and_refunds_go_on(field):
    first = pay([TournamentPrize(player=field[0], amount=1000)])
    escrow = balances.escrow_account(game_ref=T, currency="EUR")
    assert not balances.escrow_is_settled(escrow=escrow)
    latecomer = PlayerFactory(operator=field[0].operator)
    fund(latecomer, 5000)
    enter(latecomer)  # still open: a buy-in and a refund are taken
    services.table_refund(
        player=latecomer, game_ref=T, currency="EUR", reference=ref("refund"), actor=SYSTEM
    )
    second = pay([TournamentPrize(player=field[1], amount=1000)])
    assert first.kind == second.kind == "tournament_prize"
    assert _escrow() == 4 * ENTRY - 2000


# --- Prizes -----------------------------------------------------------------------------------
def test_prizes_pay_some_of_the_escrow_into_wallets_and_tickets(field):
    paid = pay(
        [
            TournamentPrize(player=field[0], amount=2000),
            TournamentPrize(player=field[1], amount=1100, ticket_for="tournament:99"),
            TournamentPrize(player=field[2], amount=0),  # a zero prize is allowed, not posted
        ]
    )
    _balanced(paid)
    assert (paid.amount, paid.currency, paid.game_ref) == (3100, "EUR", T)
    assert balance(field[0]) == 10_000 - ENTRY + 2000
    assert tournaments.ticket_balance(
        player=field[1], game_ref="tournament:99", currency="EUR"
    ) == (1100)
    assert _escrow() == 4 * ENTRY - 3100
    assert not LedgerEntry.objects.filter(transaction=paid, player=field[2]).exists()


def test_a_prize_into_another_wallet_currency_is_converted_rounded_down(operator, eur_usd):
    usd = PlayerFactory(operator=operator, wallet_currency="USD")
    fund(usd, 10_000)
    enter(usd)
    paid = pay([TournamentPrize(player=usd, amount=999)])
    assert paid.fx[0]["converted"] == 1070  # 9.99 EUR x 1.0720 = 10.70928: 10.70 USD
    assert balance(usd) == 10_000 - 1180 + 1070
    _balanced(paid)


def test_a_prize_replayed_by_its_reference_returns_the_first_and_posts_nothing(field):
    prizes = [TournamentPrize(player=field[0], amount=1500)]
    first = pay(prizes, reference="t42:round:1")
    size = _ledger_size()
    assert pay(prizes, reference="t42:round:1").pk == first.pk
    assert _ledger_size() == size and balance(field[0]) == 10_000 - ENTRY + 1500
    with pytest.raises(ReferenceConflictProblem):
        pay([TournamentPrize(player=field[0], amount=1600)], reference="t42:round:1")


@pytest.mark.parametrize(
    ("prizes", "problem"),
    [
        (lambda f: [TournamentPrize(player=f[0], amount=-1)], PayoutInvalidProblem),
        (lambda f: [TournamentPrize(player=f[0], amount=0)], PayoutInvalidProblem),
        (lambda f: [], PayoutInvalidProblem),
        (lambda f: [TournamentPrize(player=f[0], amount=1.5)], PayoutInvalidProblem),
        (lambda f: [TournamentPrize(player=f[0], amount=1, ticket_for=T)], PayoutInvalidProblem),
        (lambda f: [TournamentPrize(player=f[0], amount=1, ticket_for="")], GameRefInvalidProblem),
        (lambda f: [TournamentPrize(player=f[0], amount=4 * ENTRY + 1)], InsufficientFundsProblem),
        (
            lambda f: [TournamentPrize(player=PlayerFactory(operator=f[0].operator), amount=1)],
            PayoutInvalidProblem,
        ),
    ],
    ids=[
        "negative",
        "all-zero",
        "none",
        "not-integer",
        "own-ticket",
        "bad-target",
        "over",
        "stranger",
    ],
)
def test_refused_prizes_post_nothing(field, prizes, problem):
    size = _ledger_size()
    with pytest.raises(problem):
        pay(prizes(field))
    assert _ledger_size() == size and _escrow() == 4 * ENTRY


def test_prizes_of_another_operators_escrow_or_none_are_refused(field):
    stranger = PlayerFactory()
    with pytest.raises(EscrowOperatorMismatchProblem):
        pay([TournamentPrize(player=field[0], amount=1)], escrow_operator=stranger.operator)
    with pytest.raises(EscrowNotFoundProblem):
        pay([TournamentPrize(player=field[0], amount=1)], game="tournament:none")


@pytest.mark.django_db(transaction=True)
def test_racing_threads_paying_the_same_round_under_one_reference_post_it_once(operator):
    players = [PlayerFactory(operator=operator) for _ in range(4)]
    for who in players:
        fund(who, 10_000)
        enter(who)
    prizes = [TournamentPrize(player=players[0], amount=2200)]
    prizes += [TournamentPrize(player=players[1], amount=1100, ticket_for=SATELLITE)]

    results = race(8, lambda _i: pay(prizes, reference="t42:round:final"))
    assert [r for r in results if isinstance(r, Exception)] == []
    assert len({r.pk for r in results}) == 1
    assert LedgerTransaction.objects.filter(kind="tournament_prize").count() == 1
    assert balance(players[0]) == 10_000 - ENTRY + 2200
    assert _escrow() == 4 * ENTRY - 3300


# --- Fees -------------------------------------------------------------------------------------
def test_the_entry_fees_go_to_the_house_fee_in_parts(operator, field):
    first = take_fee(300)
    second = take_fee(100, reference="t42:fee:2")
    _balanced(first)
    assert first.kind == "tournament_fee" and first.metadata == {"fee": 300}
    assert house(operator, Account.Kind.HOUSE_FEE, "EUR") == 400
    assert take_fee(100, reference="t42:fee:2").pk == second.pk
    size = _ledger_size()
    with pytest.raises(InsufficientFundsProblem):
        take_fee(4 * ENTRY - 400 + 1)
    with pytest.raises(ReferenceConflictProblem):
        take_fee(101, reference="t42:fee:2")
    assert _ledger_size() == size and _escrow() == 4 * ENTRY - 400


# --- Overlay ----------------------------------------------------------------------------------
def test_an_overlay_tops_the_escrow_up_from_the_operators_promotion(operator, field):
    txn = overlay(operator, 2500, reference="t42:overlay")
    _balanced(txn)
    assert txn.kind == "overlay" and txn.operator_id == operator.pk
    assert _escrow() == 4 * ENTRY + 2500 and _promotion(operator) == -2500
    assert overlay(operator, 2500, reference="t42:overlay").pk == txn.pk
    assert _promotion(operator) == -2500


def test_an_overlay_into_another_operators_escrow_is_refused(operator, field):
    other = PlayerFactory().operator
    size = _ledger_size()
    with pytest.raises(EscrowOperatorMismatchProblem):
        overlay(other, 1000)  # T's escrow is the operator's, and neither is the network
    assert _ledger_size() == size and _promotion(other) == 0


def test_a_freerolls_pool_is_an_overlay_paid_to_winners_nobody_charged(operator):
    """A freeroll has no buy-in: the operator's overlay is its pool, and its winners, who paid
    nothing to enter, are paid from it."""
    winners = [PlayerFactory(operator=operator) for _ in range(2)]
    overlay(operator, 5000, game="tournament:freeroll")
    pay(
        [TournamentPrize(player=winners[0], amount=3000)],
        game="tournament:freeroll",
    )
    pay([TournamentPrize(player=winners[1], amount=2000)], game="tournament:freeroll")
    assert [balance(who) for who in winners] == [3000, 2000]
    assert balances.escrow_balance(game_ref="tournament:freeroll", currency="EUR") == 0
    assert _promotion(operator) == -5000


def test_a_cancelled_tournaments_overlay_goes_back_once_every_entry_is_refunded(operator, field):
    overlay(operator, 2500)
    overlay(operator, 500)
    for who in field:
        services.table_refund(
            player=who, game_ref=T, currency="EUR", reference=ref("cancel"), actor=SYSTEM
        )
    back = services.tournament_overlay_return(
        game_ref=T, currency="EUR", operator=operator, reference="t42:overlay:back", actor=SYSTEM
    )
    _balanced(back)
    assert back.amount == 3000 and _escrow() == 0 and _promotion(operator) == 0
    assert (
        services.tournament_overlay_return(
            game_ref=T,
            currency="EUR",
            operator=operator,
            reference="t42:overlay:back",
            actor=SYSTEM,
        ).pk
        == back.pk
    )
    size = _ledger_size()
    with pytest.raises(NothingToRefundProblem):
        services.tournament_overlay_return(
            game_ref=T, currency="EUR", operator=operator, reference=ref("again"), actor=SYSTEM
        )
    assert _ledger_size() == size


def test_an_overlay_return_after_prizes_took_it_is_refused(operator, field):
    overlay(operator, 2500)
    pay([TournamentPrize(player=field[0], amount=4 * ENTRY + 1)])  # a cent of the overlay
    size = _ledger_size()
    with pytest.raises(InsufficientFundsProblem):
        services.tournament_overlay_return(
            game_ref=T, currency="EUR", operator=operator, reference=ref("back"), actor=SYSTEM
        )
    assert _ledger_size() == size


# --- Tickets ----------------------------------------------------------------------------------
def test_a_granted_ticket_enters_the_tournament_and_comes_back_when_unregistering(operator, player):
    granted = grant(player)
    _balanced(granted)
    assert _promotion(operator) == -ENTRY
    entry = enter_with_ticket(player, reference="t42:ticket:1")
    _balanced(entry)
    assert entry.kind == "ticket_entry" and entry.escrow.game_ref == T
    assert tournaments.ticket_balance(player=player, game_ref=T, currency="EUR") == 0
    assert _escrow() == ENTRY
    assert balances.escrow_contributions(game_ref=T, currency="EUR") == {player.pk: ENTRY}
    assert balance(player) == 0  # a ticket is never the player's cash
    assert enter_with_ticket(player, reference="t42:ticket:1").pk == entry.pk
    back = services.ticket_refund(
        player=player, tournament_ref=T, currency="EUR", reference="t42:unregister", actor=SYSTEM
    )
    _balanced(back)
    assert back.kind == "ticket_refund" and back.amount == ENTRY
    assert tournaments.ticket_balance(player=player, game_ref=T, currency="EUR") == ENTRY
    assert _escrow() == 0 and balances.escrow_contributions(game_ref=T, currency="EUR") == {}
    with pytest.raises(NothingToRefundProblem):
        services.ticket_refund(
            player=player, tournament_ref=T, currency="EUR", reference=ref("r"), actor=SYSTEM
        )


def test_a_ticket_entrant_is_a_payee_and_a_cash_refund_leaves_the_ticket_entry(operator, player):
    grant(player)
    enter_with_ticket(player)
    with pytest.raises(NothingToRefundProblem):  # no cash entry to give back
        services.table_refund(
            player=player, game_ref=T, currency="EUR", reference=ref("refund"), actor=SYSTEM
        )
    paid = pay([TournamentPrize(player=player, amount=ENTRY)])
    assert balance(player) == ENTRY and paid.amount == ENTRY


def test_refused_tickets_post_nothing(operator, player):
    size = _ledger_size()
    with pytest.raises(InsufficientFundsProblem):
        enter_with_ticket(player)  # no ticket at all
    grant(player, amount=500)
    size = _ledger_size()
    with pytest.raises(InsufficientFundsProblem):
        enter_with_ticket(player)  # worth less than the entry
    assert _ledger_size() == size
    assert not Account.objects.filter(kind="escrow", game_ref=T).exists()
    services.self_exclusion_create(player=player, days=1, actor=SYSTEM)
    with pytest.raises(SelfExcludedProblem):
        grant(player)  # no promotion reaches a self-excluded player
    with pytest.raises(SelfExcludedProblem):
        enter_with_ticket(player, amount=500)  # nor may they register
    assert _ledger_size() == size


def test_an_unused_ticket_expires_back_to_the_promotion_once(operator, player):
    grant(player, amount=700)
    assert tournaments.ticket_holders(game_ref=T, currency="EUR") == {player.pk: 700}
    expired = services.ticket_expire(
        player=player, tournament_ref=T, currency="EUR", reference="t42:expire", actor=SYSTEM
    )
    _balanced(expired)
    assert expired.amount == 700 and _promotion(operator) == 0
    assert tournaments.ticket_holders(game_ref=T, currency="EUR") == {}
    again = services.ticket_expire(
        player=player, tournament_ref=T, currency="EUR", reference="t42:expire", actor=SYSTEM
    )
    assert again.pk == expired.pk
    nothing = services.ticket_expire(
        player=player, tournament_ref=T, currency="EUR", reference=ref("e"), actor=SYSTEM
    )
    assert nothing is None


def test_a_satellites_ticket_prize_enters_the_target_tournament(operator, field):
    won = pay([TournamentPrize(player=field[0], amount=ENTRY, ticket_for=SATELLITE)])
    enter_with_ticket(field[0], game=SATELLITE)
    assert balances.escrow_balance(game_ref=SATELLITE, currency="EUR") == ENTRY
    # The target's statement shows the ticket won in the satellite, then the entry paid with it.
    lines = tournaments.tournament_statement(player=field[0], game_ref=SATELLITE)
    assert [(line.transaction_id, line.kind, line.account, line.amount) for line in lines] == [
        (won.pk, "tournament_prize", "escrow", -ENTRY),
        (won.pk, "tournament_prize", "ticket", ENTRY),
        (lines[2].transaction_id, "ticket_entry", "ticket", -ENTRY),
        (lines[2].transaction_id, "ticket_entry", "escrow", ENTRY),
    ]


# --- Statement --------------------------------------------------------------------------------
def test_a_players_statement_of_one_tournament_holds_their_own_lines(operator, field):
    ticket_holder = PlayerFactory(operator=operator)
    grant(ticket_holder)
    enter_with_ticket(ticket_holder)
    pay(
        [
            TournamentPrize(player=field[0], amount=3000),
            TournamentPrize(player=ticket_holder, amount=500),
        ]
    )
    lines = tournaments.tournament_statement(player=ticket_holder, game_ref=T)
    assert [(line.kind, line.account, line.amount, line.component) for line in lines] == [
        ("ticket_grant", "ticket", ENTRY, "ticket_grant"),
        ("ticket_entry", "ticket", -ENTRY, "ticket"),
        ("ticket_entry", "escrow", ENTRY, "stake"),
        ("tournament_prize", "escrow", -500, "prize"),
        ("tournament_prize", "player", 500, "payout"),
    ]
    mine = tournaments.tournament_statement(player=field[0], game_ref=T)
    assert sum(line.amount for line in mine if line.account == "player") == 3000 - ENTRY
    # Each line names its posting's reference, and the account's tournament (None: a wallet).
    assert {(line.kind, line.account, line.game_ref) for line in lines} == {
        ("ticket_grant", "ticket", T),
        ("ticket_entry", "ticket", T),
        ("ticket_entry", "escrow", T),
        ("tournament_prize", "escrow", T),
        ("tournament_prize", "player", None),
    }
    references = {line.transaction_id: line.reference for line in lines}
    assert references == {
        txn.pk: txn.reference for txn in LedgerTransaction.objects.filter(pk__in=references)
    }
