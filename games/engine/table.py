"""One entry point for every table size: heads-up (R1-R11) or three and four seats (R12).

``deal`` looks at ``rules.seats``; the other functions at the state they are given, so the
games layer calls the same names whatever the table. The heads-up functions in
:mod:`games.engine.hand`, :mod:`games.engine.views` and :mod:`games.engine.serialization` are
unchanged; the R12 ones live in :mod:`games.engine.multi_hand` and
:mod:`games.engine.multi_views`.
"""

from __future__ import annotations

from collections.abc import Iterable

from games.engine import hand, multi_hand, multi_views, serialization, views
from games.engine.errors import EngineError
from games.engine.hand import Action, Event, HandState
from games.engine.multi_hand import MultiHandState
from games.engine.rules import RuleSet

AnyHandState = HandState | MultiHandState
Step = tuple[AnyHandState, tuple[Event, ...]]


def deal(
    *, seed: str, dealer: int, rules: RuleSet | None = None, out: Iterable[int] = ()
) -> AnyHandState:
    """R3 (two seats) or R12 (``RuleSet(seats=3 or 4)``; ``out``: seats that already
    forfeited the match, dealt to as usual with their cards dead)."""
    if rules is not None and rules.is_multi:
        return multi_hand.deal(seed=seed, dealer=dealer, rules=rules, out=out)
    if tuple(out):
        raise EngineError("a heads-up hand has no forfeited seats: the match is over")
    return hand.deal(seed=seed, dealer=dealer, rules=rules)


def legal_actions(state: AnyHandState, seat: int) -> tuple[Action, ...]:
    if state.__class__ is MultiHandState:
        return multi_hand.legal_actions(state, seat)
    return hand.legal_actions(state, seat)


def apply(state: AnyHandState, action: Action) -> Step:
    if state.__class__ is MultiHandState:
        return multi_hand.apply(state, action)
    return hand.apply(state, action)


def forfeit(state: AnyHandState, seat: int) -> Step:
    """R12 "Leaving" mid-hand (three and four seats). A heads-up forfeit ends the match
    instead (R10, ``forfeit_result``), so a :class:`HandState` is refused."""
    if state.__class__ is not MultiHandState:
        raise EngineError("a heads-up forfeit ends the match (R10): use forfeit_result")
    return multi_hand.forfeit(state, seat)


def replay(
    *,
    seed: str,
    dealer: int,
    rules: RuleSet | None = None,
    actions: Iterable[Action | dict],
    out: Iterable[int] = (),
) -> AnyHandState:
    if rules is not None and rules.is_multi:
        return multi_hand.replay(seed=seed, dealer=dealer, rules=rules, actions=actions, out=out)
    if tuple(out):
        raise EngineError("a heads-up hand has no forfeited seats: the match is over")
    return hand.replay(seed=seed, dealer=dealer, rules=rules, actions=actions)


def player_view(state: AnyHandState, seat: int) -> dict:
    if state.__class__ is MultiHandState:
        return multi_views.multi_player_view(state, seat)
    return views.player_view(state, seat)


def watcher_view(state: AnyHandState) -> dict:
    if state.__class__ is MultiHandState:
        return multi_views.multi_watcher_view(state)
    return views.watcher_view(state)


def state_to_json(state: AnyHandState) -> dict:
    if state.__class__ is MultiHandState:
        return multi_views.multi_state_to_json(state)
    return serialization.state_to_json(state)


def state_from_json(data: dict) -> AnyHandState:
    rules = data.get("rules") if isinstance(data, dict) else None
    if isinstance(rules, dict) and rules.get("seats", 2) != 2:
        return multi_views.multi_state_from_json(data)
    return serialization.state_from_json(data)
