"""Player limits (cooling-off, history), self-exclusion, and the UTC windows."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone

from gin_platform.models import AuditEvent
from tests.factories import PlayerFactory
from tests.helpers import freeze_now
from tests.wallet.factories import SYSTEM, fund, ref
from wallet import services
from wallet.models import PlayerLimitChange, SelfExclusion
from wallet.problems import LimitExceededProblem, LimitInvalidProblem, SelfExcludedProblem
from wallet.selectors import limits
from wallet.windows import window

pytestmark = pytest.mark.django_db
T0 = datetime(2026, 3, 4, 12, 0, tzinfo=UTC)  # a Wednesday


@pytest.fixture
def clock(monkeypatch):
    return freeze_now(monkeypatch, T0)


def limits_url(player) -> str:
    return f"/api/v1/players/{player.pk}/limits"


def set_limit(player, amount, kind="deposit", period="day"):
    return services.player_limit_set(
        player=player, kind=kind, period=period, amount=amount, actor=SYSTEM
    )


def deposit(player, amount):
    return services.deposit(
        player=player, amount=amount, currency="EUR", reference=ref(), actor=SYSTEM
    )


# --- Windows ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("period", "moment", "start", "end"),
    [
        ("day", T0, datetime(2026, 3, 4, tzinfo=UTC), datetime(2026, 3, 5, tzinfo=UTC)),
        ("week", T0, datetime(2026, 3, 2, tzinfo=UTC), datetime(2026, 3, 9, tzinfo=UTC)),
        ("month", T0, datetime(2026, 3, 1, tzinfo=UTC), datetime(2026, 4, 1, tzinfo=UTC)),
        (
            "month",
            datetime(2026, 12, 31, 23, 59, tzinfo=UTC),
            datetime(2026, 12, 1, tzinfo=UTC),
            datetime(2027, 1, 1, tzinfo=UTC),
        ),
        (
            "week",  # ISO week 1 of 2027 starts on Monday 2026-12-28
            datetime(2027, 1, 1, tzinfo=UTC),
            datetime(2026, 12, 28, tzinfo=UTC),
            datetime(2027, 1, 4, tzinfo=UTC),
        ),
    ],
)
def test_windows_are_half_open_utc_calendar_periods(period, moment, start, end):
    current = window(period, moment)
    assert (current.start, current.end) == (start, end)
    assert current.contains(start) and not current.contains(end)


def test_windows_use_utc_whatever_the_offset():

    late_in_tokyo = datetime(2026, 3, 5, 1, 0, tzinfo=ZoneInfo("Asia/Tokyo"))  # 16:00 UTC 4th
    assert window("day", late_in_tokyo).start == datetime(2026, 3, 4, tzinfo=UTC)
    with pytest.raises(ValueError, match="aware"):
        window("day", datetime(2026, 3, 4))
    with pytest.raises(ValueError, match="unknown period"):
        window("year", T0)


# --- Deposit limit: decrease now, increase after 24 hours --------------------------------
def test_a_first_limit_and_a_decrease_apply_at_once(player, clock):
    set_limit(player, 5000)
    deposit(player, 4000)
    set_limit(player, 4500)
    with pytest.raises(LimitExceededProblem) as over:
        deposit(player, 501)
    assert over.value.extensions["limit"] == "deposit_day"
    assert over.value.extensions["value"] == {"amount": "45.00", "currency": "EUR"}
    assert over.value.extensions["remaining"] == {"amount": "5.00", "currency": "EUR"}
    deposit(player, 500)  # exactly at the limit


def test_an_increase_waits_24_hours(player, clock):
    set_limit(player, 1000, period="week")
    deposit(player, 1000)
    limit = set_limit(player, 3000, period="week")
    assert limit.amount == 1000 and limit.pending_amount == 3000
    assert limit.pending_effective_at == T0 + timedelta(hours=24)
    clock.advance(hours=23, minutes=59, seconds=59)
    with pytest.raises(LimitExceededProblem):
        deposit(player, 1)
    clock.advance(seconds=1)
    deposit(player, 2000)
    with pytest.raises(LimitExceededProblem):
        deposit(player, 1)


def test_removing_a_limit_is_an_increase(player, clock):
    set_limit(player, 1000)
    set_limit(player, None)
    with pytest.raises(LimitExceededProblem):
        deposit(player, 1001)
    clock.advance(hours=24)
    deposit(player, 100_000)


def test_a_decrease_cancels_a_pending_increase(player, clock):
    set_limit(player, 1000)
    set_limit(player, 5000)
    limit = set_limit(player, 800)
    assert (limit.amount, limit.pending_amount, limit.pending_effective_at) == (800, None, None)
    clock.advance(days=2)
    with pytest.raises(LimitExceededProblem):
        deposit(player, 801)


def test_every_change_is_kept_as_history(player, clock):
    set_limit(player, 1000)
    clock.advance(hours=1)
    set_limit(player, 2000)
    history = list(PlayerLimitChange.objects.filter(player=player).order_by("created_at"))
    assert [(h.old_amount, h.new_amount) for h in history] == [(None, 1000), (1000, 2000)]
    assert history[0].effective_at == T0
    assert history[1].created_at == T0 + timedelta(hours=1)
    assert history[1].effective_at == T0 + timedelta(hours=25)
    assert {(h.actor_type, h.actor_id) for h in history} == {("system", "tests")}
    assert AuditEvent.objects.filter(action="player_limit.changed").count() == 2


def test_a_limit_applies_to_the_wallet_currency_only(player):
    with pytest.raises(LimitInvalidProblem):
        services.player_limit_set(player=player, kind="bet", period="day", amount=1, actor=SYSTEM)
    with pytest.raises(LimitInvalidProblem):
        services.player_limit_set(
            player=player, kind="deposit", period="year", amount=1, actor=SYSTEM
        )


# --- Limits over the API ------------------------------------------------------------------
def test_limits_api_read_and_change(operator_client, player, idem):
    fund(player, 700)
    listing = operator_client.get(limits_url(player)).json()
    assert len(listing) == 6
    day = next(x for x in listing if (x["kind"], x["period"]) == ("deposit", "day"))
    assert day["amount"] is None and day["used"] == "7.00" and day["remaining"] is None
    changed = operator_client.post(
        limits_url(player),
        {"kind": "deposit", "period": "day", "amount": "10.00"},
        format="json",
        **idem(),
    )
    assert changed.status_code == 200, changed.content
    body = changed.json()
    assert body["amount"] == "10.00" and body["remaining"] == "3.00"
    assert body["window_start"].startswith(timezone.now().date().isoformat())
    raised = operator_client.post(
        limits_url(player),
        {"kind": "deposit", "period": "day", "amount": "50.00"},
        format="json",
        **idem(),
    ).json()
    assert raised["amount"] == "10.00" and raised["pending_amount"] == "50.00"
    assert raised["pending_effective_at"]
    removal = operator_client.post(
        limits_url(player),
        {"kind": "deposit", "period": "day", "amount": None},
        format="json",
        **idem(),
    ).json()
    assert removal["pending_removal"] is True and removal["amount"] == "10.00"
    history = operator_client.get(limits_url(player) + "/history").json()["results"]
    assert [(h["old_amount"], h["new_amount"]) for h in history] == [
        ("10.00", None),
        ("10.00", "50.00"),
        (None, "10.00"),
    ]


@pytest.mark.parametrize(
    ("body", "status", "slug"),
    [
        ({"kind": "deposit", "period": "day", "amount": "-1.00"}, 422, "amount-not-positive"),
        ({"kind": "deposit", "period": "day", "amount": "1.001"}, 422, "amount-too-precise"),
        ({"kind": "deposit", "period": "day", "amount": 10.5}, 422, "amount-invalid"),
        (
            {"kind": "deposit", "period": "day", "amount": "1.00", "currency": "USD"},
            422,
            "currency-mismatch",
        ),
        ({"kind": "wager", "period": "day", "amount": "1.00"}, 400, "validation-error"),
        ({"kind": "loss", "period": "decade", "amount": "1.00"}, 400, "validation-error"),
    ],
)
def test_limits_api_bad_input(operator_client, player, idem, body, status, slug):
    response = operator_client.post(limits_url(player), body, format="json", **idem())
    assert response.status_code == status, response.content
    assert response.json()["type"] == f"/problems/{slug}"
    assert not PlayerLimitChange.objects.exists()


def test_a_zero_limit_is_allowed(operator_client, player, idem):
    response = operator_client.post(
        limits_url(player),
        {"kind": "deposit", "period": "month", "amount": "0"},
        format="json",
        **idem(),
    )
    assert response.status_code == 200 and response.json()["amount"] == "0.00"
    with pytest.raises(LimitExceededProblem):
        deposit(player, 1)


def test_loss_limits_show_net_losses(operator_client, player, opponent):
    fund(player, 5000)
    services.table_buy_in(
        player=player, game_ref="m:1", amount=1200, currency="EUR", reference=ref(), actor=SYSTEM
    )
    services.player_limit_set(player=player, kind="loss", period="day", amount=2000, actor=SYSTEM)
    listing = operator_client.get(limits_url(player)).json()
    day = next(x for x in listing if (x["kind"], x["period"]) == ("loss", "day"))
    assert day["used"] == "12.00" and day["remaining"] == "8.00"


# --- Self-exclusion -------------------------------------------------------------------------
def test_self_exclusion_blocks_deposits_and_tables_for_the_period(player, clock):
    fund(player, 5000)
    services.self_exclusion_create(player=player, days=1, reason="break", actor=SYSTEM)
    assert limits.self_excluded_until(player=player) == T0 + timedelta(days=1)
    with pytest.raises(SelfExcludedProblem):
        deposit(player, 100)
    with pytest.raises(SelfExcludedProblem):
        services.table_buy_in(
            player=player, game_ref="m:1", amount=100, currency="EUR", reference=ref(), actor=SYSTEM
        )
    services.withdraw(player=player, amount=100, currency="EUR", reference=ref(), actor=SYSTEM)
    clock.advance(days=1)
    deposit(player, 100)


def test_self_exclusion_cannot_be_shortened(player, clock):
    services.self_exclusion_create(player=player, days=30, actor=SYSTEM)
    services.self_exclusion_create(player=player, days=1, actor=SYSTEM)
    clock.advance(days=2)
    with pytest.raises(SelfExcludedProblem) as blocked:
        deposit(player, 100)
    assert blocked.value.extensions["until"] == (T0 + timedelta(days=30)).isoformat()


def test_self_exclusion_api(operator_client, player, idem):
    url = f"/api/v1/players/{player.pk}/self-exclusion"
    assert operator_client.get(url).json() == {
        "self_excluded": False,
        "until": None,
        "minimum_days": 1,  # no jurisdiction profile
        "maximum_days": 3650,
        "exclusions": [],
    }
    created = operator_client.post(url, {"days": 7, "reason": "asked"}, format="json", **idem())
    assert created.status_code == 201, created.content
    status = operator_client.get(url).json()
    assert status["self_excluded"] is True
    assert status["until"] == created.json()["ends_at"]
    assert [e["reason"] for e in status["exclusions"]] == ["asked"]
    wallet = operator_client.get(f"/api/v1/players/{player.pk}/wallet").json()
    assert wallet["self_excluded_until"] == created.json()["ends_at"]


@pytest.mark.parametrize("days", [0, -1, 3651])
def test_self_exclusion_period_is_bounded(operator_client, player, idem, days):
    response = operator_client.post(
        f"/api/v1/players/{player.pk}/self-exclusion", {"days": days}, format="json", **idem()
    )
    assert response.status_code == 422
    assert response.json()["type"] == "/problems/self-exclusion-period-invalid"
    assert not SelfExclusion.objects.exists()


def test_another_operators_player_limits_are_404(operator_client, idem):
    stranger = PlayerFactory()
    assert operator_client.get(limits_url(stranger)).status_code == 404
    assert (
        operator_client.post(
            f"/api/v1/players/{stranger.pk}/self-exclusion", {"days": 1}, format="json", **idem()
        ).status_code
        == 404
    )
    assert not SelfExclusion.objects.exists()
