"""A posting's lines and its sums (wallet/ledger/lines.py): pure Python, no database."""

from hypothesis import given
from hypothesis import strategies as st

from wallet.ledger.keys import AccountKey
from wallet.ledger.lines import (
    Line,
    lines_on,
    transfer_lines,
    unbalanced_books,
    unbalanced_currencies,
)


def _key(operator: str, currency: str = "EUR", shard: int = 0) -> AccountKey:
    return AccountKey(kind="outside", currency=currency, operator_id=operator, shard=shard)


def test_a_line_moves_to_its_account_unchanged():
    line = Line(_key("a"), -5, "stake", "p1")
    assert line.on("row") == Line("row", -5, "stake", "p1")
    assert lines_on([line, Line(_key("b"), 5, "stake")], {_key("a"): 1, _key("b"): 2}) == [
        Line(1, -5, "stake", "p1"),
        Line(2, 5, "stake", None),
    ]


def test_the_sums_name_each_unbalanced_currency_and_books():
    lines = [
        Line(_key("a"), -5, "x"),
        Line(_key("b"), 5, "x"),
        Line(_key("a", "USD"), 3, "x"),
    ]
    assert unbalanced_currencies(lines) == {"USD": 3}
    assert unbalanced_books(lines) == {("a", "EUR"): -5, ("b", "EUR"): 5, ("a", "USD"): 3}
    assert unbalanced_currencies([]) == {} and unbalanced_books([]) == {}


@given(
    amount=st.integers(min_value=0, max_value=10**15),
    source_shard=st.integers(min_value=0, max_value=7),
    target_shard=st.integers(min_value=0, max_value=7),
)
def test_a_transfer_balances_in_its_currency_and_books(amount, source_shard, target_shard):
    lines = transfer_lines(
        source=_key("a", shard=source_shard),
        target=_key("a", shard=target_shard),
        amount=amount,
        component="deposit",
        player_id="p",
    )
    assert unbalanced_currencies(lines) == {} and unbalanced_books(lines) == {}
    assert [line.amount for line in lines] == [-amount, amount]
    assert {(line.component, line.player_id) for line in lines} == {("deposit", "p")}
