"""The input checks every posting shares (wallet/ledger/checks.py): each bad input is its
own problem type."""

import pytest

from gin_platform.models import Player
from wallet.ledger.checks import (
    MAX_AMOUNT,
    check_active,
    check_amount,
    check_funds,
    check_game_ref,
    check_metadata,
    check_reference,
)
from wallet.models import GAME_REF_LENGTH, REFERENCE_LENGTH, Account
from wallet.problems import (
    AmountInvalidProblem,
    AmountNotPositiveProblem,
    GameRefInvalidProblem,
    InsufficientFundsProblem,
    PlayerInactiveProblem,
    ReferenceInvalidProblem,
)


@pytest.mark.parametrize(
    ("amount", "problem"),
    [
        (True, AmountInvalidProblem),
        (1.5, AmountInvalidProblem),
        ("100", AmountInvalidProblem),
        (None, AmountInvalidProblem),
        (0, AmountNotPositiveProblem),
        (-1, AmountNotPositiveProblem),
        (MAX_AMOUNT + 1, AmountInvalidProblem),
    ],
)
def test_an_amount_is_a_positive_integer_of_minor_units(amount, problem):
    with pytest.raises(problem) as raised:
        check_amount(amount, field="stake")
    assert raised.value.extensions["field"] == "stake"


def test_a_good_amount_comes_back_unchanged():
    assert check_amount(1) == 1 and check_amount(MAX_AMOUNT) == MAX_AMOUNT


@pytest.mark.parametrize("reference", ["", "   ", None, 7, "r" * (REFERENCE_LENGTH + 1)])
def test_a_reference_is_a_short_non_blank_string(reference):
    with pytest.raises(ReferenceInvalidProblem):
        check_reference(reference)
    assert check_reference("r" * REFERENCE_LENGTH) == "r" * REFERENCE_LENGTH


@pytest.mark.parametrize("game_ref", ["", " ", None, 42, "g" * (GAME_REF_LENGTH + 1)])
def test_a_game_ref_is_a_short_non_blank_string(game_ref):
    with pytest.raises(GameRefInvalidProblem):
        check_game_ref(game_ref)
    assert check_game_ref("match:1") == "match:1"


def test_metadata_is_a_new_dict_of_a_mapping():
    given = {"psp": "x"}
    assert check_metadata(None) == {}
    assert check_metadata(given) == given and check_metadata(given) is not given
    with pytest.raises(TypeError):
        check_metadata(["psp"])  # type: ignore[arg-type]


def test_an_inactive_player_is_refused_with_the_status():
    check_active(Player(status=Player.Status.ACTIVE))
    with pytest.raises(PlayerInactiveProblem, match="suspended"):
        check_active(Player(status="suspended"))


def test_the_funds_check_says_what_is_available_and_what_is_needed():
    wallet = Account(kind=Account.Kind.PLAYER, currency="EUR", balance=1050)
    check_funds(wallet, 1050)
    with pytest.raises(InsufficientFundsProblem) as raised:
        check_funds(wallet, 1051)
    assert raised.value.extensions["available"] == {"amount": "10.50", "currency": "EUR"}
    assert raised.value.extensions["needed"] == {"amount": "10.51", "currency": "EUR"}
    # In the request's language, amounts as it writes them (English here: no request).
    assert raised.value.detail == "There is not enough money: €10.50 available, €10.51 needed."
