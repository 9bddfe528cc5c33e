"""The markers of harm's tests as pure functions (docs/player-protection.md "Markers of
harm"): facts and parameters in, findings out, no database; each rule's parameters checked;
a loss limit's history replayed as the wallet applies it."""

from __future__ import annotations

import importlib
import uuid
from datetime import UTC, date, datetime, timedelta

import pytest

from protection.harm import chasing_losses, deposits_rising, long_sessions, night_play
from protection.harm.facts import SessionSpan
from protection.harm.findings import DayWindow
from protection.harm.params import ParamsInvalid, params_merged
from protection.harm.rules import RULES
from wallet.selectors.harm import (
    BuyIn,
    LimitChange,
    PlayLine,
    limit_in_force,
    loss_limit_crossings,
)

DAY = date(2026, 11, 30)
START = datetime(2026, 11, 30, tzinfo=UTC)
END = START + timedelta(days=1)
ALICE, BOB = uuid.UUID(int=1), uuid.UUID(int=2)


def at(hours: float) -> datetime:
    """``hours`` after the day's start (negative: before it)."""
    return START + timedelta(hours=hours)


def defaults(rule):
    return rule.parse(params_merged(defaults=rule.defaults, current={}, given={}))


# --- The day ------------------------------------------------------------------------------------
def test_a_past_day_reads_up_to_its_end_and_today_up_to_now():
    late = DayWindow.of(DAY, now=END + timedelta(days=3))
    assert (late.start, late.end, late.as_of) == (START, END, END)
    today = DayWindow.of(DAY, now=at(10))
    assert today.as_of == at(10)


# --- Deposits rising ----------------------------------------------------------------------------
def _deposits(last, previous):
    return deposits_rising.Facts(
        since=END - timedelta(days=14),
        split=END - timedelta(days=7),
        until=END,
        last=last,
        previous=previous,
    )


def test_deposits_up_the_percentage_and_over_the_minimum_are_flagged():
    params = defaults(deposits_rising.RULE)
    facts = _deposits(
        last={(ALICE, "EUR"): 40_000, (BOB, "EUR"): 19_999},
        previous={(ALICE, "EUR"): 20_000, (BOB, "EUR"): 10_000},
    )
    (finding,) = deposits_rising.evaluate(facts, params)
    assert finding.player_id == ALICE  # bob is 1 cent short of doubling
    (rise,) = finding.evidence["currencies"]
    assert rise == {
        "currency": "EUR",
        "last_7_days": {"amount": "400.00", "currency": "EUR"},
        "previous_7_days": {"amount": "200.00", "currency": "EUR"},
        "increase_percent": 100,
        "minimum": {"amount": "100.00", "currency": "EUR"},
    }
    assert finding.evidence["threshold_percent"] == 100


def test_small_deposits_and_a_first_week_are_not_a_rise():
    params = defaults(deposits_rising.RULE)
    facts = _deposits(
        last={(ALICE, "EUR"): 9_999, (BOB, "EUR"): 500_000},
        previous={(ALICE, "EUR"): 1_000},  # bob deposited nothing the week before
    )
    assert deposits_rising.evaluate(facts, params) == []


def test_the_minimum_is_whole_units_of_each_currency_unless_one_is_named():
    params = deposits_rising.parse(
        {"increase_percent": 50, "min_units": 100, "min_by_currency": {"jpy": "15000"}}
    )
    assert params.minimum("EUR") == 10_000 and params.minimum("KWD") == 100_000
    assert params.minimum("JPY") == 15_000 and params.min_by_currency == {"JPY": "15000"}
    facts = _deposits(
        last={(ALICE, "JPY"): 14_000, (BOB, "JPY"): 15_000},
        previous={(ALICE, "JPY"): 1_000, (BOB, "JPY"): 10_000},
    )
    assert [f.player_id for f in deposits_rising.evaluate(facts, params)] == [BOB]


# --- Long sessions ------------------------------------------------------------------------------
def _span(player, start, end=None, pk=1):
    return SessionSpan(
        session_id=pk,
        player_id=player,
        started_at=start,
        ended_at=end,
        limit_reached="",
        limit_reached_at=None,
    )


def test_a_session_longer_than_the_hours_ended_or_open_is_flagged():
    params = defaults(long_sessions.RULE)
    facts = long_sessions.Facts(
        as_of=END,
        spans=[
            _span(ALICE, at(1), at(5) + timedelta(seconds=1), pk=1),  # 4 h 1 s
            _span(ALICE, at(6), at(8), pk=2),
            _span(BOB, at(8), at(12), pk=3),  # exactly 4 h: not longer
            _span(uuid.UUID(int=3), at(21), None, pk=4),  # open: 3 h by the day's end
        ],
    )
    (finding,) = long_sessions.evaluate(facts, params)
    assert finding.player_id == ALICE
    assert finding.evidence["session_id"] == 1 and finding.evidence["open"] is False
    assert finding.evidence["hours"] == 4.0 and finding.evidence["threshold_hours"] == 4


def test_an_open_session_counts_up_to_the_runs_as_of_never_later():
    params = long_sessions.parse({"hours": 2})
    spans = [_span(ALICE, at(-1), at(30), pk=7), _span(BOB, at(20), None, pk=8)]
    findings = long_sessions.evaluate(long_sessions.Facts(as_of=END, spans=spans), params)
    shown = {f.player_id: f.evidence for f in findings}
    assert shown[ALICE]["hours"] == 25.0 and shown[ALICE]["open"] is True
    assert shown[ALICE]["ended_at"] is None  # it ended after as_of: open as of then
    assert shown[BOB]["hours"] == 4.0


# --- Chasing losses -----------------------------------------------------------------------------
def _event(player, hours, kind):
    return chasing_losses.Event(player_id=player, at=at(hours), shown={"kind": kind})


def test_a_deposit_or_new_session_within_the_hours_after_a_limit_is_chasing():
    params = defaults(chasing_losses.RULE)
    facts = chasing_losses.Facts(
        limits=[_event(ALICE, -3, "session_limit"), _event(BOB, -25, "loss_limit")],
        moves=[
            _event(ALICE, 2, "deposit"),
            _event(ALICE, 4, "session_started"),
            _event(BOB, 2, "deposit"),  # 27 hours after bob's limit
        ],
    )
    (finding,) = chasing_losses.evaluate(facts, params)
    assert finding.player_id == ALICE
    assert finding.evidence["limit"] == {"kind": "session_limit"}
    assert finding.evidence["then"] == {"kind": "deposit"}
    assert finding.evidence["hours_after"] == 5.0
    assert finding.evidence["moves_after_a_limit"] == 2


def test_a_move_before_the_limit_or_another_players_limit_is_not_chasing():
    params = chasing_losses.parse({"hours": 48})
    facts = chasing_losses.Facts(
        limits=[_event(ALICE, 10, "loss_limit")],
        moves=[_event(ALICE, 9, "deposit"), _event(BOB, 11, "deposit")],
    )
    assert chasing_losses.evaluate(facts, params) == []


# --- Night play ---------------------------------------------------------------------------------
def _buy_ins(player, hours):
    return [BuyIn(player_id=player, at=at(h)) for h in hours]


def test_half_the_buy_ins_at_night_out_of_enough_is_flagged():
    params = defaults(night_play.RULE)
    facts = night_play.Facts(
        since=END - timedelta(days=7),
        until=END,
        buy_ins=_buy_ins(ALICE, [1, 2, 3, 4, 5.99, 7, 8, 9, 10, 23])  # 5 of 10 at night
        + _buy_ins(BOB, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])  # 06:00 is day: 5 of 10 at night
        + _buy_ins(uuid.UUID(int=3), [1, 2, 3, 4, 5, 1, 2, 3, 4]),  # 9 buy-ins: too few
    )
    (finding,) = [f for f in night_play.evaluate(facts, params) if f.player_id == ALICE]
    assert finding.evidence["buy_ins"] == 10 and finding.evidence["night_buy_ins"] == 5
    assert finding.evidence["night"] == "00:00-06:00 UTC"
    assert {f.player_id for f in night_play.evaluate(facts, params)} == {ALICE, BOB}
    strict = night_play.parse({**night_play.DEFAULTS, "share_percent": 51})
    assert night_play.evaluate(facts, strict) == []


def test_the_night_may_wrap_past_midnight():
    params = night_play.parse(
        {"share_percent": 100, "min_buy_ins": 2, "night_from_hour": 22, "night_to_hour": 2}
    )
    assert params.at_night(at(23)) and params.at_night(at(1.5)) and not params.at_night(at(2))
    assert params.night == "22:00-02:00 UTC"
    with pytest.raises(ParamsInvalid) as refused:
        night_play.parse({**night_play.DEFAULTS, "night_from_hour": 0, "night_to_hour": 24})
    assert refused.value.field == "params.night_to_hour"


# --- Parameters ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("code", "given", "field"),
    [
        ("long_sessions", {"hours": 0}, "params.hours"),
        ("long_sessions", {"hours": 4.5}, "params.hours"),
        ("long_sessions", {"hours": True}, "params.hours"),
        ("long_sessions", {"minutes": 30}, "params.minutes"),
        ("chasing_losses", {"hours": 169}, "params.hours"),
        ("deposits_rising", {"increase_percent": "100"}, "params.increase_percent"),
        ("deposits_rising", {"min_by_currency": {"EUR": "10.001"}}, "params.min_by_currency.EUR"),
        ("deposits_rising", {"min_by_currency": {"XYZ": "10"}}, "params.min_by_currency.XYZ"),
        ("deposits_rising", {"min_by_currency": {"EUR": 10}}, "params.min_by_currency.EUR"),
        (
            "deposits_rising",
            {"min_by_currency": {"EUR": "10000000000000.01"}},
            "params.min_by_currency.EUR",
        ),
        ("deposits_rising", {"min_by_currency": ["EUR"]}, "params.min_by_currency"),
        ("night_play", {"share_percent": 101}, "params.share_percent"),
    ],
)
def test_parameters_out_of_bounds_are_refused_by_name(code, given, field):
    rule = RULES[code]
    with pytest.raises(ParamsInvalid) as refused:
        rule.parse(params_merged(defaults=rule.defaults, current={}, given=given))
    assert refused.value.field == field


def test_the_seeding_migration_writes_the_documented_defaults():
    seeding = importlib.import_module("protection.migrations.0002_harm")
    assert {code: dict(rule.defaults) for code, rule in RULES.items()} == seeding.DEFAULTS


# --- The wallet's loss limits -------------------------------------------------------------------
def _change(hours, new, effective_hours=None):
    return LimitChange(
        created_at=at(hours),
        effective_at=at(hours if effective_hours is None else effective_hours),
        new_amount=new,
    )


def test_a_limits_history_is_replayed_as_the_wallet_applies_it():
    history = [
        _change(0, 1_000),  # a first limit: at once
        _change(1, 5_000, effective_hours=25),  # a raise: a day later
        _change(2, 4_000, effective_hours=26),  # another raise replaces the pending one
        _change(30, 500),  # a decrease: at once
    ]
    assert limit_in_force(history, at(-1)) is None
    assert limit_in_force(history, at(1.5)) == 1_000
    assert limit_in_force(history, at(25.5)) == 1_000  # the first raise never took effect
    assert limit_in_force(history, at(26)) == 4_000
    assert limit_in_force(history, at(31)) == 500
    cancelled = [_change(0, 1_000), _change(1, 5_000, effective_hours=25), _change(2, 800)]
    assert limit_in_force(cancelled, at(40)) == 800  # a decrease cancels the pending raise


def test_a_loss_limit_is_reached_by_the_posting_that_takes_the_loss_to_it():
    history = {"day": [_change(-48, 1_000)]}
    lines = [
        PlayLine(at=at(-30), amount=-1_000),  # the day before: reached then, not in the window
        PlayLine(at=at(1), amount=-600),
        PlayLine(at=at(2), amount=300),  # a win back: 300 lost
        PlayLine(at=at(3), amount=-700),  # 1,000 lost: reached
        PlayLine(at=at(4), amount=-100),  # past it already: not reached again
    ]
    found = loss_limit_crossings(
        player_id=ALICE, currency="EUR", lines=lines, history=history, since=START
    )
    assert [(row.at, row.period, row.limit, row.loss) for row in found] == [
        (at(3), "day", 1_000, 1_000)
    ]
