"""The house bot's levels, heads-up First To Knock (R10): ``strong`` against ``easy``.

Run: .venv/bin/python tests/benchmarks/bench_bots.py [--games 2000] [--seed bots]
         [--openspiel 1000]

One First To Knock game is one hand (R10): the first to knock, or go Gin or Big Gin, wins; a
void hand (R7) is dealt again by the same dealer. Games come in pairs on the same deal: the
strong bot holds seat 0 in one and seat 1 in the other, and the dealer alternates from pair to
pair, so each level deals, and plays first, equally often on the same cards. Deals come from
``shuffled_deck`` of the seed ``{seed}-{pair}-{redeal}``: the run is reproducible.

Printed: the strong bot's win rate with its 95 % Wilson interval, and for each level the CPU
time of one decision (``time.process_time``: median, p99, max). A decision is what the server
does for the bot's move after it has the bot's ``player_view``: ``seat_memory`` over the
events its seat has seen (the strong level only) and ``choose_bot_action``.

``--points N``: N hands scored in points (R9, as Match Play and Money Play score them), the
strong bot knocking when ``_knock_now`` says (not at once): its mean points per hand
against easy (the hand's winner scores, the loser's points count negative).

``--rlcard N``: N more games, each level against RLCard's ``GinRummyNoviceRuleAgent`` policy
(its own meld code picks its discards) in our referee.

``--openspiel N``: N more games in OpenSpiel's own referee (``pyspiel``'s ``gin_rummy``, one
hand, knock card 10), each level against OpenSpiel's ``SimpleGinRummyBot``, scored as First
To Knock (the first to knock wins; OpenSpiel's wall, two cards left, is a void hand, dealt
again). docs/engine.md "Bot levels" lists where its rules differ from ours.
"""

from __future__ import annotations

import argparse
import math
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from games.engine import (
    BOT_EASY,
    BOT_STRONG,
    Action,
    RuleSet,
    apply,
    choose_bot_action,
    deal,
    event_view,
    player_view,
    seat_memory,
)

Z95 = 1.959963984540054


def wilson(wins: int, games: int) -> tuple[float, float]:
    """The 95 % Wilson score interval of a win rate."""
    if games == 0:
        return 0.0, 1.0
    rate = wins / games
    denominator = 1 + Z95**2 / games
    centre = (rate + Z95**2 / (2 * games)) / denominator
    half = Z95 * math.sqrt(rate * (1 - rate) / games + Z95**2 / (4 * games**2)) / denominator
    return centre - half, centre + half


@dataclass
class Clock:
    """CPU seconds of each decision of one level."""

    samples: list[float] = field(default_factory=list)

    def line(self, name: str) -> str:
        if not self.samples:
            return f"{name:>7}: no decision"
        ordered = sorted(self.samples)
        p99 = ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)]
        return (
            f"{name:>7}: {len(ordered):,} decisions, CPU per decision median "
            f"{statistics.median(ordered) * 1e3:.2f} ms, p99 {p99 * 1e3:.2f} ms, "
            f"max {ordered[-1] * 1e3:.2f} ms"
        )


def decide(
    level: str,
    view: Mapping[str, Any],
    *,
    upcard: str,
    events: list[dict[str, Any]],
    clock: Clock,
    first_to_knock: bool = True,
) -> dict[str, str | None]:
    """One decision as the server makes it (house_bot.bot_play), timed."""
    started = time.process_time()
    memory = None
    if level == BOT_STRONG:
        memory = seat_memory(seat=view["seat"], seats=2, upcard=upcard, events=events)
    move = choose_bot_action(view, level=level, memory=memory, first_to_knock=first_to_knock)
    clock.samples.append(time.process_time() - started)
    return move


Player = Callable[..., dict[str, Any]]  # (view, *, upcard, events) -> the move


def ftk_game(seed: str, *, dealer: int, players: tuple[Player, Player]) -> int:
    """One First To Knock game in our engine; returns the winning seat."""
    rules = RuleSet()
    for redeal in range(100):
        state = deal(seed=f"{seed}-{redeal}", dealer=dealer, rules=rules)
        upcard = str(state.upcard)
        seen: list[list[dict[str, Any]]] = [[], []]
        while not state.is_over:
            seat = state.to_act
            assert seat is not None
            move = players[seat](player_view(state, seat), upcard=upcard, events=seen[seat])
            state, events = apply(state, Action.from_dict(move, seat=seat))
            for event in events:
                for viewer in (0, 1):
                    seen[viewer].append(event_view(event, viewer))
        outcome = state.outcome
        assert outcome is not None
        if outcome.kind != "void":
            assert outcome.knocker is not None
            return outcome.knocker  # R10: the first out wins, even undercut
    raise RuntimeError(f"{seed}: 100 void hands in a row")


def duel(games: int, seed: str, ours: Player, other: Player) -> int:
    """``games`` games (in pairs on one deal, seats swapped); how many ``ours`` won."""
    wins = 0
    for game in range(games):
        pair, seat = divmod(game, 2)
        players = (ours, other) if seat == 0 else (other, ours)
        wins += ftk_game(f"{seed}-{pair}", dealer=pair % 2, players=players) == seat
    return wins


def level(name: str, clock: Clock, *, first_to_knock: bool = True) -> Player:
    return partial(decide, name, clock=clock, first_to_knock=first_to_knock)


def points_per_hand(hands: int, seed: str) -> float:
    """Strong against easy, hands scored in points (R9): strong's mean points per hand."""
    strong = level(BOT_STRONG, Clock(), first_to_knock=False)
    easy = level(BOT_EASY, Clock(), first_to_knock=False)
    total = 0
    for number in range(hands):
        pair, seat = divmod(number, 2)
        players = (strong, easy) if seat == 0 else (easy, strong)
        state = deal(seed=f"{seed}-points-{pair}", dealer=pair % 2, rules=RuleSet())
        upcard = str(state.upcard)
        seen: list[list[dict[str, Any]]] = [[], []]
        while not state.is_over:
            mover = state.to_act
            assert mover is not None
            view = player_view(state, mover)
            move = players[mover](view, upcard=upcard, events=seen[mover])
            state, events = apply(state, Action.from_dict(move, seat=mover))
            for event in events:
                for viewer in (0, 1):
                    seen[viewer].append(event_view(event, viewer))
        outcome = state.outcome
        assert outcome is not None
        if outcome.winner is not None:
            total += outcome.points if outcome.winner == seat else -outcome.points
    return total / hands


# --- RLCard's rule agent, on our referee -----------------------------------------------------
def rlcard_novice(seed: str) -> Player:
    """RLCard's ``GinRummyNoviceRuleAgent`` policy on our views: Gin, else a knock, when it
    can (any of them); otherwise its discard among RLCard's own best discards (its melding
    code picks them); every other choice (draw, upcard offer) at random. Seeded."""
    import numpy as np  # only this option needs RLCard (dev lock)
    from rlcard.games.gin_rummy.utils import utils as rl_utils
    from rlcard.games.gin_rummy.utils.action_event import DiscardAction
    from rlcard.models.gin_rummy_rule_models import GinRummyNoviceRuleAgent

    rng = random.Random(seed)

    def play(view: Mapping[str, Any], **_: Any) -> dict[str, Any]:
        offered = view["legal_actions"]
        knocks = [a for a in offered if a["kind"] in ("knock", "big_gin")]
        gins = [a for a in knocks if a["kind"] == "big_gin" or a.get("deadwood") == 0]
        legal = [{"kind": a["kind"], "card": a["card"]} for a in offered]
        if gins or knocks:
            chosen = rng.choice(gins or knocks)
            return {"kind": chosen["kind"], "card": chosen["card"]}
        discards = [a for a in legal if a["kind"] == "discard"]
        if not discards:
            return rng.choice(legal)
        hand = [rl_utils.card_from_text(text) for text in view["hand"]]
        best = GinRummyNoviceRuleAgent._get_best_discards(
            discard_action_events=[
                DiscardAction(card=rl_utils.card_from_text(a["card"])) for a in discards
            ],
            state={"obs": np.array([rl_utils.encode_cards(hand)])},
        )
        return {"kind": "discard", "card": str(rng.choice(best))}

    return play


# --- OpenSpiel's referee and its SimpleGinRummyBot -------------------------------------------
def openspiel_games(games: int, seed: str) -> None:
    """Each level against OpenSpiel's SimpleGinRummyBot in OpenSpiel's referee."""
    import pyspiel  # only this option needs OpenSpiel (dev lock)

    from tests.benchmarks.openspiel_table import play_hand  # needs pyspiel

    game = pyspiel.load_game("gin_rummy")
    for name in (BOT_STRONG, BOT_EASY):
        clock = Clock()
        started = time.perf_counter()
        wins = 0
        for number in range(games):
            pair, ours = divmod(number, 2)
            opponent = pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), 1 - ours)
            bot = level(name, clock)
            players = (bot, opponent) if ours == 0 else (opponent, bot)
            wins += play_hand(game, f"{seed}-os-{pair}", players=players) == ours
        what = f"OpenSpiel's referee, {name} vs its SimpleGinRummyBot"
        report(what, wins, games, time.perf_counter() - started)
        print(clock.line(name))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="even: games come in pairs")
    parser.add_argument("--seed", default="bots")
    parser.add_argument("--openspiel", type=int, default=0, metavar="N")
    parser.add_argument("--rlcard", type=int, default=0, metavar="N")
    parser.add_argument("--points", type=int, default=0, metavar="N")
    options = parser.parse_args()
    games = options.games + options.games % 2
    print(f"Python {platform.python_version()} on {platform.machine()}")
    started = time.perf_counter()
    clocks = {BOT_EASY: Clock(), BOT_STRONG: Clock()}
    wins = duel(
        games,
        options.seed,
        level(BOT_STRONG, clocks[BOT_STRONG]),
        level(BOT_EASY, clocks[BOT_EASY]),
    )
    report("First To Knock, strong vs easy", wins, games, time.perf_counter() - started)
    for name in (BOT_STRONG, BOT_EASY):
        print(clocks[name].line(name))
    if options.points:
        count = options.points + options.points % 2
        mean = points_per_hand(count, options.seed)
        print(
            f"Points (R9), strong vs easy: strong's mean {mean:+.2f} points a hand, {count} hands"
        )
    if options.rlcard:
        count = options.rlcard + options.rlcard % 2
        for name in (BOT_STRONG, BOT_EASY):
            started = time.perf_counter()
            novice = rlcard_novice(f"{options.seed}-rlcard-{name}")
            wins = duel(count, f"{options.seed}-rl", level(name, Clock()), novice)
            report(
                f"{name} vs RLCard's novice rule agent", wins, count, time.perf_counter() - started
            )
    if options.openspiel:
        openspiel_games(options.openspiel + options.openspiel % 2, options.seed)


def report(what: str, wins: int, games: int, seconds: float) -> None:
    low, high = wilson(wins, games)
    print(
        f"{what}: won {wins}/{games} = {wins / games:.3f} "
        f"(95 % Wilson CI {low:.3f}-{high:.3f}), {seconds:.0f} s"
    )


if __name__ == "__main__":
    main()
