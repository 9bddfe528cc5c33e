"""The back office's player page (settlement.backoffice, admin ``platform_player_page``):
every item about the player, each linking to its own admin page; read-only; amounts in the
currency's decimals; a hand being played never shows its cards, a finished one does."""

from __future__ import annotations

import re
from datetime import date

import pytest
from django.db.models import Q
from django.test import Client
from django.urls import reverse

from games import engine
from games.models import Hand, Match, Seat
from gin_platform.models import AuditEvent, WebhookDelivery
from gin_platform.tenancy.services import player_session_create
from protection.services.harm import harm_flag_raise
from settlement import services as settlement_services
from tests.factories import SYSTEM, PlayerFactory
from tests.games.factories import RoomFactory, TableFactory
from tests.settlement.backoffice import login_staff
from tests.settlement.helpers import play_out, seat_two
from tests.wallet.factories import fund
from wallet import services as wallet_services
from wallet.models import Account, LedgerTransaction, PlayerLimitChange, SelfExclusion

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, django_user_model):
    login_staff(client, django_user_model)
    return client


def page_url(player) -> str:
    return reverse("admin:platform_player_page", args=[player.pk])


def hand_block(html: str, hand: Hand) -> str:
    match = re.search(rf'<div class="hand" data-hand="{hand.pk}">(.*?)</div>', html, re.S)
    assert match, f"hand {hand.pk} is not on the page"
    return match.group(1)


@pytest.fixture
def busy_player(operator):
    """A player with a deposit, a settled game, a game being played, limits (one pending
    increase), a self-exclusion, a session and a webhook naming them."""
    alice = PlayerFactory(operator=operator, external_ref="alice-ref")
    bob = PlayerFactory(operator=operator, external_ref="bob-ref")
    room = RoomFactory(operator=operator, ftk=True, stake=1234, fee_bps=250)
    finished = play_out(seat_two(TableFactory(room=room), players=[alice, bob]))
    settlement_services.game_settle(match_id=finished.pk)
    running = seat_two(TableFactory(room=room), players=[alice, bob])
    fund(alice, 5_005)
    wallet_services.player_limit_set(
        player=alice, kind="deposit", period="day", amount=10_000, actor=SYSTEM
    )
    wallet_services.player_limit_set(
        player=alice, kind="deposit", period="day", amount=20_050, actor=SYSTEM
    )
    session = player_session_create(player=alice, actor=SYSTEM).session
    webhook = WebhookDelivery.objects.create(
        operator=operator,
        event_type="player.updated",
        payload={"data": {"player": {"player_id": str(alice.pk), "external_ref": "alice-ref"}}},
        url="https://example.com/hook",
    )
    WebhookDelivery.objects.create(
        operator=operator,
        event_type="player.updated",
        payload={"data": {"player": {"player_id": str(bob.pk)}}},
        url="https://example.com/hook",
    )
    wallet_services.self_exclusion_create(player=alice, days=7, actor=SYSTEM, reason="a break")
    return {
        "player": alice,
        "opponent": bob,
        "finished": finished,
        "running": running,
        "session": session,
        "webhook": webhook,
    }


def test_the_player_page_shows_every_item_with_a_link_to_its_admin_page(admin_client, busy_player):
    alice = busy_player["player"]
    response = admin_client.get(page_url(alice))
    assert response.status_code == 200
    html = response.content.decode()

    links = [reverse("admin:platform_player_change", args=[alice.pk])]
    # Balances: the EUR wallet (12.34 staked twice, paid back by the settlement, 50.05
    # deposited), in the currency's decimals; the running game's stake in its open escrow.
    wallet = Account.objects.get(kind="player", player=alice, currency="EUR")
    links.append(reverse("admin:wallet_account_change", args=[wallet.pk]))
    assert re.search(
        rf"<td class=\"amount\">{wallet.balance // 100}\.{wallet.balance % 100:02d}<", html
    )
    escrow = Account.objects.get(kind="escrow", game_ref=busy_player["running"].game_ref)
    links.append(reverse("admin:wallet_account_change", args=[escrow.pk]))
    stakes = html.split('id="player-open-stakes"')[1].split("</table>")[0]
    assert "12.34" in stakes and busy_player["running"].game_ref in stakes
    assert busy_player["finished"].game_ref not in stakes  # settled: nothing in escrow
    # Ledger transactions with a line of hers: deposit, buy-ins, settlement.
    transactions = LedgerTransaction.objects.filter(entries__player=alice).distinct()
    assert {txn.kind for txn in transactions} >= {"deposit", "buy_in", "settlement"}
    links += [reverse("admin:wallet_ledgertransaction_change", args=[t.pk]) for t in transactions]
    assert "50.05 EUR" in html
    # Matches, seats and hands; the opponent links to their own page.
    for match in (busy_player["finished"], busy_player["running"]):
        links.append(reverse("admin:games_match_change", args=[match.pk]))
        seat = Seat.objects.get(match=match, player=alice)
        links.append(reverse("admin:games_seat_change", args=[seat.pk]))
        links += [reverse("admin:games_hand_change", args=[h.pk]) for h in match.hands.all()]
    links.append(reverse("admin:platform_player_change", args=[busy_player["opponent"].pk]))
    # Limits (in force 100.00, pending 200.50) and their changes; the self-exclusion.
    limits = html.split('id="player-limits"')[1].split("</table>")[0]
    assert "100.00 EUR" in limits and "200.50" in limits
    links.append(f"{reverse('admin:wallet_playerlimit_changelist')}?player__exact={alice.pk}")
    links += [
        reverse("admin:wallet_playerlimitchange_change", args=[change.pk])
        for change in PlayerLimitChange.objects.filter(player=alice)
    ]
    exclusion = SelfExclusion.objects.get(player=alice)
    links.append(reverse("admin:wallet_selfexclusion_change", args=[exclusion.pk]))
    assert "a break" in html
    # Sessions, webhooks about her (not about bob), the audit trail.
    links.append(reverse("admin:platform_playersession_change", args=[busy_player["session"].pk]))
    links.append(reverse("admin:platform_webhookdelivery_change", args=[busy_player["webhook"].pk]))
    webhooks = html.split('id="player-webhooks"')[1].split("</table>")[0]
    assert webhooks.count("<tr><td>") == 1
    seats = Seat.objects.filter(player=alice).values_list("pk", flat=True)
    audit = AuditEvent.objects.filter(
        Q(object_type="platform.playersession", object_id=str(busy_player["session"].pk))
        | Q(object_type="wallet.selfexclusion", object_id=str(exclusion.pk))
        | Q(object_type="games.seat", object_id__in=[str(pk) for pk in seats])
    )
    assert {event.object_type for event in audit} == {
        "platform.playersession",
        "wallet.selfexclusion",
        "games.seat",
    }
    links += [reverse("admin:platform_auditevent_change", args=[event.pk]) for event in audit]

    for link in links:
        assert f'href="{link}"' in html, link
        assert admin_client.get(link).status_code == 200, link


def test_a_running_hands_cards_are_never_shown_a_finished_hands_are(admin_client, busy_player):
    alice = busy_player["player"]
    html = admin_client.get(page_url(alice)).content.decode()

    running = Hand.objects.get(match=busy_player["running"], status=Hand.Status.IN_PROGRESS)
    block = hand_block(html, running)
    assert "cards hidden while the hand is played" in block
    assert 'class="cards"' not in block
    for held in engine.state_from_json(running.state).hands:
        cards = [str(card) for card in held]
        assert " ".join(cards) not in html
        assert not any(re.search(rf"\b{re.escape(card)}\b", block) for card in cards)

    finished = busy_player["finished"].hands.filter(status=Hand.Status.ENDED).first()
    block = hand_block(html, finished)
    for held in engine.state_from_json(finished.state).hands:
        assert " ".join(str(card) for card in held) in block


def test_the_player_page_needs_staff_and_an_existing_player(admin_client, player):
    assert Client().get(page_url(player)).status_code == 302  # to the admin login
    assert admin_client.get(page_url(player)).status_code == 200
    missing = reverse("admin:platform_player_page", args=["00000000-0000-0000-0000-000000000000"])
    assert admin_client.get(missing).status_code == 404


def test_the_change_page_and_the_list_link_to_the_player_page(admin_client, player):
    change = admin_client.get(reverse("admin:platform_player_change", args=[player.pk]))
    assert f'href="{page_url(player)}"' in change.content.decode()
    listing = admin_client.get(reverse("admin:platform_player_changelist"))
    assert f'href="{page_url(player)}"' in listing.content.decode()


def test_practice_chips_are_their_own_balance(admin_client, operator):
    player = PlayerFactory(operator=operator)
    practice = RoomFactory(operator=operator, practice=True, stake=100)
    match = seat_two(
        TableFactory(room=practice), players=[player, PlayerFactory(operator=operator)]
    )
    assert match.status == Match.Status.RUNNING
    html = admin_client.get(page_url(player)).content.decode()
    chips = Account.objects.get(kind="player", player=player, currency="XGC")
    balances = html.split('id="player-balances"')[1].split("</table>")[0]
    assert "practice chips" in balances and f">{chips.balance}<" in balances


def test_the_markers_of_harm_flags_are_on_the_page(admin_client, operator):
    alice, bob = PlayerFactory(operator=operator), PlayerFactory(operator=operator)
    flag = harm_flag_raise(
        player=alice,
        rule="long_sessions",
        day=date(2026, 11, 30),
        evidence={"session_id": 7, "hours": 5.25, "threshold_hours": 4},
    )
    harm_flag_raise(player=bob, rule="night_play", day=date(2026, 11, 29), evidence={"buy_ins": 12})
    html = admin_client.get(page_url(alice)).content.decode()
    flags = html.split('id="player-harm-flags"')[1].split("</table>")[0]
    assert f"#{flag.pk}" in flags and "2026-11-30" in flags and "long_sessions" in flags
    assert "&quot;hours&quot;: 5.25" in flags
    assert "night_play" not in flags and "2026-11-29" not in flags  # bob's
    audit = html.split('id="player-audit"')[1].split("</table>")[0]
    assert "protection.player_flagged" in audit
    empty = admin_client.get(page_url(bob)).content.decode()
    assert "long_sessions" not in empty.split('id="player-harm-flags"')[1].split("</table>")[0]
