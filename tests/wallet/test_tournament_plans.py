"""The plans of a tournament's money (wallet/services/plans/tournament.py) on generated
facts, without a database: every plan sums to zero per currency and within each operator's
books, moves exactly its headline amount out of (or into) the escrow, and a network
tournament's fee is shared exactly as a network game's (R14)."""

from __future__ import annotations

import uuid
from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wallet.ledger.keys import AccountKind, escrow_key, shard_for, ticket_key
from wallet.ledger.lines import Line, unbalanced_books, unbalanced_currencies
from wallet.problems import EscrowOperatorMismatchProblem, NothingToRefundProblem
from wallet.services.plans.escrow_settle import Payee
from wallet.services.plans.network import network_fee_split
from wallet.services.plans.tournament import (
    fee_plan,
    overlay_plan,
    overlay_return_plan,
    prizes_plan,
    promotion_key,
    ticket_entry_plan,
    ticket_expiry_plan,
    ticket_grant_plan,
)

ROOM = "EUR"
CURRENCIES = ["EUR", "USD", "GBP", "JPY", "KWD"]
OPERATORS = [uuid.UUID(int=n) for n in range(1, 5)]
NETWORK = uuid.UUID(int=99)
GAME = "tournament:plan"

amounts = st.integers(min_value=1, max_value=10**12)
rates = st.decimals(
    min_value=Decimal("0.000001"),
    max_value=Decimal("100000"),
    places=6,
    allow_nan=False,
    allow_infinity=False,
)
plans = settings(max_examples=150, deadline=None)


@dataclass(frozen=True)
class Quote:
    """A rate as ``wallet.selectors.RateQuote`` gives it, without a database row."""

    rate: Decimal

    def snapshot(self) -> dict[str, Any]:
        return {"rate": str(self.rate), "rate_id": 1}


def assert_balanced(lines: list[Line[Any]]) -> None:
    """Zero per currency, zero in each operator's books, every amount an integer."""
    assert unbalanced_currencies(lines) == {}
    assert unbalanced_books(lines) == {}
    assert all(type(line.amount) is int for line in lines), lines


def _nets(lines: list[Line[Any]]) -> dict[Any, int]:
    nets: dict[Any, int] = defaultdict(int)
    for line in lines:
        nets[line.account] += line.amount
    return {account: net for account, net in nets.items() if net}


def _escrow(owner: uuid.UUID) -> Any:
    return escrow_key(operator_id=owner, game_ref=GAME, currency=ROOM)


# --- Prizes -----------------------------------------------------------------------------------
payee_facts = st.lists(
    st.tuples(
        st.sampled_from(OPERATORS),
        st.sampled_from(CURRENCIES),
        st.integers(min_value=0, max_value=10**10),  # cash (0: none)
        st.integers(min_value=0, max_value=10**10),  # a ticket prize (0: none)
    ),
    min_size=1,
    max_size=6,
)


@plans
@given(facts=payee_facts, rate=rates, network=st.booleans())
def test_a_rounds_prizes_balance_and_empty_the_escrow_by_exactly_their_sum(facts, rate, network):
    owner = NETWORK if network else OPERATORS[0]
    payees, cash, tickets = {}, {}, {}
    for n, (operator_id, wallet, paid, ticket) in enumerate(facts):
        pk = uuid.UUID(int=1000 + n)
        payees[pk] = Payee(
            player_id=pk,
            operator_id=operator_id if network else OPERATORS[0],
            wallet_currency=wallet,
        )
        if paid:
            cash[pk] = paid
        if ticket:
            tickets[(pk, f"tournament:target-{n % 2}")] = ticket
    quotes = {code: Quote(rate) for code in CURRENCIES if code != ROOM}
    plan = prizes_plan(
        game_ref=GAME,
        currency=ROOM,
        escrow_operator_id=owner,
        network=network,
        payees=payees,
        cash=cash,
        tickets=tickets,
        quotes=quotes,
    )
    assert_balanced(plan.lines)
    total = sum(cash.values()) + sum(tickets.values())
    assert plan.amount == total
    assert _nets(plan.lines).get(_escrow(owner), 0) == -total
    assert plan.escrow == _escrow(owner)
    for (pk, target), amount in tickets.items():  # each ticket gets its prize, unconverted
        key = ticket_key(
            player_id=pk, operator_id=payees[pk].operator_id, game_ref=target, currency=ROOM
        )
        assert key in plan.keys and _nets(plan.lines)[key] == amount
    every_account = {line.account for line in plan.lines} - {plan.escrow}
    assert every_account <= set(plan.keys)  # every account the posting moves is locked


def test_a_prize_to_another_operators_player_needs_the_networks_escrow():
    pk = uuid.uuid4()
    payee = Payee(player_id=pk, operator_id=OPERATORS[1], wallet_currency=ROOM)
    for cash, tickets in (({pk: 5}, {}), ({}, {(pk, "tournament:t"): 5})):
        with pytest.raises(EscrowOperatorMismatchProblem):
            prizes_plan(
                game_ref=GAME,
                currency=ROOM,
                escrow_operator_id=OPERATORS[0],
                network=False,
                payees={pk: payee},
                cash=cash,
                tickets=tickets,
                quotes={},
            )


# --- Entry fees -------------------------------------------------------------------------------
@plans
@given(
    fee=amounts,
    contributions=st.dictionaries(st.sampled_from(OPERATORS), amounts, min_size=1, max_size=4),
    share=st.integers(min_value=0, max_value=10_000),
    network=st.booleans(),
)
def test_the_fee_goes_to_the_house_and_a_networks_is_shared_as_a_games(
    fee, contributions, share, network
):
    owner = NETWORK if network else OPERATORS[0]
    split = network_fee_split(fee=fee, contributions=contributions, fee_share_bps=share)
    plan = fee_plan(
        game_ref=GAME,
        currency=ROOM,
        escrow_operator_id=owner,
        fee=fee,
        split=split if network else None,
    )
    assert_balanced(plan.lines)
    nets = _nets(plan.lines)
    assert nets[_escrow(owner)] == -fee and plan.amount == fee
    house_fees = defaultdict(int)
    for account, net in nets.items():
        if account.kind == AccountKind.HOUSE_FEE:
            assert account.shard == shard_for(GAME)
            house_fees[account.operator_id] += net
    assert sum(house_fees.values()) == fee
    if network:
        assert house_fees[NETWORK] == split.network
        for operator_id, part in split.operators.items():
            assert house_fees.get(operator_id, 0) == part
        assert plan.metadata["network"] == split.metadata()
    else:
        assert house_fees == {OPERATORS[0]: fee}


# --- Overlay ----------------------------------------------------------------------------------
@plans
@given(
    overlays=st.lists(st.tuples(st.sampled_from(OPERATORS), amounts), min_size=1, max_size=4),
    network=st.booleans(),
)
def test_overlays_balance_and_their_return_gives_each_operator_back_exactly_its_own(
    overlays, network
):
    owner = NETWORK if network else OPERATORS[0]
    ids: dict[Any, int] = {}
    lines_by_operator: dict[Any, list[tuple[int, int]]] = defaultdict(list)
    for sponsor, amount in overlays:
        sponsor = sponsor if network else owner
        plan = overlay_plan(
            game_ref=GAME,
            currency=ROOM,
            amount=amount,
            sponsor_id=sponsor,
            escrow_operator_id=owner,
            crosses=sponsor != owner,
        )
        assert_balanced(plan.lines)
        nets = _nets(plan.lines)
        assert nets[_escrow(owner)] == amount and plan.escrow in plan.keys
        promotion = promotion_key(operator_id=sponsor, currency=ROOM, shard=shard_for(GAME))
        assert nets[promotion] == -amount
        for line in plan.lines:
            lines_by_operator[sponsor].append((ids.setdefault(line.account, len(ids)), line.amount))
    escrow_id = ids[_escrow(owner)]
    for sponsor, lines in lines_by_operator.items():
        back = overlay_return_plan(entries=lines, escrow_id=escrow_id, game_ref=GAME)
        assert back.amount == sum(
            amount for s, amount in overlays if (s if network else owner) == sponsor
        )
        undone = _nets([Line(account, amount, "x") for account, amount in lines] + back.lines)
        assert undone == {}
        with pytest.raises(NothingToRefundProblem):  # a second return finds nothing
            overlay_return_plan(
                entries=lines + [(line.account, line.amount) for line in back.lines],
                escrow_id=escrow_id,
                game_ref=GAME,
            )


# --- Tickets ----------------------------------------------------------------------------------
@plans
@given(amount=amounts, operator_id=st.sampled_from(OPERATORS), network=st.booleans())
def test_a_ticket_granted_entered_and_expired_balances_each_time(amount, operator_id, network):
    pk = uuid.uuid4()
    owner = NETWORK if network else operator_id
    ticket = ticket_key(player_id=pk, operator_id=operator_id, game_ref=GAME, currency=ROOM)
    promotion = promotion_key(operator_id=operator_id, currency=ROOM, shard=shard_for(pk))
    grant = ticket_grant_plan(
        player_id=pk, operator_id=operator_id, game_ref=GAME, currency=ROOM, amount=amount
    )
    entry = ticket_entry_plan(
        player_id=pk,
        operator_id=operator_id,
        escrow_operator_id=owner,
        game_ref=GAME,
        currency=ROOM,
        amount=amount,
        crosses=network,
    )
    expiry = ticket_expiry_plan(
        player_id=pk, operator_id=operator_id, game_ref=GAME, currency=ROOM, amount=amount
    )
    for plan in (grant, entry, expiry):
        assert_balanced(plan.lines)
        assert {line.account for line in plan.lines} <= set(plan.keys)
        assert all(line.player_id == pk for line in plan.lines if line.account.kind != "escrow")
    assert _nets(grant.lines) == {promotion: -amount, ticket: amount}
    assert _nets(expiry.lines) == {promotion: amount, ticket: -amount}
    entered = _nets(entry.lines)
    assert entered[ticket] == -amount and entered[_escrow(owner)] == amount
    positions = {a: n for a, n in entered.items() if a.kind == AccountKind.NETWORK_POSITION}
    assert sum(positions.values()) == 0 and len(positions) == (2 if network else 0)
