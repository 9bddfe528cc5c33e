"""R1 Cards: the deck, the text notation, deadwood values."""

import pytest

from games.engine import (
    FULL_DECK,
    Card,
    CardParseError,
    DuplicateCardError,
    EngineError,
    card_value,
    format_cards,
    parse_card,
    parse_cards,
    sort_by_suit,
)


def test_r1_one_deck_of_52_distinct_cards_no_jokers():
    assert len(FULL_DECK) == 52
    assert len(set(FULL_DECK)) == 52
    assert {card.suit for card in FULL_DECK} == {"S", "H", "D", "C"}
    assert {card.rank for card in FULL_DECK} == set(range(1, 14))


def test_r1_canonical_deck_order_is_suits_s_h_d_c_then_rank():
    assert format_cards(FULL_DECK[:3]) == "AS 2S 3S"
    assert str(FULL_DECK[12]) == "KS"
    assert str(FULL_DECK[13]) == "AH"
    assert str(FULL_DECK[26]) == "AD"
    assert str(FULL_DECK[51]) == "KC"
    assert [card.index for card in FULL_DECK] == list(range(52))


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        ("AS", Card(1, "S")),
        ("TD", Card(10, "D")),
        ("10d", Card(10, "D")),
        ("kh", Card(13, "H")),
        ("Qc", Card(12, "C")),
        ("2s", Card(2, "S")),
        ("jH", Card(11, "H")),
    ],
)
def test_r1_notation_is_case_insensitive_and_accepts_10(token, expected):
    assert parse_card(token) == expected


def test_r1_printing_uses_t_for_ten():
    assert str(Card(10, "D")) == "TD"
    assert format_cards(parse_cards("as 10d kh")) == "AS TD KH"


def test_parse_cards_accepts_whitespace_and_commas():
    assert parse_cards(" AS,TD  10c,\nkh ") == (
        Card(1, "S"),
        Card(10, "D"),
        Card(10, "C"),
        Card(13, "H"),
    )
    assert parse_cards("") == ()


@pytest.mark.parametrize("token", ["1S", "11H", "ZD", "AX", "A", "10", "AS!", "0C", "S"])
def test_r1_bad_token_error_names_the_token(token):
    with pytest.raises(CardParseError) as caught:
        parse_cards(f"2H {token} 3H")
    assert repr(token) in str(caught.value)
    assert caught.value.token == token
    assert isinstance(caught.value, ValueError)
    assert isinstance(caught.value, EngineError)


def test_r1_duplicate_cards_are_refused_naming_the_card():
    with pytest.raises(DuplicateCardError) as caught:
        parse_cards("AS 2S td 10D")
    assert "TD" in str(caught.value)
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize(("rank", "value"), [(1, 1), (2, 2), (9, 9), (10, 10), (11, 10), (13, 10)])
def test_r1_deadwood_values(rank, value):
    assert card_value(Card(rank, "H")) == value


def test_card_is_frozen_and_validated():
    card = Card(5, "H")
    with pytest.raises(AttributeError):
        card.rank = 6  # type: ignore[misc]
    with pytest.raises(ValueError):
        Card(14, "H")
    with pytest.raises(ValueError):
        Card(0, "H")
    with pytest.raises(ValueError):
        Card(5, "X")
    with pytest.raises(ValueError):
        Card(True, "S")


def test_sort_by_suit_orders_suits_s_h_d_c_then_rank():
    cards = parse_cards("KC 2H AS 9D TH 3S")
    assert format_cards(sort_by_suit(cards)) == "AS 3S 2H TH 9D KC"
