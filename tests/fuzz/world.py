"""The data the API fuzzer runs against: credentials, and real ids for path parameters.

One ``World`` per fuzzed operation (each pytest item has its own rolled-back database):

- an operator with an API key, two funded players of that operator (the first holds a
  session token), a staff user for the back-office endpoints (HTTP basic auth);
- platform rows with ids worth hitting: a signing secret, a player session, a webhook
  delivery; and, best effort, a wallet deposit and a started practice match, made with the
  wallet's and the games' own services and API. A seeder that fails is reported as a
  warning (the fuzzer then only uses generated ids there), never silently dropped;
- real values for path parameters. Named ones come from the seed (``player_id``,
  ``session_id``, ...). The rest are harvested generically from the schema: for a path
  ``.../things/{thing_id}...`` the fuzzer GETs the list ``.../things`` (when the schema has
  one) with the right credentials and takes the ``id`` of each item. New endpoints of
  wallet/, games/ and settlement/ get real ids this way without a change here.

The credential for a case comes from its operation's OpenAPI ``security``
(gin_platform/http/openapi.py narrows it to what the permission classes accept).
"""

from __future__ import annotations

import base64
import itertools
import json
import re
import warnings
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from django.core import signals
from django.db import close_old_connections
from werkzeug.test import Client

from gin_platform.models import OperatorSigningSecret, Player, WebhookDelivery
from gin_platform.project.wsgi import application
from gin_platform.tenancy.services import api_key_create, player_session_create
from integrity import services as integrity_services
from integrity.models import Alert
from protection.services import harm as protection_harm
from tests.factories import SYSTEM, OperatorFactory, PlayerFactory, staff_user
from tests.games.factories import RoomFactory, TableFactory
from tests.protection.worlds import shown_reality_check
from tournaments.services.creation import TournamentOptions, tournament_create
from tournaments.services.registration import entry_register
from tournaments.services.staff import tournament_cancel_propose
from wallet import services as wallet_services

STAFF_USERNAME = "fuzz-staff"
STAFF_PASSWORD = "fuzz-staff-password-1"  # only ever in the rolled-back test database
FUNDING = 1_000_000  # minor units deposited into each player's wallet
PARAM = re.compile(r"\{([^}/]+)\}")


# The World of the operation being fuzzed (set by the fuzz_world fixture), read by the
# path-parameter hook while Hypothesis generates cases.
CURRENT: World | None = None


class SeedWarning(UserWarning):
    """A best-effort seeder failed: the fuzzer uses generated ids for what it would make."""


class UnknownSecurityScheme(Exception):
    """An operation asks for a credential this suite cannot present."""


@dataclass
class World:
    operator: Any
    operator_key: str
    player: Player
    player_token: str
    opponent: Player
    staff_basic: str
    # Values by path parameter name, from the seed.
    named: dict[str, list[str]] = field(default_factory=dict)
    # Values by (path template, parameter name), harvested from list endpoints.
    harvested: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    # The schema's operations: path template -> {method: raw operation}.
    paths: dict[str, dict[str, Any]] = field(default_factory=dict)
    _keys: itertools.count = field(default_factory=lambda: itertools.count(1))
    _turns: dict[str, itertools.count] = field(default_factory=dict)

    # --- credentials ---------------------------------------------------------------------
    def authorization(self, security: list[dict[str, list]] | None) -> str | None:
        """The Authorization header for an operation's security requirements (None: anon)."""
        if not security or any(not requirement for requirement in security):
            return None  # no requirement, or an empty one ({}): anonymous access
        offered = {
            "operatorApiKey": f"Bearer {self.operator_key}",
            "playerToken": f"Bearer {self.player_token}",
            "basicAuth": self.staff_basic,
        }
        usable = [
            offered[next(iter(requirement))]
            for requirement in security
            if len(requirement) == 1 and next(iter(requirement)) in offered
        ]
        if not usable:
            raise UnknownSecurityScheme(
                f"no credential for security {security}: teach tests/fuzz/world.py to present it"
            )
        # Several accepted (e.g. operator or player): take them in turn, case after case.
        turn = self._turns.setdefault(repr(security), itertools.count())
        return usable[next(turn) % len(usable)]

    def idempotency_key(self) -> str:
        return f"fuzz-{next(self._keys)}"

    # --- path parameters -----------------------------------------------------------------
    def path_values(self, path: str, name: str) -> list[str]:
        """Real values for parameter ``name`` of ``path`` (may be empty)."""
        key = (path, name)
        if key not in self.harvested:
            self.harvested[key] = self._harvest(path, name)
        values = list(self.harvested[key])
        values += [v for v in self.named.get(name, []) if v not in values]
        return values

    def _harvest(self, path: str, name: str) -> list[str]:
        """GET the list one level above ``{name}`` and take its items' ids."""
        prefix = path.split("{" + name + "}", 1)[0].rstrip("/")
        operation = self.paths.get(prefix, {}).get("get")
        if operation is None or prefix == path:
            return []
        url = prefix
        for param in PARAM.findall(prefix):
            values = self.path_values(path, param) if param != name else []
            if not values:
                return []
            url = url.replace("{" + param + "}", values[0])
        try:
            auth = self.authorization(operation.get("security"))
        except UnknownSecurityScheme:
            return []
        response = _http().get(url, headers={"Authorization": auth} if auth else {})
        if response.status_code != 200:
            return []
        body = json.loads(response.get_data() or b"null")
        items = body.get("results") if isinstance(body, dict) else body
        if not isinstance(items, list):
            return []
        return [str(item["id"]) for item in items if isinstance(item, dict) and "id" in item][:5]

    def add(self, name: str, value: Any) -> None:
        values = self.named.setdefault(name, [])
        if str(value) not in values:
            values.append(str(value))


@contextmanager
def database_connection_kept():
    """schemathesis calls the raw WSGI application, whose request signals close "old"
    database connections; inside the test's transaction that closes the test's own
    connection (PostgreSQL). Django's test client disconnects them the same way."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


def _http() -> Client:
    """The same in-process WSGI transport the fuzzer uses (not django.test.Client, which
    reconnects the request signals that close the test's database connection)."""
    return Client(application)


def build_world(*, schema_paths: dict[str, dict[str, Any]], django_user_model) -> World:
    operator = OperatorFactory(webhook_url="https://hooks.example.invalid/gin")
    key = api_key_create(operator=operator, actor=SYSTEM).key
    player = PlayerFactory(operator=operator, display_name="Fuzz Player")
    opponent = PlayerFactory(operator=operator, display_name="Fuzz Opponent")
    issued = player_session_create(player=player, actor=SYSTEM)
    # The admin role (docs/backoffice.md); no TOTP device: the money endpoints answer 403
    # otp-required, every other staff endpoint is reachable.
    staff_user(STAFF_USERNAME, "admin", password=STAFF_PASSWORD, otp=False)
    basic = base64.b64encode(f"{STAFF_USERNAME}:{STAFF_PASSWORD}".encode()).decode()
    world = World(
        operator=operator,
        operator_key=key,
        player=player,
        player_token=issued.token,
        opponent=opponent,
        staff_basic=f"Basic {basic}",
        paths=schema_paths,
    )
    world.add("player_id", player.pk)
    world.add("player_id", opponent.pk)
    world.add("session_id", issued.session.pk)
    world.add("operator_id", operator.pk)
    world.add("currency", operator.base_currency)
    world.add("slug", "not-found")
    world.add("slug", "validation-error")
    secret = OperatorSigningSecret.objects.create(operator=operator, secret="fuzz-signing-secret")
    world.add("secret_id", secret.pk)
    delivery = WebhookDelivery.objects.create(
        operator=operator,
        event_type="fuzz.seeded",
        payload={"seeded": True},
        url=operator.webhook_url,
        status=WebhookDelivery.Status.FAILED,
    )
    world.add("delivery_id", delivery.pk)
    seeders = (_seed_wallet, _seed_games, _seed_integrity, _seed_protection, _seed_tournaments)
    for seeder in seeders:
        _best_effort(seeder, world)
    return world


def _best_effort(seeder: Callable[[World], None], world: World) -> None:
    try:
        seeder(world)
    except Exception as exc:
        warnings.warn(
            f"tests/fuzz: {seeder.__name__} failed ({type(exc).__name__}: {exc}); the fuzzer "
            "uses generated ids for what it would have made",
            SeedWarning,
            stacklevel=2,
        )


def _seed_wallet(world: World) -> None:
    """A deposit for each player (their transactions get real ids; sitting needs funds)."""
    for number, player in enumerate((world.player, world.opponent)):
        transaction = wallet_services.deposit(
            player=player,
            amount=FUNDING,
            currency=player.wallet_currency,
            reference=f"fuzz-seed-{number}",
            actor=SYSTEM,
        )
        world.add("transaction_id", transaction.pk)


def _seed_games(world: World) -> None:
    """A practice room with two tables; both players sit at the first, which starts a
    match (so match ids are real and in progress)."""
    room = RoomFactory(operator=world.operator, practice=True, stake=100)
    tables = [TableFactory(room=room), TableFactory(room=room)]
    world.add("room_id", room.pk)
    for table in tables:
        world.add("table_id", table.pk)
    opponent_token = player_session_create(player=world.opponent, actor=SYSTEM).token
    match_ids = set()
    for token in (world.player_token, opponent_token):
        response = _http().post(
            f"/api/v1/tables/{tables[0].pk}/sit",
            json={},
            headers={"Authorization": f"Bearer {token}"},
        )
        if response.status_code not in (200, 201):
            raise RuntimeError(
                f"sit answered {response.status_code}: {response.get_data()[:300]!r}"
            )
        body = response.get_json()
        if body.get("match_id") is not None:
            match_ids.add(body["match_id"])
    for match_id in sorted(match_ids):
        world.add("match_id", match_id)


def _seed_integrity(world: World) -> None:
    """What the risk team works on (docs/integrity.md): an alert about the two players in a
    case with a pending confiscation, and another alert in no case (to dismiss, or to add)."""
    alerts = [
        Alert.objects.create(
            signal=signal,
            player=world.player,
            other_player=world.opponent,
            score=9.0,
            threshold=5.0,
            reasoning={"seeded": True},
        )
        for signal in (Alert.Signal.SOFT_PLAY, Alert.Signal.FEEDING)
    ]
    case = integrity_services.case_open(
        alerts=alerts[:1], title="seeded", opened_by="detection", actor=SYSTEM
    )
    confiscation = integrity_services.confiscation_propose(
        case=case,
        colluder_id=world.player.pk,
        refunds=[(world.opponent.pk, 100)],
        currency=world.player.wallet_currency,
        reason="seeded",
        user=staff_user("fuzz-risk", "risk"),
    )
    world.add("alert_id", alerts[1].pk)
    world.add("case_id", case.pk)
    world.add("confiscation_id", confiscation.pk)


def _seed_protection(world: World) -> None:
    """A reality check shown to the player, waiting for the answer; a marker of harm's rule
    to read and change (the rules are seeded by a migration, so a code is all it takes)
    and a flag about the player (docs/player-protection.md)."""
    world.add("check_id", shown_reality_check(world.player).pk)
    world.add("code", "long_sessions")
    protection_harm.harm_flag_raise(
        player=world.player, rule="night_play", day=date(2026, 11, 30), evidence={"seeded": True}
    )


def _seed_tournaments(world: World) -> None:
    """A sit and go registering, the player entered, and staff's pending request to cancel
    it (four eyes, for the approve and reject paths; docs/tournaments.md)."""
    tournament = tournament_create(
        operator=world.operator,
        options=TournamentOptions(
            name="Fuzz cup",
            kind="sit_and_go",
            seats=2,
            currency=world.operator.base_currency,
            max_entries=8,
            buy_in=100,
            round_settings=[{"variant": "ftk", "target": None}],
        ),
        actor=SYSTEM,
    )
    entry_register(player=world.player, tournament=tournament, actor=SYSTEM)
    world.add("tournament_id", tournament.pk)
    cancel = tournament_cancel_propose(
        tournament=tournament, reason="seeded", user=staff_user("fuzz-finance", "finance")
    )
    world.add("request_id", cancel.pk)
