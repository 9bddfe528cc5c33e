"""Staff's tournaments through four eyes (docs/backoffice.md "Four-eyes approval",
docs/tournaments.md "Staff"): a network tournament is proposed by one staff member and
created only when another approves, any tournament's cancellation likewise; never by the
proposer, once however many approve at once, refused and recorded failed when the action
is, with the proposer's right checked again. Over the staff API, on PostgreSQL."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from gin_platform.models import AuditEvent, StaffOperatorScope
from tests.factories import SYSTEM, OperatorFactory, admin_login, staff_user
from tests.games.network_world import member_make, network_make
from tests.helpers import api_as, assert_problem
from tests.races import race
from tests.tournaments.test_lifecycle import FUNDS, balance, funded_player, sit_and_go
from tournaments.models import Entry, Tournament, TournamentRequest
from tournaments.services import staff
from tournaments.services.lifecycle import tournament_cancel
from tournaments.services.registration import entry_register
from wallet.models import LedgerTransaction
from wallet.selectors import balances, reconciliation

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

NETWORK_CUP = {
    "name": "Network Sunday",
    "kind": "scheduled",
    "seats": 2,
    "currency": "EUR",
    "buy_in": "10.00",
    "entry_fee": "1.00",
    "guaranteed": "500.00",
    "min_entries": 4,
    "max_entries": 64,
    "round_settings": [{"variant": "ftk"}, {"variant": "match", "target": 100}],
    "reason": "December promotion",
}


@pytest.fixture
def network():
    return network_make(fee_share_bps=2000)


@pytest.fixture
def ana():
    return staff_user("ana", "finance")


@pytest.fixture
def ben():
    return staff_user("ben", "finance")


def _cup(**changes) -> dict:
    starts = (timezone.now() + timedelta(days=2)).isoformat()
    return {**NETWORK_CUP, "starts_at": starts, **changes}


def propose_cup(user, **changes):
    return api_as(user).post("/api/v1/staff/tournaments", _cup(**changes), format="json")


def propose_cancel(user, tournament, reason: str = "collusion at its tables"):
    return api_as(user).post(
        f"/api/v1/staff/tournaments/{tournament.pk}/cancel", {"reason": reason}, format="json"
    )


def decide(user, request_id, verb: str = "approve", note: str = ""):
    return api_as(user).post(
        f"/api/v1/staff/tournament-requests/{request_id}/{verb}", {"note": note}, format="json"
    )


def test_a_network_tournament_with_a_guarantee_is_created_only_by_a_second_person(
    network, ana, ben
) -> None:
    proposed = propose_cup(ana)
    assert proposed.status_code == 201, proposed.content
    body = proposed.json()
    assert body["kind"] == "create" and body["status"] == "pending" and body["network"]
    assert body["options"]["guaranteed"] == "500.00" and body["tournament_id"] is None
    assert body["operator_id"] == str(network.operator.pk)
    assert not Tournament.objects.exists()  # nothing until another person approves

    assert_problem(decide(ana, body["id"]), 403, "four-eyes-required")
    pending = api_as(ben).get("/api/v1/staff/tournament-requests?status=pending").json()
    assert [row["id"] for row in pending["results"]] == [body["id"]]

    approved = decide(ben, body["id"], note="budget checked")
    assert approved.status_code == 200, approved.content
    done = approved.json()
    tournament = Tournament.objects.get()
    assert done["status"] == "executed" and done["decided_by"] == "ben"
    assert done["tournament_id"] == tournament.pk
    assert done["result_ref"] == f"tournament:{tournament.pk}"
    assert tournament.operator == network.operator  # every member's players may enter
    assert (tournament.buy_in, tournament.entry_fee, tournament.guaranteed) == (1_000, 100, 50_000)
    assert tournament.status == Tournament.Status.REGISTERING
    # The approver created it (its audit row's actor); the request's steps are audited too.
    created = AuditEvent.objects.get(action="tournament.created", object_id=str(tournament.pk))
    assert (created.actor_type, created.actor_id) == ("staff", str(ben.pk))
    steps = AuditEvent.objects.filter(object_id=str(body["id"]), action__startswith="tournament_r")
    assert sorted(steps.values_list("action", flat=True)) == [
        "tournament_request.executed",
        "tournament_request.proposed",
    ]
    # Approving again returns it as it is; nothing more is created.
    again = decide(ben, body["id"])
    assert again.status_code == 200 and again.json()["result_ref"] == done["result_ref"]
    assert Tournament.objects.count() == 1
    assert (
        api_as(ben).get("/api/v1/staff/tournament-requests?status=pending").json()["results"] == []
    )


def test_a_proposal_is_checked_as_creation_checks_it_and_nothing_is_recorded(network, ana) -> None:
    assert_problem(propose_cup(ana, seats=5), 422, "tournament-options-invalid")
    assert_problem(propose_cup(ana, starts_at=None), 422, "tournament-options-invalid")
    # What games refuses of the room is refused at the proposal too.
    assert_problem(propose_cup(ana, rules={"knock_limit": 99}), 422, "invalid-room-options")
    assert_problem(propose_cup(ana, reason="  "), 400, "validation-error")
    assert not TournamentRequest.objects.exists()


def test_only_unscoped_staff_holding_the_permission_propose_a_network_tournament(
    network, ana
) -> None:
    risk = staff_user("rita", "risk")
    assert_problem(propose_cup(risk), 403, "permission-denied")
    scoped = staff_user("sam", "finance")
    StaffOperatorScope.objects.create(user=scoped, operator=member_make(name="Alpha"))
    assert_problem(propose_cup(scoped), 403, "permission-denied")
    support = staff_user("sue", "support")
    assert_problem(propose_cup(support), 403, "permission-denied")  # cannot even read them
    assert not TournamentRequest.objects.exists()


def test_without_a_network_staff_create_nothing(ana) -> None:
    assert_problem(propose_cup(ana), 422, "approval-invalid")


def test_two_approvers_racing_create_the_tournament_once(network, ana) -> None:
    row = staff.network_tournament_propose(
        options=staff.options_from_payload(
            {
                "name": "Race cup",
                "kind": "sit_and_go",
                "seats": 2,
                "currency": "EUR",
                "max_entries": 8,
                "round_settings": [{"variant": "ftk", "target": None}],
                "guaranteed": 2_000,
            }
        ),
        reason="promotion",
        user=ana,
    )
    approvers = [staff_user(f"approver-{i}", "finance") for i in range(4)]

    def approve(i: int):
        return staff.tournament_request_approve(
            tournament_request=TournamentRequest.objects.get(pk=row.pk), user=approvers[i]
        )

    results = race(len(approvers), approve)
    assert all(isinstance(result, TournamentRequest) for result in results), results
    assert {result.status for result in results} == {"executed"}
    assert len({result.decided_by_id for result in results}) == 1
    assert Tournament.objects.count() == 1
    assert AuditEvent.objects.filter(action="tournament.created").count() == 1
    assert AuditEvent.objects.filter(action="tournament_request.executed").count() == 1


def test_two_approvers_racing_cancel_once_and_refund_every_entry_once(network, ana) -> None:
    operator = OperatorFactory()
    players = [funded_player(operator) for _ in range(3)]
    tournament = sit_and_go(operator, entries=4, guaranteed=10_000)
    for player in players:
        entry_register(player=player, tournament=tournament, actor=SYSTEM)
    row = staff.tournament_cancel_propose(tournament=tournament, reason="fraud", user=ana)
    approvers = [staff_user(f"approver-{i}", "finance") for i in range(4)]

    def approve(i: int):
        return staff.tournament_request_approve(
            tournament_request=TournamentRequest.objects.get(pk=row.pk), user=approvers[i]
        )

    results = race(len(approvers), approve)
    assert {result.status for result in results} == {"executed"}, results
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED
    assert tournament.cancel_reason == "staff"
    assert all(balance(player) == FUNDS for player in players)
    refunds = LedgerTransaction.objects.filter(reference__startswith="tournament-refund:")
    assert refunds.count() == 3
    assert AuditEvent.objects.filter(action="tournament.cancelled").count() == 1
    cancelled = AuditEvent.objects.get(action="tournament.cancelled")
    assert cancelled.actor_type == "staff"
    assert cancelled.actor_id in {str(user.pk) for user in approvers}
    assert balances.escrow_balance(game_ref=tournament.game_ref, currency="EUR") == 0
    assert reconciliation.reconcile().ok


def test_risk_proposes_a_cancellation_finance_approves_it_over_the_api(network, ben) -> None:
    operator = OperatorFactory()
    tournament = sit_and_go(operator, entries=4)
    player = funded_player(operator)
    entry_register(player=player, tournament=tournament, actor=SYSTEM)
    rita = staff_user("rita", "risk")
    proposed = propose_cancel(rita, tournament)
    assert proposed.status_code == 201, proposed.content
    body = proposed.json()
    assert (body["kind"], body["tournament_id"], body["options"]) == (
        "cancel",
        tournament.pk,
        None,
    )
    # One cancellation waits at a time.
    assert_problem(propose_cancel(ben, tournament), 422, "approval-invalid")
    assert_problem(decide(rita, body["id"]), 403, "permission-denied")  # risk cannot approve
    approved = decide(ben, body["id"])
    assert approved.status_code == 200, approved.content
    assert approved.json()["status"] == "executed"
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED
    assert balance(player) == FUNDS
    assert Entry.objects.get(player=player).status == Entry.Status.REFUNDED
    # Nothing left to cancel: a new proposal is refused.
    assert_problem(propose_cancel(rita, tournament), 409, "tournament-ended")


def test_an_approval_the_tournament_no_longer_allows_is_recorded_failed(network, ana, ben) -> None:
    tournament = sit_and_go(OperatorFactory(), entries=4)
    row = staff.tournament_cancel_propose(tournament=tournament, reason="fraud", user=ana)
    tournament_cancel(tournament_id=tournament.pk, reason="operator", actor=SYSTEM)
    assert_problem(decide(ben, row.pk, note="too late?"), 409, "tournament-ended")
    row.refresh_from_db()
    assert row.status == "failed" and row.result_ref == "tournament-ended"
    assert row.decision_note.startswith("too late? [")
    failed = AuditEvent.objects.get(action="tournament_request.failed", object_id=str(row.pk))
    assert failed.data["problem"] == "tournament-ended"
    assert_problem(decide(ben, row.pk), 409, "approval-not-pending")
    tournament.refresh_from_db()
    assert tournament.cancel_reason == "operator"  # the first cancellation stands


def test_a_proposer_who_may_no_longer_propose_leaves_a_request_that_never_runs(
    network, ana, ben
) -> None:
    proposed = propose_cup(ana).json()
    ana.is_active = False
    ana.save(update_fields=["is_active"])
    assert_problem(decide(ben, proposed["id"]), 409, "proposer-not-entitled")
    row = TournamentRequest.objects.get(pk=proposed["id"])
    assert row.status == "failed" and row.result_ref == "proposer-not-entitled"
    assert not Tournament.objects.exists()


def test_a_rejected_request_never_runs_and_the_proposer_cannot_reject_it(network, ana, ben) -> None:
    tournament = sit_and_go(OperatorFactory(), entries=4)
    proposed = propose_cancel(ana, tournament).json()
    assert_problem(decide(ana, proposed["id"], "reject"), 403, "four-eyes-required")
    rejected = decide(ben, proposed["id"], "reject", note="not enough evidence")
    assert rejected.status_code == 200, rejected.content
    assert rejected.json()["status"] == "rejected"
    assert rejected.json()["decision_note"] == "not enough evidence"
    assert_problem(decide(ben, proposed["id"]), 409, "approval-not-pending")
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.REGISTERING
    # A new proposal may follow the rejected one.
    assert propose_cancel(ana, tournament).status_code == 201


def test_a_scoped_user_sees_and_cancels_only_their_operators_tournaments(network, ana) -> None:
    mine, theirs = OperatorFactory(), OperatorFactory()
    scoped = staff_user("sam", "finance")
    StaffOperatorScope.objects.create(user=scoped, operator=mine)
    own = sit_and_go(mine, entries=4)
    other = sit_and_go(theirs, entries=4)
    assert_problem(propose_cancel(scoped, other), 404, "not-found")
    other_request = propose_cancel(ana, other).json()
    own_request = propose_cancel(scoped, own)
    assert own_request.status_code == 201, own_request.content
    listed = api_as(scoped).get("/api/v1/staff/tournament-requests").json()["results"]
    assert [row["id"] for row in listed] == [own_request.json()["id"]]
    client = api_as(scoped)
    assert_problem(
        client.get(f"/api/v1/staff/tournament-requests/{other_request['id']}"), 404, "not-found"
    )
    assert_problem(decide(scoped, other_request["id"]), 404, "not-found")
    # A network tournament's request is an unscoped user's.
    network_request = propose_cup(ana).json()
    assert_problem(
        client.get(f"/api/v1/staff/tournament-requests/{network_request['id']}"), 404, "not-found"
    )
    shown = api_as(ana).get(f"/api/v1/staff/tournament-requests/{other_request['id']}")
    assert shown.status_code == 200 and shown.json()["reason"] == "collusion at its tables"


def test_the_admin_page_approves_through_the_same_service(network, ana, ben, client) -> None:
    proposed = propose_cup(ana).json()
    admin_login(client, ben)
    page = "/admin/tournaments/tournamentrequest/"
    assert client.get(page).status_code == 200
    response = client.post(
        page, {"action": "approve_selected", "_selected_action": [proposed["id"]]}
    )
    assert response.status_code == 302
    row = TournamentRequest.objects.get(pk=proposed["id"])
    assert row.status == "executed" and row.decided_by == ben
    assert Tournament.objects.get().pk == row.tournament_id
