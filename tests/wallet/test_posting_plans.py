"""The plans of the postings (wallet/services/plans/) on generated facts, without a
database (no test here may touch it: pytest-django refuses any query): every plan sums to
zero per currency and within each operator's books, every amount is an integer of minor
units, the amounts a plan moves are never negative, and the postings that undo others
(refunds, voids, reversals) give back exactly what was taken."""

from __future__ import annotations

import uuid
from collections import defaultdict
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gin_platform.money import PRACTICE_CURRENCY, exponent
from wallet.ledger.keys import AccountKey, AccountKind, house_key, shard_for
from wallet.ledger.lines import Line, unbalanced_books, unbalanced_currencies
from wallet.problems import (
    EscrowOperatorMismatchProblem,
    NothingToRefundProblem,
    NothingToVoidProblem,
)
from wallet.services.plans.conversion import payout_conversion, stake_conversion
from wallet.services.plans.corrections import reversal_plan
from wallet.services.plans.escrow import buy_in_accounts, buy_in_plan, refund_plan, void_plan
from wallet.services.plans.escrow_settle import Payee, settlement_plan
from wallet.services.plans.network import (
    crossing_lines,
    net_settlement_accounts,
    net_settlement_lines,
    network_fee_split,
    position_key,
)

CURRENCIES = ["EUR", "USD", "GBP", "JPY", "KWD"]
OPERATORS = [uuid.UUID(int=n) for n in range(1, 5)]
NETWORK = uuid.UUID(int=99)
GAME = "match:plan"

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


def _exact(amount: int, room: str, wallet: str, rate: Decimal) -> Decimal:
    """What ``amount`` minor units of ``room`` are worth in minor units of ``wallet``,
    unrounded."""
    return Decimal(amount) * rate * Decimal(10) ** (exponent(wallet) - exponent(room))


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


# --- Conversion -----------------------------------------------------------------------------
def _fx(operator: uuid.UUID, currency: str) -> AccountKey:
    return house_key(operator_id=operator, kind=AccountKind.HOUSE_FX, currency=currency, shard=0)


@plans
@given(
    amount=amounts,
    currencies=st.lists(st.sampled_from(CURRENCIES), min_size=2, max_size=2, unique=True),
    rate=rates,
)
def test_a_conversion_rounds_for_the_house_and_its_legs_are_integers(amount, currencies, rate):
    room, wallet = currencies
    facts = {
        "amount": amount,
        "room_currency": room,
        "wallet_currency": wallet,
        "quote": Quote(rate),
        "fx_room": _fx(OPERATORS[0], room),
        "fx_wallet": _fx(OPERATORS[0], wallet),
        "player_id": "p",
    }
    exact = _exact(amount, room, wallet, rate)
    stake = stake_conversion(**facts)
    payout = payout_conversion(**facts)
    assert type(stake.converted) is int and type(payout.converted) is int
    assert 0 <= payout.converted <= exact <= stake.converted  # the house is never short
    assert stake.converted - payout.converted <= 1
    assert stake.snapshot["rounding"] == ROUND_CEILING
    assert payout.snapshot["rounding"] == ROUND_FLOOR
    assert _nets(stake.lines) == {facts["fx_wallet"]: stake.converted, facts["fx_room"]: -amount}
    assert _nets(payout.lines) == {
        facts["fx_room"]: amount,
        **({facts["fx_wallet"]: -payout.converted} if payout.converted else {}),
    }


# --- Buy-in and refund --------------------------------------------------------------------
@st.composite
def buy_ins(draw: st.DrawFn) -> dict[str, Any]:
    """The facts of a buy-in: a player of one operator, a room and a wallet currency
    (practice chips, the same currency, or another at a rate), a network escrow or not."""
    player_operator = draw(st.sampled_from(OPERATORS))
    crosses = draw(st.booleans())
    practice = draw(st.booleans())
    currency = PRACTICE_CURRENCY if practice else draw(st.sampled_from(CURRENCIES))
    wallet_currency = currency if practice else draw(st.sampled_from(CURRENCIES))
    return {
        "player_id": draw(st.uuids()),
        "player_operator_id": player_operator,
        "escrow_operator_id": NETWORK if crosses else player_operator,
        "currency": currency,
        "wallet_currency": wallet_currency,
        "crosses": crosses,
        "practice": practice,
        "amount": draw(amounts),
        "rate": draw(rates),
    }


def _buy_in(facts: dict[str, Any], *, amount: int | None = None, rate: Decimal | None = None):
    mint = None
    if facts["practice"]:
        mint = house_key(
            operator_id=facts["player_operator_id"],
            kind=AccountKind.OUTSIDE,
            currency=PRACTICE_CURRENCY,
            shard=shard_for(facts["player_id"]),
        )
    accounts = buy_in_accounts(
        player_id=facts["player_id"],
        player_operator_id=facts["player_operator_id"],
        escrow_operator_id=facts["escrow_operator_id"],
        game_ref=GAME,
        currency=facts["currency"],
        wallet_currency=facts["wallet_currency"],
        crosses=facts["crosses"],
        mint=mint,
    )
    converts = facts["currency"] != facts["wallet_currency"]
    plan = buy_in_plan(
        accounts=accounts,
        amount=facts["amount"] if amount is None else amount,
        currency=facts["currency"],
        wallet_currency=facts["wallet_currency"],
        quote=Quote(facts["rate"] if rate is None else rate) if converts else None,
        player_id=facts["player_id"],
    )
    return accounts, plan


@plans
@given(facts=buy_ins())
def test_a_buy_in_plan_balances_and_moves_the_stake_into_the_escrow(facts):
    accounts, plan = _buy_in(facts)
    assert_balanced(plan.lines)
    assert type(plan.paid) is int and plan.paid >= 0
    assert {line.account for line in plan.lines} <= set(accounts.keys)
    nets = _nets(plan.lines)
    assert nets[accounts.escrow] == facts["amount"]
    assert nets.get(accounts.wallet, 0) == -plan.paid
    assert all(line.player_id == facts["player_id"] for line in plan.lines)
    if facts["currency"] == facts["wallet_currency"]:
        assert plan.paid == facts["amount"] and plan.fx_snapshots == []
    else:
        exact = _exact(facts["amount"], facts["currency"], facts["wallet_currency"], facts["rate"])
        assert exact <= plan.paid < exact + 1  # rounded up, by less than a minor unit
        (snapshot,) = plan.fx_snapshots
        assert snapshot["converted"] == plan.paid and snapshot["amount"] == facts["amount"]
    # The positions carry the stake across only for a network escrow.
    positions = {
        line.account for line in plan.lines if line.account.kind == AccountKind.NETWORK_POSITION
    }
    assert bool(positions) == facts["crosses"]


def _account_ids(keys) -> dict[AccountKey, int]:
    return {key: number for number, key in enumerate(dict.fromkeys(keys), start=1)}


@plans
@given(
    facts=buy_ins(),
    stakes=st.lists(st.tuples(amounts, rates), min_size=1, max_size=4),
)
def test_a_refund_gives_back_exactly_what_the_buy_ins_took(facts, stakes):
    """A player's buy-ins (top-ups at other rates included), refunded: each account's net
    comes back negated, the escrow's is the refund's amount, and after it nothing of the
    player's remains anywhere (no FX gain or loss, no rounding). A second refund finds
    nothing."""
    plans_ = [_buy_in(facts, amount=amount, rate=rate) for amount, rate in stakes]
    accounts = plans_[0][0]
    ids = _account_ids(accounts.keys)
    kinds = {number: key.kind for key, number in ids.items()}
    keys = {number: key for key, number in ids.items()}
    contributions = [
        (ids[line.account], line.account.kind, line.amount)
        for _, plan in plans_
        for line in plan.lines
    ]
    plan = refund_plan(
        contributions=contributions,
        escrow_id=ids[accounts.escrow],
        player_id=facts["player_id"],
        game_ref=GAME,
    )
    assert plan.amount == sum(amount for amount, _ in stakes)
    on_keys = [line.on(keys[line.account]) for line in plan.lines]
    assert_balanced(on_keys)
    assert all(line.amount != 0 for line in plan.lines)
    assert {line.component for line in plan.lines} <= {"refund", "fx"}
    assert all(
        line.component == ("fx" if kinds[line.account] == AccountKind.HOUSE_FX else "refund")
        for line in plan.lines
    )
    everything = [line for _, buy_in in plans_ for line in buy_in.lines] + on_keys
    assert _nets(everything) == {}
    undone = contributions + [
        (line.account, kinds[line.account], line.amount) for line in plan.lines
    ]
    with pytest.raises(NothingToRefundProblem):
        refund_plan(
            contributions=undone,
            escrow_id=ids[accounts.escrow],
            player_id=facts["player_id"],
            game_ref=GAME,
        )


# --- Void ---------------------------------------------------------------------------------
@st.composite
def voided_games(draw: st.DrawFn) -> list[tuple[dict[str, Any], list[tuple[int, Decimal]], bool]]:
    """The buy-ins of a game about to be voided (R13): 1-4 players of the escrow's operator
    (for a network escrow, of member operators), each with 1-3 buy-ins (top-ups at other
    rates) in the room's currency from a wallet in that currency or another; some players
    refunded since (they have nothing left to give back)."""
    crosses = draw(st.booleans())
    practice = not crosses and draw(st.booleans())
    currency = PRACTICE_CURRENCY if practice else draw(st.sampled_from(CURRENCIES))
    escrow_operator = NETWORK if crosses else draw(st.sampled_from(OPERATORS))
    players = []
    for number in range(draw(st.integers(min_value=1, max_value=4))):
        facts = {
            "player_id": uuid.UUID(int=100 + number),
            "player_operator_id": draw(st.sampled_from(OPERATORS)) if crosses else escrow_operator,
            "escrow_operator_id": escrow_operator,
            "currency": currency,
            "wallet_currency": currency if practice else draw(st.sampled_from(CURRENCIES)),
            "crosses": crosses,
            "practice": practice,
        }
        stakes = draw(st.lists(st.tuples(amounts, rates), min_size=1, max_size=3))
        players.append((facts, stakes, draw(st.booleans())))
    return players


@plans
@given(game=voided_games())
def test_a_void_gives_every_player_back_exactly_what_they_put_in(game):
    """Each player's buy-ins (and a refund of them, for some), then the void: it balances
    per currency and in each operator's books, gives each player exactly their refund (the
    same lines ``refund_plan`` makes for them alone), empties the escrow, and leaves nothing
    of anybody's anywhere. A second void finds nothing."""
    ids: dict[AccountKey, int] = {}
    contributions: dict[Any, list[tuple[int, str, int]]] = defaultdict(list)
    history: list[Line[AccountKey]] = []
    owed: dict[Any, int] = {}
    for facts, stakes, refunded in game:
        player_id = facts["player_id"]
        for amount, rate in stakes:
            accounts, buy_in = _buy_in(facts, amount=amount, rate=rate)
            history += buy_in.lines
            for line in buy_in.lines:
                number = ids.setdefault(line.account, len(ids) + 1)
                contributions[player_id].append((number, line.account.kind, line.amount))
        escrow = accounts.escrow
        keys = {number: key for key, number in ids.items()}
        if refunded:
            refund = refund_plan(
                contributions=contributions[player_id],
                escrow_id=ids[escrow],
                player_id=player_id,
                game_ref=GAME,
            )
            history += [line.on(keys[line.account]) for line in refund.lines]
            contributions[player_id] += [
                (line.account, keys[line.account].kind, line.amount) for line in refund.lines
            ]
        else:
            owed[player_id] = sum(amount for amount, _ in stakes)
    keys = {number: key for key, number in ids.items()}
    facts = {"contributions": contributions, "escrow_id": ids[escrow], "game_ref": GAME}
    if not owed:
        with pytest.raises(NothingToVoidProblem):
            void_plan(**facts)
        return
    plan = void_plan(**facts)
    on_keys = [line.on(keys[line.account]) for line in plan.lines]
    assert_balanced(on_keys)
    assert type(plan.amount) is int and plan.amount == sum(owed.values()) > 0
    assert plan.refunds == owed
    assert all(type(amount) is int and amount > 0 for amount in plan.refunds.values())
    assert all(line.amount != 0 for line in plan.lines)
    assert _nets(on_keys)[escrow] == -plan.amount
    for line in on_keys:  # money only comes back into the wallets
        if line.account.kind == AccountKind.PLAYER:
            assert line.amount > 0, line
    for player_id in owed:
        alone = refund_plan(
            contributions=contributions[player_id],
            escrow_id=ids[escrow],
            player_id=player_id,
            game_ref=GAME,
        )
        assert [line for line in plan.lines if line.player_id == player_id] == alone.lines
    assert _nets(history + on_keys) == {}
    voided = {
        player_id: [
            *entries,
            *(
                (line.account, keys[line.account].kind, line.amount)
                for line in plan.lines
                if line.player_id == player_id
            ),
        ]
        for player_id, entries in contributions.items()
    }
    with pytest.raises(NothingToVoidProblem):
        void_plan(**{**facts, "contributions": voided})


# --- Settlement ---------------------------------------------------------------------------
@st.composite
def settlements(draw: st.DrawFn) -> dict[str, Any]:
    """The facts of a settlement: 1-4 payees (of the escrow's operator, or for a network
    game of member operators), each with payout lines whose total is >= 0 (a line may be
    negative), wallets in the room's currency or another, a fee and, for a network game,
    its split by contribution."""
    network = draw(st.booleans())
    practice = not network and draw(st.booleans())
    currency = PRACTICE_CURRENCY if practice else draw(st.sampled_from(CURRENCIES))
    escrow_operator = NETWORK if network else draw(st.sampled_from(OPERATORS))
    payees: dict[Any, Payee] = {}
    lines_by_player: dict[Any, list[tuple[int, str]]] = {}
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        player_id = draw(st.uuids())
        payees[player_id] = Payee(
            player_id=player_id,
            operator_id=draw(st.sampled_from(OPERATORS)) if network else escrow_operator,
            wallet_currency=currency if practice else draw(st.sampled_from(CURRENCIES)),
        )
        positive = draw(st.lists(st.integers(0, 10**9), min_size=1, max_size=3))
        negative = draw(st.lists(st.integers(-(10**9), -1), max_size=2))
        if sum(positive) + sum(negative) < 0:
            negative = []
        components = ["stake", "pot", "points", "cap_adjustment", "line_bonus"]
        lines_by_player[player_id] = [
            (amount, draw(st.sampled_from(components))) for amount in positive + negative
        ]
    fee = draw(st.integers(0, 10**9))
    split = None
    if network:
        contributions = {
            operator: draw(st.integers(0, 10**9))
            for operator in {payee.operator_id for payee in payees.values()}
        }
        split = network_fee_split(
            fee=fee, contributions=contributions, fee_share_bps=draw(st.integers(0, 10_000))
        )
    wallet_currencies = {payee.wallet_currency for payee in payees.values()} - {currency}
    return {
        "currency": currency,
        "escrow_operator_id": escrow_operator,
        "payees": payees,
        "lines_by_player": lines_by_player,
        "fee": fee,
        "split": split,
        "quotes": {code: Quote(draw(rates)) for code in sorted(wallet_currencies)},
    }


@dataclass(frozen=True)
class PayoutLine:
    amount: int
    component: str


def _settle(facts: dict[str, Any]):
    return settlement_plan(
        game_ref=GAME,
        currency=facts["currency"],
        escrow_operator_id=facts["escrow_operator_id"],
        payees=facts["payees"],
        lines_by_player={
            pk: [PayoutLine(amount, component) for amount, component in lines]
            for pk, lines in facts["lines_by_player"].items()
        },
        fee=facts["fee"],
        split=facts["split"],
        quotes=facts["quotes"],
    )


@plans
@given(facts=settlements())
def test_a_settlement_plan_balances_and_empties_the_escrow(facts):
    plan = _settle(facts)
    assert_balanced(plan.lines)
    assert {line.account for line in plan.lines} <= {*plan.keys, plan.escrow}
    total = sum(a for lines in facts["lines_by_player"].values() for a, _ in lines) + facts["fee"]
    nets = _nets(plan.lines)
    assert nets.get(plan.escrow, 0) == -total
    wallets = {
        pk: sum(
            line.amount
            for line in plan.lines
            if line.account.kind == AccountKind.PLAYER and line.player_id == pk
        )
        for pk in facts["payees"]
    }
    for pk, payee in facts["payees"].items():
        owed = sum(amount for amount, _ in facts["lines_by_player"][pk])
        if payee.wallet_currency == facts["currency"]:
            assert wallets[pk] == owed
        else:  # rounded down, by less than a minor unit
            rate = facts["quotes"][payee.wallet_currency].rate
            exact = _exact(owed, facts["currency"], payee.wallet_currency, rate)
            assert exact - 1 < wallets[pk] <= exact
    # Money only ever comes in to a wallet or a house fee account.
    for line in plan.lines:
        if line.account.kind in (AccountKind.PLAYER, AccountKind.HOUSE_FEE):
            assert line.amount >= 0, line
    fees = sum(v for k, v in nets.items() if k.kind == AccountKind.HOUSE_FEE)
    assert fees == facts["fee"]
    assert plan.metadata["fee"] == facts["fee"]
    assert ("network" in plan.metadata) == (facts["split"] is not None)
    assert len(plan.fx_snapshots) == sum(
        1
        for pk, payee in facts["payees"].items()
        if payee.wallet_currency != facts["currency"]
        and sum(a for a, _ in facts["lines_by_player"][pk])
    )


@plans
@given(facts=settlements())
def test_a_payee_of_another_operator_is_refused_outside_a_network_game(facts):
    payee = next(iter(facts["payees"].values()))
    stranger = next(op for op in OPERATORS if op != facts["escrow_operator_id"])
    facts["payees"][payee.player_id] = Payee(
        player_id=payee.player_id, operator_id=stranger, wallet_currency=payee.wallet_currency
    )
    if facts["split"] is None:
        with pytest.raises(EscrowOperatorMismatchProblem):
            _settle(facts)
    else:
        assert_balanced(_settle(facts).lines)


# --- Network legs -------------------------------------------------------------------------
@plans
@given(
    fee=st.integers(0, 10**12),
    contributions=st.dictionaries(st.sampled_from(OPERATORS), st.integers(-5, 10**12)),
    bps=st.integers(0, 10_000),
)
def test_a_fee_split_adds_up_to_the_fee_and_never_overpays_an_operator(fee, contributions, bps):
    split = network_fee_split(fee=fee, contributions=contributions, fee_share_bps=bps)
    assert split.network + sum(split.operators.values()) == fee
    assert split.network >= 0 and all(share >= 0 for share in split.operators.values())
    pot = sum(split.contributions.values())
    for operator, share in split.operators.items():
        assert share * pot * 10_000 <= fee * split.contributions[operator] * (10_000 - bps)
    assert all(type(share) is int for share in [split.network, *split.operators.values()])


@plans
@given(
    amount=st.integers(-(10**12), 10**12).filter(bool),
    currency=st.sampled_from(CURRENCIES),
    operator=st.sampled_from(OPERATORS),
)
def test_a_net_settlement_balances_in_both_books(amount, currency, operator):
    accounts = net_settlement_accounts(operator_id=operator, network_id=NETWORK, currency=currency)
    lines = net_settlement_lines(accounts=accounts, amount=amount)
    assert_balanced(lines)
    assert {line.account for line in lines} == set(accounts.keys)
    assert _nets(lines)[accounts.member_position] == -amount


@plans
@given(amount=st.integers(0, 10**12), currency=st.sampled_from(CURRENCIES))
def test_a_crossing_moves_the_amount_from_one_operators_books_to_anothers(amount, currency):
    out_of = position_key(operator_id=OPERATORS[0], currency=currency, shard=1)
    into = position_key(operator_id=NETWORK, currency=currency, shard=2)
    lines = crossing_lines(out_of=out_of, into=into, amount=amount, component="stake")
    assert unbalanced_currencies(lines) == {}
    assert unbalanced_books(lines) == (
        {(OPERATORS[0], currency): amount, (NETWORK, currency): -amount} if amount else {}
    )


# --- Reversal -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Entry:
    account_id: int
    amount: int
    component: str
    player_id: Any


@plans
@given(facts=buy_ins())
def test_a_reversal_negates_every_entry_and_balances(facts):
    accounts, buy_in = _buy_in(facts)
    ids = _account_ids(accounts.keys)
    keys = {number: key for key, number in ids.items()}
    entries = [
        Entry(ids[line.account], line.amount, line.component, line.player_id)
        for line in buy_in.lines
        if line.amount
    ]
    plan = reversal_plan(entries)
    reversed_lines = [line.on(keys[line.account]) for line in plan.lines]
    assert_balanced(reversed_lines)
    assert [(line.amount, line.component) for line in plan.lines] == [
        (-entry.amount, entry.component) for entry in entries
    ]
    assert _nets(buy_in.lines + reversed_lines) == {}
    assert plan.takes == {
        number: sum(e.amount for e in entries if e.account_id == number)
        for number in dict.fromkeys(e.account_id for e in entries)
    }
