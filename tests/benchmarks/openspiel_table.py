"""One heads-up hand in OpenSpiel's ``gin_rummy`` referee, scored as First To Knock (R10),
between one of our bot levels and a ``pyspiel`` bot (``bench_bots.py --openspiel``).

The deal is ours: the cards of ``deal(seed, dealer=1)`` go to OpenSpiel's chance nodes in
order (OpenSpiel deals ten cards to player 0, ten to player 1, then the upcard; player 0, the
non-dealer, is offered the upcard first, as in R4), and its stock draws take our stock in
order. Our bot sees what its seat may see, rebuilt from OpenSpiel's observation of that seat
(its hand, the upcard, the cards under it, the stock size) and the public moves of the hand,
as the ``event_view`` dicts the engine's ``seat_memory`` reads. The first player to knock
wins; OpenSpiel's wall (two cards left, nobody knocks) is a void hand, dealt again.
"""

from __future__ import annotations

from typing import Any

import pyspiel

from games.engine import FULL_DECK, RuleSet, deadwood, deal

UTILS = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)
# OpenSpiel numbers cards suit-major in suit order s, c, d, h: map through its card_int.
TO_OPENSPIEL = {
    str(card): UTILS.card_int(str(card)[0] + str(card)[1].lower()) for card in FULL_DECK
}
FROM_OPENSPIEL = {number: text for text, number in TO_OPENSPIEL.items()}
DRAW_UPCARD, DRAW_STOCK, PASS, KNOCK = 52, 53, 54, 55
WALL = 2  # OpenSpiel's wall: the stock size at which the hand ends unless someone knocks
KNOCK_LIMIT = 10

# The observation tensor (simple_gin_rummy_bot.cc reads it the same way).
_HANDS, _KNOCK_CARD, _UPCARD = 2, 2 + 52 + 52 + 2, 2 + 52 + 52 + 2 + 10
_PILE, _STOCK = _UPCARD + 52, _UPCARD + 104


def _seen(state: Any, player: int) -> tuple[list[str], str | None, list[str], int]:
    """``player``'s hand, the upcard, the cards under it and the stock size."""
    tensor = state.observation_tensor(player)
    hand_at = _HANDS + 52 * player
    hand = [FROM_OPENSPIEL[i] for i in range(52) if tensor[hand_at + i] == 1]
    upcard = next((FROM_OPENSPIEL[i] for i in range(52) if tensor[_UPCARD + i] == 1), None)
    pile = [FROM_OPENSPIEL[i] for i in range(52) if tensor[_PILE + i] == 1]
    stock = sum(1 for i in range(52) if tensor[_STOCK + i] == 1)
    return hand, upcard, pile, stock


def _legal(state: Any, hand: list[str], taken: str | None) -> list[dict[str, Any]]:
    """OpenSpiel's legal actions as our view lists them."""
    legal = state.legal_actions()
    if PASS in legal and DRAW_STOCK not in legal:  # the upcard offer
        return [{"kind": "take_upcard", "card": None}, {"kind": "pass", "card": None}]
    if DRAW_STOCK in legal:
        moves = [{"kind": "draw_stock", "card": None}]
        if DRAW_UPCARD in legal:
            moves.append({"kind": "draw_discard", "card": None})
        return moves
    cards = [FROM_OPENSPIEL[a] for a in legal if a < 52]
    moves = [{"kind": "discard", "card": card} for card in cards]
    if KNOCK in legal:  # OpenSpiel allows a knock: the cards that may be put down for it
        moves += [
            {"kind": "knock", "card": card}
            for card in hand
            if card != taken and deadwood([c for c in hand if c != card]) <= KNOCK_LIMIT
        ]
    return moves


def play_hand(game: Any, seed: str, *, players: tuple[Any, Any]) -> int:
    """Play hands from ``seed`` until one is not void; the winning player (0 or 1).
    ``players``: per OpenSpiel player, one of our bots (a callable of its view, the upcard
    and the events its seat has seen) or a ``pyspiel`` bot."""
    for redeal in range(100):
        winner = _one_hand(game, f"{seed}-{redeal}", players=players)
        if winner is not None:
            return winner
    raise RuntimeError(f"{seed}: 100 void hands in a row")


def _one_hand(game: Any, seed: str, *, players: tuple[Any, Any]) -> int | None:
    dealt = deal(seed=seed, dealer=1, rules=RuleSet())
    cards = [*dealt.hands[0], *dealt.hands[1], dealt.discard_pile[-1], *dealt.stock]
    feed = iter(TO_OPENSPIEL[str(card)] for card in cards)
    for player in players:
        if isinstance(player, pyspiel.Bot):
            player.restart()
    state = game.new_initial_state()
    first_upcard = str(dealt.discard_pile[-1])
    seen: tuple[list[dict[str, Any]], ...] = ([], [])  # each seat's view of the moves
    drawing: int | None = None  # who drew from the stock: the next chance node is the card
    taken: list[str | None] = [None, None]  # the card each took from the pile this turn (R5)
    while not state.is_terminal():
        if state.is_chance_node():
            number = next(feed)
            state.apply_action(number)
            if drawing is not None:
                for viewer in (0, 1):
                    shown = FROM_OPENSPIEL[number] if drawing == viewer else None
                    seen[viewer].append({"kind": "draw_stock", "seat": drawing, "card": shown})
                drawing = None
            continue
        player = state.current_player()
        hand, upcard, pile, stock = _seen(state, player)
        legal = state.legal_actions()
        offer = PASS in legal and DRAW_STOCK not in legal
        if stock <= WALL and DRAW_STOCK not in legal and len(hand) == 10:
            # The wall: knock if allowed, else the hand is over (void for First To Knock).
            if KNOCK in legal:
                return player
            state.apply_action(PASS)
            continue
        bot = players[player]
        if isinstance(bot, pyspiel.Bot):
            action = bot.step(state)
            if action == KNOCK:
                return player  # R10: the first to knock wins
        else:
            view = {
                "seat": player,
                "hand": hand,
                "discard_pile": [*pile, *([upcard] if upcard else [])],
                "stock_count": stock,
                "card_counts": [len(hand), 10] if player == 0 else [10, len(hand)],
                "taken_from_discard": taken[player],
                "dealer": 1,
                "rules": {"knock_limit": KNOCK_LIMIT},
                "legal_actions": _legal(state, hand, taken[player]),
            }
            move = bot(view, upcard=first_upcard, events=list(seen[player]))
            if move["kind"] == "knock":
                return player
            action = _ACTIONS.get(move["kind"], -1)
            if action < 0:
                action = TO_OPENSPIEL[move["card"]]
        if action == DRAW_UPCARD:
            taken[player] = upcard
            kind = "take_upcard" if offer else "draw_discard"
            _tell(seen, {"kind": kind, "seat": player, "card": upcard})
        elif action == PASS:
            _tell(seen, {"kind": "pass", "seat": player, "card": None})
        elif action == DRAW_STOCK:
            drawing = player
        elif action < 52:
            taken[player] = None
            _tell(seen, {"kind": "discard", "seat": player, "card": FROM_OPENSPIEL[action]})
        state.apply_action(action)
    return None


_ACTIONS = {"take_upcard": DRAW_UPCARD, "draw_discard": DRAW_UPCARD, "pass": PASS}
_ACTIONS["draw_stock"] = DRAW_STOCK


def _tell(seen: tuple[list[dict[str, Any]], ...], event: dict[str, Any]) -> None:
    """A public move: both seats see it."""
    for moves in seen:
        moves.append(dict(event))
