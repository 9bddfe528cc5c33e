"""The markers of harm's daily job on PostgreSQL (docs/player-protection.md "Markers of
harm"): each rule flags the player it should and not a control player beside them, from
ledger facts made through the wallet's services and play sessions as rows; a second run
for the day flags nothing new and sends nothing; each flag is audited and sent once as
``player.flagged`` to the player's operator; the beat runs it daily for the day before."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from itertools import count

import pytest
from celery.schedules import crontab
from django.conf import settings

from gin_platform.models import AuditEvent, OperatorEvent, WebhookDelivery
from protection import tasks
from protection.models import EndReason, HarmFlag, PlaySession
from protection.services import harm as services
from tests.factories import SYSTEM, OperatorFactory, PlayerFactory
from tests.helpers import freeze_now
from tests.wallet.factories import fund
from wallet import services as wallet_services

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

DAY = date(2026, 11, 30)
START = datetime(2026, 11, 30, tzinfo=UTC)
RUN_AT = START + timedelta(days=1, minutes=15)  # the beat's 00:15 UTC of the next day
_games = count(1)


def at(hours: float) -> datetime:
    return START + timedelta(hours=hours)


@pytest.fixture
def clock(monkeypatch):
    return freeze_now(monkeypatch, at(-20 * 24))


@pytest.fixture
def casino():
    return OperatorFactory(webhook_url="https://hooks.example.com/gin")


def deposit(clock, player, amount: int, hours: float) -> None:
    clock.set(at(hours))
    fund(player, amount)


def buy_in(clock, player, amount: int, hours: float) -> None:
    clock.set(at(hours))
    number = next(_games)
    wallet_services.table_buy_in(
        player=player,
        game_ref=f"harm-game-{number}",
        amount=amount,
        currency=player.wallet_currency,
        reference=f"harm-buy-in-{number}",
        actor=SYSTEM,
    )


def session(player, start: float, end: float | None = None, **fields) -> PlaySession:
    return PlaySession.objects.create(
        player=player,
        operator=player.operator,
        jurisdiction=player.operator.jurisdiction,
        currency=player.wallet_currency,
        started_at=at(start),
        last_active_at=at(end if end is not None else start),
        ended_at=None if end is None else at(end),
        state=PlaySession.State.OPEN if end is None else PlaySession.State.ENDED,
        **fields,
    )


def run(clock) -> dict[str, int]:
    clock.set(RUN_AT)
    return services.harm_markers_flag()


def flagged(rule: str) -> set:
    return set(HarmFlag.objects.filter(rule=rule, day=DAY).values_list("player_id", flat=True))


def test_deposits_rising_week_on_week(clock, casino):
    alice, bob, carol = (PlayerFactory(operator=casino) for _ in range(3))
    for player, last in ((alice, 20_000), (bob, 14_000)):
        deposit(clock, player, 10_000, -10 * 24)  # the week before
        deposit(clock, player, 5_000, -3 * 24)
        deposit(clock, player, last - 5_000, 9)  # on the day
    deposit(clock, carol, 90_000, 10)  # a first week of deposits: no rise
    deposit(clock, PlayerFactory(operator=casino), 90_000, -2 * 24)  # nothing on the day

    assert run(clock)["deposits_rising"] == 1
    assert flagged("deposits_rising") == {alice.pk}  # bob is up 40%
    evidence = HarmFlag.objects.get(player=alice).evidence
    assert evidence["currencies"][0]["last_7_days"] == {"amount": "200.00", "currency": "EUR"}
    assert evidence["currencies"][0]["previous_7_days"] == {"amount": "100.00", "currency": "EUR"}
    assert evidence["previous_7_days"]["to"] == (START - timedelta(days=6)).isoformat()


def test_long_sessions_ended_or_open(clock, casino):
    alice, bob, carol = (PlayerFactory(operator=casino) for _ in range(3))
    session(alice, 2, 7)  # 5 hours on the day
    session(bob, 10, 13.5)  # 3.5 hours
    session(carol, 21)  # open: 3 hours by the end of the day...
    session(PlayerFactory(operator=casino), -30, -20)  # a long one, the day before

    run(clock)
    assert flagged("long_sessions") == {alice.pk}  # ...though 3.25 when the job runs
    evidence = HarmFlag.objects.get(player=alice).evidence
    assert evidence["hours"] == 5.0 and evidence["open"] is False


def test_an_open_session_counts_from_its_start_before_the_day(clock, casino):
    dave = PlayerFactory(operator=casino)
    session(dave, -2)  # still open: 26 hours by the end of the day
    run(clock)
    assert flagged("long_sessions") == {dave.pk}
    assert HarmFlag.objects.get(player=dave).evidence["open"] is True


def test_a_new_session_soon_after_a_session_limit_is_chasing(clock, casino):
    alice, bob = PlayerFactory(operator=casino), PlayerFactory(operator=casino)
    for player, reached in ((alice, -4), (bob, -30)):
        session(
            player,
            reached - 2,
            reached,
            limit_reached="loss",
            limit_reached_at=at(reached),
            end_reason=EndReason.LOSS_LIMIT,
        )
        session(player, 3, 4)  # a new session on the day: 7 and 33 hours later

    run(clock)
    assert flagged("chasing_losses") == {alice.pk}
    evidence = HarmFlag.objects.get(player=alice).evidence
    assert evidence["limit"]["kind"] == "session_limit" and evidence["limit"]["limit"] == "loss"
    assert evidence["then"]["kind"] == "session_started" and evidence["hours_after"] == 7.0


def test_a_deposit_after_reaching_a_loss_limit_is_chasing(clock, casino):
    alice, bob = PlayerFactory(operator=casino), PlayerFactory(operator=casino)
    for player, limit in ((alice, 1_000), (bob, 5_000)):
        deposit(clock, player, 10_000, -5 * 24)
        clock.set(at(-4 * 24))
        wallet_services.player_limit_set(
            player=player, kind="loss", period="day", amount=limit, actor=SYSTEM
        )
        buy_in(clock, player, 600, 8)
        buy_in(clock, player, 400, 9)  # alice has lost her day's limit
        deposit(clock, player, 2_000, 11)

    run(clock)
    assert flagged("chasing_losses") == {alice.pk}
    evidence = HarmFlag.objects.get(player=alice).evidence
    assert evidence["limit"] == {
        "kind": "loss_limit",
        "period": "day",
        "limit": {"amount": "10.00", "currency": "EUR"},
        "loss": {"amount": "10.00", "currency": "EUR"},
        "at": at(9).isoformat(),
    }
    assert evidence["then"]["kind"] == "deposit" and evidence["hours_after"] == 2.0


def test_night_play(clock, casino):
    alice, bob = PlayerFactory(operator=casino), PlayerFactory(operator=casino)
    week = {  # the hours of their buy-ins, the last three on the day
        alice: [-142, -118, -94, -70, -34, -10, 3, 14, 15, 16],  # 02:00 four times, 03:00
        bob: [-130, -106, -82, -58, -34, -22, 3, 14, 15, 16],  # 02:00 once, 03:00
    }
    for player, hours in week.items():
        deposit(clock, player, 100_000, -10 * 24)
        for hour in hours:
            buy_in(clock, player, 100, hour)

    run(clock)
    assert flagged("night_play") == {alice.pk}  # 5 of 10 at night; bob 2 of 10
    evidence = HarmFlag.objects.get(player=alice).evidence
    assert (evidence["buy_ins"], evidence["night_buy_ins"]) == (10, 5)
    assert evidence["night_share_percent"] == 50.0


def test_a_second_run_flags_nothing_new_and_sends_nothing_again(clock, casino):
    alice = PlayerFactory(operator=casino)
    session(alice, 1, 9)
    first = run(clock)
    assert first["long_sessions"] == 1

    assert run(clock) == dict.fromkeys(first, 0)
    assert tasks.harm_markers_flag_task.delay(DAY.isoformat()).get() == dict.fromkeys(first, 0)
    (flag,) = HarmFlag.objects.all()
    (event,) = OperatorEvent.objects.filter(type="player.flagged")
    assert event.operator_id == casino.pk
    assert event.data == {
        "player_id": str(alice.pk),
        "external_ref": alice.external_ref,
        "flag_id": flag.pk,
        "rule": "long_sessions",
        "day": "2026-11-30",
        "evidence": flag.evidence,
        "flagged_at": flag.created_at.isoformat(),
    }
    assert WebhookDelivery.objects.filter(event_type="player.flagged").count() == 1
    (audit,) = AuditEvent.objects.filter(action="protection.player_flagged")
    assert audit.operator_id == casino.pk and audit.object_id == str(flag.pk)
    assert audit.data == {"player_id": str(alice.pk), "rule": "long_sessions", "day": "2026-11-30"}


def test_the_flag_goes_to_the_players_own_operator_only(clock, casino):
    other = OperatorFactory(webhook_url="https://hooks.example.org/other")
    session(PlayerFactory(operator=other), 1, 9)
    run(clock)
    assert set(OperatorEvent.objects.values_list("operator_id", flat=True)) == {other.pk}


def test_a_disabled_rule_flags_nobody(clock, casino, django_user_model):
    session(PlayerFactory(operator=casino), 1, 9)
    admin = django_user_model.objects.create_user("harm-admin", is_staff=True)
    services.harm_rule_update(code="long_sessions", enabled=False, user=admin)
    assert "long_sessions" not in run(clock)
    assert not HarmFlag.objects.exists()


def test_changed_parameters_apply_at_the_next_run(clock, casino, django_user_model):
    alice = PlayerFactory(operator=casino)
    session(alice, 1, 4)  # 3 hours
    run(clock)
    assert not HarmFlag.objects.exists()
    admin = django_user_model.objects.create_user("harm-admin", is_staff=True)
    services.harm_rule_update(code="long_sessions", params={"hours": 2}, user=admin)
    assert run(clock)["long_sessions"] == 1


def test_a_day_is_looked_at_once_it_is_over_by_default(clock):
    clock.set(RUN_AT)
    assert services.harm_day_default() == DAY
    entry = settings.CELERY_BEAT_SCHEDULE["protection-harm-markers"]
    assert entry["task"] == tasks.harm_markers_flag_task.name
    assert entry["schedule"] == crontab(hour=0, minute=15)
