"""R12 showdown: the engine against an independent brute force (brute_force_r12.py) on
random and adversarial three- and four-player showdowns, plus pinned examples."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import (
    FULL_DECK,
    Card,
    InvalidHandError,
    KnockOverLimitError,
    RuleSet,
    ShowdownResult,
    parse_cards,
    score_penalties,
    settle_showdown,
)
from games.engine.melds import sort_melds
from tests.games.engine import brute_force_r12
from tests.games.engine.brute_force import min_deadwood


def _compare(knocker, hands, rules):
    """Engine and brute force agree on everything R12 decides; the engine's arrangements
    are legal and add up."""
    result = settle_showdown(knocker=knocker, hands=hands, rules=rules)
    expected = brute_force_r12.showdown(
        knocker,
        hands,
        limit=rules.knock_limit,
        gin_bonus=rules.gin_bonus,
        big_gin_bonus=rules.big_gin_bonus,
        undercut_bonus=rules.undercut_bonus,
    )
    context = (knocker, [None if h is None else " ".join(map(str, h)) for h in hands])
    assert result.kind == expected["kind"], context
    assert result.winner == expected["winner"], context
    assert list(result.penalties) == expected["penalties"], context
    assert list(result.deadwood) == expected["deadwood"], context
    if expected["knocker_melds"] is not None:
        shown = {frozenset(meld.cards) for meld in result.knocker_melds}
        assert shown == expected["knocker_melds"], context
    for reply in result.opponents:
        layoffs_allowed = result.kind in ("knock", "undercut")
        assert layoffs_allowed or not reply.layoffs
        brute_force_r12.check_reply_is_legal(reply, result.knocker_melds, hands[reply.seat])
    assert [reply.seat for reply in result.opponents] == brute_force_r12.turn_order(knocker, hands)
    assert ShowdownResult.from_dict(result.to_dict()) == result
    return result


def _deal_from(pool, seats, rng, out=()):
    cards = rng.sample(pool, 7 * seats)
    hands = [
        None if seat in out else tuple(cards[7 * seat : 7 * seat + 7]) for seat in range(seats)
    ]
    return hands


def _dense_pool(rng, seats):
    width = rng.choice([7, 8]) if seats == 4 else rng.choice([6, 7])
    low = rng.randint(1, 14 - width)
    return [card for card in FULL_DECK if low <= card.rank < low + width]


def _adversarial(rng, seats):
    """A knocker with a run (and often a set) and opponents holding the cards that extend it
    at both ends, chains and the fourth card of the set: shared lay-off targets."""
    suit = rng.choice("SHDC")
    low = rng.randint(2, 9)
    run = [Card(rank, suit) for rank in range(low, low + 3)]
    extensions = [
        Card(rank, suit) for rank in (low - 1, low - 2, low + 3, low + 4) if 1 <= rank <= 13
    ]
    set_rank = rng.choice([rank for rank in range(1, 14) if not low <= rank < low + 3])
    set_suits = rng.sample("SHDC", 4)
    three = [Card(set_rank, s) for s in set_suits[:3]]
    fourth = Card(set_rank, set_suits[3])
    knocker = run + (three if rng.random() < 0.6 else [])
    window = [c for c in FULL_DECK if abs(c.rank - low - 1) <= 3 and c not in knocker]
    rest = [c for c in FULL_DECK if c not in knocker and c not in window]
    rng.shuffle(window)
    rng.shuffle(rest)
    knocker += [c for c in window if c not in extensions and c != fourth][: 7 - len(knocker)]
    used = set(knocker)
    specials = [c for c in dict.fromkeys([*extensions, fourth]) if c not in used]
    rng.shuffle(specials)
    opponents = [[] for _ in range(seats - 1)]
    for index, card in enumerate(specials):
        opponents[index % (seats - 1)].append(card)
        used.add(card)
    fill = [c for c in window + rest if c not in used]
    for hand in opponents:
        while len(hand) < 7:
            hand.append(fill.pop(0))
    knocker_seat = rng.randrange(seats)
    hands = []
    for seat in range(seats):
        if seat == knocker_seat:
            hands.append(tuple(knocker))
        else:
            hands.append(tuple(opponents.pop()))
    return knocker_seat, hands


def _random_case(rng):
    seats = rng.choice([3, 4])
    kind = rng.random()
    if kind < 0.45:
        knocker, hands = _adversarial(rng, seats)
    else:
        pool = _dense_pool(rng, seats) if kind < 0.9 else list(FULL_DECK)
        out = ()
        if seats == 4 and rng.random() < 0.2:
            out = (rng.randrange(4),)
        hands = _deal_from(pool, seats, rng, out)
        knocker = rng.choice([seat for seat in range(seats) if hands[seat] is not None])
    rules = RuleSet(
        seats=seats,
        knock_limit=rng.choice([10, 10, 10, 7, 4]),
        undercut_bonus=rng.choice([10, 25]),
    )
    return knocker, hands, rules


@pytest.mark.slow
def test_r12_showdowns_match_the_brute_force_on_thousands_of_seeded_cases():
    rng = random.Random(20261130)
    compared = kinds = 0
    seen = set()
    while compared < 2500:
        knocker, hands, rules = _random_case(rng)
        if min_deadwood(hands[knocker]) > rules.knock_limit:
            continue
        result = _compare(knocker, hands, rules)
        compared += 1
        seen.add(result.kind)
        kinds += bool(any(reply.layoffs for reply in result.opponents))
    assert seen == {"knock", "undercut", "gin"}
    assert kinds > 500  # lay-offs are common in these cases


@st.composite
def showdowns(draw):
    seats = draw(st.sampled_from([3, 4]))
    width = draw(st.sampled_from([6, 7, 8] if seats == 3 else [7, 8]))
    low = draw(st.integers(min_value=1, max_value=14 - width))
    pool = [card for card in FULL_DECK if low <= card.rank < low + width]
    cards = draw(st.permutations(pool))[: 7 * seats]
    hands = [tuple(cards[7 * seat : 7 * seat + 7]) for seat in range(seats)]
    knocker = draw(st.integers(min_value=0, max_value=seats - 1))
    limit = draw(st.sampled_from([10, 5]))
    return knocker, hands, RuleSet(seats=seats, knock_limit=limit)


@settings(max_examples=400, deadline=None)
@given(showdowns())
def test_r12_showdowns_match_the_brute_force_hypothesis(case):
    knocker, hands, rules = case
    if min_deadwood(hands[knocker]) <= rules.knock_limit:
        _compare(knocker, hands, rules)


def test_big_gin_with_eight_cards_charges_each_opponent_deadwood_plus_the_bonus():
    hands = [
        parse_cards("2S 3S 4S 5S 9H 9D 9C 9S"),
        parse_cards("KH KD QC JC 2H 3H 5C"),
        parse_cards("AS AH AD 7C 8C TC TD"),
    ]
    result = _compare(0, hands, RuleSet(seats=3))
    assert result.kind == "big_gin" and result.winner == 0
    assert result.penalties == (0, 50 + 31, 35 + 31)


def test_two_opponents_lay_off_onto_one_meld_each_on_the_knockers_original_meld():
    # Knocker 5-6-7 of hearts (K = 7); seat 1 holds 4H, seat 2 holds 8H then 9H (its chain).
    hands = [
        parse_cards("5H 6H 7H AS AD 2C 3D"),
        parse_cards("4H QS QD JC 9C 7S 6D"),
        parse_cards("8H 9H TS TD 4C 5C KD"),
    ]
    result = _compare(0, hands, RuleSet(seats=3))
    assert result.kind == "knock" and result.winner == 0
    by_seat = {
        reply.seat: [str(layoff.card) for layoff in reply.layoffs] for reply in result.opponents
    }
    assert by_seat == {1: ["4H"], 2: ["8H", "9H"]}
    assert result.deadwood == (7, 52, 39)
    assert result.penalties == (0, 45, 32)


def test_another_opponents_lay_off_never_extends_a_meld():
    # Seat 1 lays off 8H onto 5-6-7; seat 2's 9H fits only after 8H, so it stays deadwood.
    hands = [
        parse_cards("5H 6H 7H 2C 3D AS AD"),
        parse_cards("8H QS QD JC KC 7S 6D"),
        parse_cards("9H TS TD 4C 5C KD QH"),
    ]
    result = _compare(0, hands, RuleSet(seats=3))
    by_seat = {reply.seat: reply for reply in result.opponents}
    assert [str(layoff.card) for layoff in by_seat[1].layoffs] == ["8H"]
    assert by_seat[2].layoffs == ()
    assert "9H" in [str(card) for card in by_seat[2].deadwood_cards]


def test_undercut_ties_go_to_the_first_opponent_from_the_knockers_left():
    kind, winner, penalties = score_penalties(
        knocker=2,
        knocker_deadwood=6,
        opponent_deadwood=[(3, 4), (0, 4), (1, 15)],
        seats=4,
        rules=RuleSet(seats=4),
    )
    assert (kind, winner) == ("undercut", 3)
    assert penalties == (0, 11, 2 + 25, 0)


def test_equal_deadwood_is_an_undercut_with_three_players():
    kind, winner, penalties = score_penalties(
        knocker=0,
        knocker_deadwood=6,
        opponent_deadwood=[(1, 6), (2, 9)],
        seats=3,
        rules=RuleSet(seats=3),
    )
    assert (kind, winner, penalties) == ("undercut", 1, (25, 0, 3))


def test_knock_over_the_limit_and_bad_sizes_are_refused():
    rules = RuleSet(seats=3)
    opponents = [parse_cards("4H QS QD JC 9C 7S 6D"), parse_cards("8H 9H TS TD 4C 5C AD")]
    with pytest.raises(KnockOverLimitError):
        settle_showdown(
            knocker=0, hands=[parse_cards("KS KD 2C 3D 5H 9S JH"), *opponents], rules=rules
        )
    with pytest.raises(InvalidHandError):
        settle_showdown(knocker=0, hands=[parse_cards("5H 6H 7H"), *opponents], rules=rules)
    with pytest.raises(InvalidHandError, match="Big Gin"):
        settle_showdown(
            knocker=0, hands=[parse_cards("5H 6H 7H 2C 3D AS AH KC"), *opponents], rules=rules
        )


def test_knocker_melds_are_sorted_for_display():
    rng = random.Random(7)
    for _ in range(50):
        knocker, hands, rules = _random_case(rng)
        if min_deadwood(hands[knocker]) > rules.knock_limit:
            continue
        result = settle_showdown(knocker=knocker, hands=hands, rules=rules)
        assert result.knocker_melds == sort_melds(result.knocker_melds)
