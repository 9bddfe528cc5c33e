"""The back office in a browser: a staff user logs into the admin (password, and the TOTP
code the admin asks of the roles that move money, computed here with django_otp.oath.totp
from the device the test enrols), opens a player page and the daily report's chart.
Screenshots go to var/test-artifacts/browser/ like the table page's."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from django.apps import apps
from django_otp.oath import totp

from tests.browser.pages import TIMEOUT_MS, screenshot

# The server commits for real: flushed after each test on PostgreSQL (conftest.py).
pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "pw-backoffice-12345"
# Run in the server's database (``manage.py shell -c``, so it works on SQLite too): a
# superuser (with a TOTP device when django-otp is installed), an operator whose player has
# a settled game and a game being played.
BUILD = """
import json
from django.apps import apps
from django.contrib.auth import get_user_model
from games.models import Hand
from settlement import services
from tests.factories import OperatorFactory, PlayerFactory
from tests.games.factories import RoomFactory, TableFactory
from tests.settlement.helpers import play_out, seat_two

user = get_user_model().objects.create_superuser("backoffice", password=%(password)r)
key = ""
if apps.is_installed("django_otp"):
    from django_otp.plugins.otp_totp.models import TOTPDevice
    key = TOTPDevice.objects.create(user=user, name="browser", confirmed=True).key
operator = OperatorFactory()
alice, bob = PlayerFactory(operator=operator), PlayerFactory(operator=operator)
room = RoomFactory(operator=operator, ftk=True, stake=1234, fee_bps=250)
finished = play_out(seat_two(TableFactory(room=room), players=[alice, bob]))
services.game_settle(match_id=finished.pk)
running = seat_two(TableFactory(room=room), players=[alice, bob])
hand = Hand.objects.get(match=running, status=Hand.Status.IN_PROGRESS)
print(json.dumps({"player": str(alice.pk), "ref": alice.external_ref, "slug": operator.slug,
                  "key": key, "running_hand": hand.pk}))
"""


def totp_code(key_hex: str) -> str:
    return f"{totp(bytes.fromhex(key_hex)):06d}"


def test_staff_log_in_and_open_a_player_page_and_the_report_chart(play_server, contexts):
    world = json.loads(
        play_server.manage("shell", "-c", BUILD % {"password": PASSWORD}).strip().splitlines()[-1]
    )
    page = contexts().new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(f"{play_server.url}/admin/login/?next=/admin/")
    page.fill("input[name=username]", "backoffice")
    page.fill("input[name=password]", PASSWORD)
    if apps.is_installed("django_otp"):
        assert world["key"], "django-otp is installed: the user has a TOTP device"
        page.fill("input[name=otp_token]", totp_code(world["key"]))
    screenshot(page, "backoffice-login")
    page.locator("input[type=submit]").click()
    page.locator("#logout-form").wait_for()  # logged in: the admin index

    page.goto(f"{play_server.url}/admin/platform/player/{world['player']}/page/")
    page.locator("#player-page").wait_for()
    for heading in ("Balances", "Recent ledger transactions", "Matches and hand histories"):
        page.get_by_role("heading", name=heading).wait_for()
    assert world["ref"] in page.locator("#player-facts").inner_text()
    running = page.locator(f'.hand[data-hand="{world["running_hand"]}"]')
    assert "cards hidden while the hand is played" in running.inner_text()
    assert running.locator(".cards").count() == 0
    assert page.locator("#player-matches .cards").count() >= 2  # the finished hands' cards
    assert page.locator("#player-transactions tbody tr").count() >= 3
    screenshot(page, "backoffice-player-page")

    today = datetime.now(UTC).date()
    start, end = today - timedelta(days=6), today + timedelta(days=1)
    page.goto(f"{play_server.url}/admin/settlement/dailyreport/?from={start}&to={end}")
    chart = page.locator(f'svg.report-chart[data-operator="{world["slug"]}"]')
    chart.wait_for()
    for figure in ("turnover", "fees", "ngr", "games", "active_players"):
        points = chart.locator(f'g[data-figure="{figure}"] circle.point')
        assert points.count() == 7, figure  # one per day of the week shown
    last_games = chart.locator('g[data-figure="games"] circle.point').last
    assert last_games.get_attribute("data-day") == today.isoformat()
    assert last_games.get_attribute("data-value") == "1"
    assert page.locator("#report-totals tbody tr").count() >= 1
    screenshot(page, "backoffice-report-chart")
