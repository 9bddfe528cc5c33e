"""R12 showdown: going out, laying off and penalty scoring with three or four players.

The knocker shows 7 cards (8 for Big Gin); every other seat still in the hand is an opponent
holding 7. Opponents reply in turn order from the knocker's left, each on its own: an
opponent lays off onto the knocker's melds as shown plus its own earlier lay-offs, never
onto another opponent's (R12). Scores are penalty points, "points against".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from games.engine.cards import Card, cards_to_mask, coerce_cards, mask_to_cards
from games.engine.errors import DuplicateCardError, InvalidHandError, KnockOverLimitError
from games.engine.going_out import (
    Layoff,
    best_knocker_melds,
    lay_off_reply,
    show_melds,
)
from games.engine.melds import Meld, arrangement_of_mask
from games.engine.records import Record
from games.engine.rules import THREE_PLAYERS, RuleSet
from games.engine.solver import min_deadwood_mask

ShowdownKind = Literal["knock", "gin", "big_gin", "undercut"]
R12_HAND_SIZE = THREE_PLAYERS.hand_size  # R12: seven cards each, with three or four players


@dataclass(frozen=True, slots=True)
class OpponentReply(Record):
    """One opponent's arrangement after an R12 showdown: own melds, lay-offs onto the
    knocker's melds (``Layoff.meld_index`` indexes ``ShowdownResult.knocker_melds``; listed in
    an order in which each is legal: 9 before 10 onto 6-7-8), and the deadwood left."""

    seat: int
    deadwood: int
    melds: tuple[Meld, ...]
    layoffs: tuple[Layoff, ...]
    deadwood_cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class ShowdownResult(Record):
    """The showdown of an R12 hand that ``knocker`` went out of.

    ``winner`` is the hand's winner: the knocker, or the undercutter. ``penalties`` and
    ``deadwood`` have one entry per seat (``deadwood`` is None for a seat out of the hand, and
    the knocker's is K); opponents' deadwood is after lay-offs (none against Gin or Big Gin).
    ``opponents`` are in turn order from the knocker's left.
    """

    kind: ShowdownKind
    knocker: int
    winner: int
    penalties: tuple[int, ...]
    deadwood: tuple[int | None, ...]
    knocker_melds: tuple[Meld, ...]
    knocker_deadwood_cards: tuple[Card, ...]
    opponents: tuple[OpponentReply, ...]

    def __post_init__(self) -> None:
        if len(self.penalties) != len(self.deadwood) or len(self.penalties) not in (3, 4):
            raise ValueError("a showdown has one penalty and one deadwood per seat (3-4 seats)")
        if any(type(value) is not int or value < 0 for value in self.penalties):
            raise ValueError("penalties are non-negative ints")

    @property
    def knocker_deadwood(self) -> int:
        return self.deadwood[self.knocker] or 0


def score_penalties(
    *,
    knocker: int,
    knocker_deadwood: int,
    opponent_deadwood: Sequence[tuple[int, int]],
    seats: int,
    rules: RuleSet,
) -> tuple[ShowdownKind, int, tuple[int, ...]]:
    """R12 penalty scoring of a knock (not Gin): ``(kind, winner, penalties per seat)``.

    ``opponent_deadwood``: ``(seat, D_i)`` in turn order from the knocker's left. Every
    ``D_i > K``: each opponent is charged ``D_i - K``. Otherwise the undercutter ``u`` is the
    first opponent (in that order) with the lowest ``D_i``; every other player ``j``, the
    knocker included, is charged ``max(0, D_j - D_u)`` and the knocker also the undercut bonus.
    """
    penalties = [0] * seats
    k = knocker_deadwood
    lowest_seat, lowest = None, None
    for seat, value in opponent_deadwood:
        if lowest is None or value < lowest:
            lowest_seat, lowest = seat, value
    if lowest is None or lowest_seat is None:
        raise InvalidHandError("a showdown needs at least one opponent (R12)")
    if lowest > k:
        for seat, value in opponent_deadwood:
            penalties[seat] = value - k
        return "knock", knocker, tuple(penalties)
    for seat, value in opponent_deadwood:
        if seat != lowest_seat:
            penalties[seat] = max(0, value - lowest)
    penalties[knocker] = max(0, k - lowest) + rules.undercut_bonus
    return "undercut", lowest_seat, tuple(penalties)


def turn_order_from(knocker: int, in_hand: Sequence[bool]) -> tuple[int, ...]:
    """R12: the other seats still in the hand, clockwise from the knocker's left."""
    seats = len(in_hand)
    return tuple(
        seat for seat in ((knocker + step) % seats for step in range(1, seats)) if in_hand[seat]
    )


def _held(masks: Sequence[int | None], seat: int) -> int:
    """The cards of ``seat``, a seat in the hand (the knocker or an opponent)."""
    mask = masks[seat]
    if mask is None:  # pragma: no cover - only seats in the hand are asked for
        raise InvalidHandError(f"seat {seat} is not in the hand")
    return mask


def _validate(
    knocker: int, hands: Sequence[str | Sequence[Card | str] | None], seats: int
) -> list[int | None]:
    if len(hands) != seats:
        raise InvalidHandError(f"one hand per seat: {seats} seats, got {len(hands)} hands")
    if type(knocker) is not int or not 0 <= knocker < seats or hands[knocker] is None:
        raise InvalidHandError(f"the knocker {knocker!r} is not a seat in the hand")
    masks: list[int | None] = []
    seen = 0
    for seat, cards in enumerate(hands):
        if cards is None:
            masks.append(None)
            continue
        parsed = coerce_cards(cards)
        mask = cards_to_mask(parsed)
        if mask & seen:
            raise DuplicateCardError(mask_to_cards(mask & seen)[0])
        seen |= mask
        if seat != knocker and len(parsed) != R12_HAND_SIZE:
            raise InvalidHandError(
                f"an opponent holds 7 cards (R12), seat {seat} has {len(parsed)}"
            )
        masks.append(mask)
    return masks


def settle_showdown(
    *,
    knocker: int,
    hands: Sequence[str | Sequence[Card | str] | None],
    rules: RuleSet,
) -> ShowdownResult:
    """Show, lay off and score an R12 hand that ``knocker`` goes out of.

    ``hands``: one entry per seat (``rules.seats`` of them); None for a seat that is out of
    the hand (forfeited, R12). The knocker's entry is the 7 cards shown after the knock card
    is put down, or all 8 for Big Gin; each opponent's is its 7 cards.
    """
    seats = rules.seats
    masks = _validate(knocker, hands, seats)
    order = turn_order_from(knocker, [mask is not None for mask in masks])
    if not order:
        raise InvalidHandError("a showdown needs at least one opponent (R12)")
    shown = _held(masks, knocker)
    count = shown.bit_count()
    if count == R12_HAND_SIZE + 1:
        melded = min_deadwood_mask(shown)
        if melded:
            raise InvalidHandError(
                f"Big Gin needs all 8 cards melded (R12); these leave {melded} deadwood"
            )
        return _settle_gin(knocker, masks, order, "big_gin", rules.big_gin_bonus)
    if count != R12_HAND_SIZE:
        raise InvalidHandError(f"the knocker shows 7 cards (8 for Big Gin, R12), got {count}")
    least = min_deadwood_mask(shown)
    if least > rules.knock_limit:
        raise KnockOverLimitError(deadwood=least, limit=rules.knock_limit)
    if least == 0:
        return _settle_gin(knocker, masks, order, "gin", rules.gin_bonus)
    melds = _choose_knocker_melds(knocker=knocker, masks=masks, order=order, rules=rules)
    return _show(knocker, masks, order, melds, rules)


def _choose_knocker_melds(
    *, knocker: int, masks: Sequence[int | None], order: Sequence[int], rules: RuleSet
) -> tuple[int, ...]:
    """R12 (R8 generalised): the knocker's melds, as sorted meld masks.

    Every split within the knock limit is scored against each opponent's best reply (found
    on its own: lay-offs never help another opponent). The best split maximises the sum of
    the opponents' penalties minus the knocker's; ties go to the lower knocker deadwood, then
    to the split whose melds, as the ascending tuple of their 52-bit masks, compare smallest.
    """

    def penalties_gained(knocker_deadwood: int, replies: Sequence[int]) -> int:
        _, _, penalties = score_penalties(
            knocker=knocker,
            knocker_deadwood=knocker_deadwood,
            opponent_deadwood=list(zip(order, replies, strict=True)),
            seats=len(masks),
            rules=rules,
        )
        return sum(penalties[seat] for seat in order) - penalties[knocker]

    return best_knocker_melds(
        _held(masks, knocker),
        [_held(masks, seat) for seat in order],
        limit=rules.knock_limit,
        gain=penalties_gained,
        ties_to_smallest=True,
    )


def _opponent_reply(seat: int, opponent: int, ordered: tuple[int, ...]) -> OpponentReply:
    """R12: one opponent's own melds and lay-offs onto ``ordered`` (the knocker's melds in
    display order), chosen together for minimum deadwood (chains within this opponent): the
    heads-up defender's reply (R8), made by each opponent on its own."""
    deadwood, melds, layoffs, free = lay_off_reply(opponent, ordered)
    return OpponentReply(
        seat=seat,
        deadwood=deadwood,
        melds=melds,
        layoffs=layoffs,
        deadwood_cards=mask_to_cards(free),
    )


def _show(
    knocker: int,
    masks: Sequence[int | None],
    order: tuple[int, ...],
    melds: tuple[int, ...],
    rules: RuleSet,
) -> ShowdownResult:
    knocker_melds, ordered, free, knocker_deadwood = show_melds(_held(masks, knocker), melds)
    replies = tuple(_opponent_reply(seat, _held(masks, seat), ordered) for seat in order)
    kind, winner, penalties = score_penalties(
        knocker=knocker,
        knocker_deadwood=knocker_deadwood,
        opponent_deadwood=[(reply.seat, reply.deadwood) for reply in replies],
        seats=len(masks),
        rules=rules,
    )
    return ShowdownResult(
        kind=kind,
        knocker=knocker,
        winner=winner,
        penalties=penalties,
        deadwood=_deadwood_per_seat(len(masks), knocker, knocker_deadwood, replies),
        knocker_melds=knocker_melds,
        knocker_deadwood_cards=mask_to_cards(free),
        opponents=replies,
    )


def _deadwood_per_seat(
    seats: int, knocker: int, knocker_deadwood: int, replies: tuple[OpponentReply, ...]
) -> tuple[int | None, ...]:
    deadwood: list[int | None] = [None] * seats
    deadwood[knocker] = knocker_deadwood
    for reply in replies:
        deadwood[reply.seat] = reply.deadwood
    return tuple(deadwood)


def _settle_gin(
    knocker: int,
    masks: Sequence[int | None],
    order: tuple[int, ...],
    kind: ShowdownKind,
    bonus: int,
) -> ShowdownResult:
    """R12 Gin / Big Gin: each opponent is charged ``D_i + bonus``, no lay-offs."""
    shown = arrangement_of_mask(_held(masks, knocker))
    replies: list[OpponentReply] = []
    penalties = [0] * len(masks)
    for seat in order:
        arrangement = arrangement_of_mask(_held(masks, seat))
        penalties[seat] = arrangement.deadwood + bonus
        replies.append(
            OpponentReply(
                seat=seat,
                deadwood=arrangement.deadwood,
                melds=arrangement.melds,
                layoffs=(),
                deadwood_cards=arrangement.deadwood_cards,
            )
        )
    return ShowdownResult(
        kind=kind,
        knocker=knocker,
        winner=knocker,
        penalties=tuple(penalties),
        deadwood=_deadwood_per_seat(len(masks), knocker, 0, tuple(replies)),
        knocker_melds=shown.melds,
        knocker_deadwood_cards=(),
        opponents=tuple(replies),
    )
