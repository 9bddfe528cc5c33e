"""Tenancy (operators, their API keys, signing secrets and registered origins, players,
player sessions, game-launch tokens, socket tickets), idempotency records, the operator
event log, webhook subscriptions and deliveries, the audit log, and the staff's operator
scope and access change requests."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower, Now
from django.dispatch import Signal
from django.utils import timezone

from gin_platform.encryption import EncryptedTextField
from gin_platform.events.webhook_targets import validate_webhook_url
from gin_platform.tenancy.jurisdictions import JurisdictionSettings

SCREEN_NAME_MAX_LENGTH = 20


# Sent by a queryset ``update`` of credential rows (``CredentialQuerySet``), which Django's
# ``post_save`` is not: gin_platform/request_path/remembered_credentials.py listens to it, so
# the models never import what remembers them.
credentials_updated = Signal()


class CredentialQuerySet(models.QuerySet):
    """Operators, API keys, players and sessions: the web processes remember them
    (gin_platform/request_path/remembered_credentials.py) until a change sets a new epoch.
    ``save`` and ``delete`` say so through their signals; an ``update`` sends none, so it
    sends ``credentials_updated``. Recording a credential's last use is the one update that
    changes nothing a request decides on."""

    UNREMEMBERED_FIELDS = frozenset({"last_used_at"})

    def update(self, **kwargs):
        rows = super().update(**kwargs)
        if set(kwargs) - self.UNREMEMBERED_FIELDS:
            credentials_updated.send(sender=self.model, using=self.db)
        return rows

    update.alters_data = True  # type: ignore[attr-defined]  # Django's marker, as on QuerySet.update


class Operator(JurisdictionSettings):
    """A gaming operator that integrates over REST. Everything else is scoped to one."""

    class Status(models.TextChoices):
        ACTIVE = "active"
        SUSPENDED = "suspended"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=64, unique=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    base_currency = models.CharField(max_length=3)
    # Checked when set (gin_platform/events/webhook_targets.py) and again, after DNS, at delivery.
    webhook_url = models.URLField(blank=True, default="", validators=[validate_webhook_url])
    # Signs outgoing webhooks (HMAC-SHA256). Shown to the operator once, like an API key;
    # stored encrypted (gin_platform/encryption.py): the column never holds it readable.
    webhook_secret = EncryptedTextField(blank=True, default="")
    # When set, every request authenticated with this operator's API key must be signed.
    require_signed_requests = models.BooleanField(default=False)
    # The sandbox (test mode, docs/api.md "Sandbox"): a live operator may have one sandbox
    # twin, a tenant of its own that its gop_test_ keys authenticate as.
    is_sandbox = models.BooleanField(default=False, db_default=False)
    live_operator = models.OneToOneField(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="sandbox",
        help_text="The live operator this sandbox belongs to (sandbox operators only).",
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    objects = CredentialQuerySet.as_manager()

    class Meta:
        ordering = ("name",)
        # Back-office actions without a model of their own (gin_platform/staff/roles.py).
        permissions = [("view_reports", "Can view every operator's reports")]
        constraints = [
            models.CheckConstraint(
                condition=Q(is_sandbox=True, live_operator__isnull=False)
                | Q(is_sandbox=False, live_operator__isnull=True),
                name="operator_sandbox_has_live_operator",
            )
        ]

    def __str__(self) -> str:
        return self.slug

    @property
    def is_active(self) -> bool:
        """Active, and for a sandbox its live operator too: suspending an operator stops its
        test keys, sandbox players, launches, tickets and sockets, wherever this is asked."""
        if self.status != self.Status.ACTIVE:
            return False
        if self.live_operator_id is None:
            return True
        live = self.live_operator
        assert live is not None  # its id is set
        return live.is_active

    @property
    def mode(self) -> str:
        """``test`` for a sandbox operator, ``live`` otherwise (every API body says which)."""
        return "test" if self.is_sandbox else "live"


class OperatorApiKey(models.Model):
    """An operator API credential: ``gop_<prefix>_<secret>`` (``gop_test_<prefix>_<secret>``
    for a sandbox operator's), only its hash is stored."""

    operator = models.ForeignKey(Operator, on_delete=models.PROTECT, related_name="api_keys")
    name = models.CharField(max_length=100, default="default")
    prefix = models.CharField(max_length=16, unique=True)
    key_hash = models.CharField(max_length=64)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    objects = CredentialQuerySet.as_manager()

    class Meta:
        verbose_name = "operator API key"

    def __str__(self) -> str:
        return f"{self.operator.slug}:{self.prefix}"


class OperatorSigningSecret(models.Model):
    """A secret for HMAC request signing. Several may be active during a rotation."""

    operator = models.ForeignKey(Operator, on_delete=models.PROTECT, related_name="signing_secrets")
    # Needed in clear to verify signatures, so encrypted at rest rather than hashed.
    secret = EncryptedTextField()
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.operator.slug} signing secret #{self.pk}"


class Player(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "active"
        SUSPENDED = "suspended"
        CLOSED = "closed"

    class KycStatus(models.TextChoices):
        NONE = "none"
        PENDING = "pending"
        VERIFIED = "verified"
        REJECTED = "rejected"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    operator = models.ForeignKey(Operator, on_delete=models.PROTECT, related_name="players")
    external_ref = models.CharField(max_length=128)
    display_name = models.CharField(max_length=64, blank=True, default="")
    wallet_currency = models.CharField(max_length=3)
    display_currency = models.CharField(max_length=3)
    locale = models.CharField(max_length=16, default="en")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    kyc_status = models.CharField(max_length=16, choices=KycStatus.choices, default=KycStatus.NONE)
    # The player's name for others (network tables, leaderboards: R15), unique whatever the case,
    # never the external_ref, NULL until chosen; leaderboard_opt_out: on no leaderboard (R15).
    screen_name = models.CharField(max_length=SCREEN_NAME_MAX_LENGTH, null=True, blank=True)  # noqa: DJ001
    leaderboard_opt_out = models.BooleanField(default=False, db_default=False)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    objects = CredentialQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=("operator", "external_ref"), name="player_external_ref_unique"
            ),
            models.UniqueConstraint(Lower("screen_name"), name="player_screen_name_unique_ci"),
        ]
        indexes = [models.Index(fields=("operator", "created_at"))]
        # change_player alone changes KYC status and status (risk); the rest of the player's
        # editable fields also needs this (docs/backoffice.md "Roles").
        permissions = [
            (
                "change_player_profile",
                "Can change a player's display name, screen name, locale and display currency",
            )
        ]

    def __str__(self) -> str:
        return f"{self.operator.slug}/{self.external_ref}"

    @property
    def is_active(self) -> bool:
        return self.status == self.Status.ACTIVE


class Network(models.Model):
    """The platform's player network (docs/network.md): one row at most. Network rooms belong
    to ``operator``, a platform-owned operator row that no API key authenticates as; players
    of the member operators meet at their tables."""

    operator = models.OneToOneField(Operator, on_delete=models.PROTECT, related_name="network")
    # The network's share of the fee of each network game, in basis points; the rest is
    # shared among the operators by their players' contributions to the pot.
    fee_share_bps = models.PositiveIntegerField(default=2000)
    # Whether a player may see which operator an opponent at a network table belongs to.
    reveal_operators = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(fee_share_bps__lte=10_000), name="network_fee_share_at_most_all"
            ),
            # One network: a constant unique expression allows a single row.
            models.UniqueConstraint(models.Value(1), name="network_single_row"),
        ]

    def __str__(self) -> str:
        return f"network {self.operator_id}"


class NetworkMembership(models.Model):
    """An operator's opt-in to the network: to every network room (``all_rooms``) or to the
    rooms it opts into one by one (games.NetworkRoomOptIn). ``left_at`` set: opted out."""

    operator = models.OneToOneField(
        Operator, on_delete=models.PROTECT, related_name="network_membership"
    )
    all_rooms = models.BooleanField(default=False)
    joined_at = models.DateTimeField(default=timezone.now)
    left_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"network member {self.operator_id}"

    @property
    def is_member(self) -> bool:
        return self.left_at is None


class PlayerSession(models.Model):
    """A short-lived bearer token an operator mints for one of its players."""

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="sessions")
    token_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    expires_at = models.DateTimeField()
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    # The shipped language the game launch asked for (``lang``), "" when none: the player's
    # requests speak it before the player's stored locale (gin_platform/i18n/languages.py).
    lang = models.CharField(max_length=8, blank=True, default="", db_default="")

    objects = CredentialQuerySet.as_manager()

    def __str__(self) -> str:
        return f"session #{self.pk} of {self.player}"

    def is_valid_at(self, moment) -> bool:
        return self.revoked_at is None and moment < self.expires_at


class OperatorOrigin(models.Model):
    """A web origin (``scheme://host[:port]``) where the operator's sites run: browsers there
    may call the API (CORS) and open sockets (docs/browser-clients.md)."""

    operator = models.ForeignKey(Operator, on_delete=models.CASCADE, related_name="origins")
    # Normalised by gin_platform.http.cors.normalize_origin: lower case, no default port, no path.
    origin = models.CharField(max_length=300, db_index=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=("operator", "origin"), name="operator_origin_unique")
        ]

    def __str__(self) -> str:
        return f"{self.operator.slug}: {self.origin}"


class LaunchToken(models.Model):
    """A single-use token that opens the hosted table page for one player (``glt_``, only
    its hash stored): the page exchanges it for a player session (docs/browser-clients.md)."""

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="launch_tokens")
    token_hash = models.CharField(max_length=64, unique=True)
    # What the page opens: {"mode": "lobby" | "watch", "match": id | None, "return_url": ...}.
    options = models.JSONField(default=dict, blank=True, encoder=DjangoJSONEncoder)
    # The audit actor that minted it (an operator API key: "operator" / "key:<prefix>").
    created_by_type = models.CharField(max_length=16)
    created_by_id = models.CharField(max_length=64, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)
    # The shipped language the launch asked for (``lang``), "" when none; its session's.
    lang = models.CharField(max_length=8, blank=True, default="", db_default="")
    # The session the exchange minted.
    session = models.OneToOneField(
        PlayerSession, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        indexes = [models.Index(fields=("expires_at",))]

    def __str__(self) -> str:
        return f"launch token #{self.pk} of {self.player}"


class SocketTicket(models.Model):
    """A single-use, 30-second ticket for one WebSocket (``gst_``, only its hash stored): a
    player's session's, or else an operator's API key's, for a socket that only watches."""

    player = models.ForeignKey(Player, models.CASCADE, null=True, related_name="+")
    session = models.ForeignKey(PlayerSession, models.CASCADE, null=True, related_name="+")
    api_key = models.ForeignKey(OperatorApiKey, models.CASCADE, null=True, related_name="+")
    token_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=("expires_at",))]

    def __str__(self) -> str:
        return f"socket ticket #{self.pk} of {self.player or self.api_key}"


class IdempotencyRecord(models.Model):
    """One operator write, keyed by (operator, Idempotency-Key) (README "API conventions")."""

    class State(models.TextChoices):
        IN_FLIGHT = "in_flight"
        COMPLETED = "completed"

    operator = models.ForeignKey(Operator, on_delete=models.CASCADE)
    key = models.CharField(max_length=255)
    fingerprint = models.CharField(max_length=64)
    method = models.CharField(max_length=8)
    path = models.CharField(max_length=512)
    state = models.CharField(max_length=16, choices=State.choices, default=State.IN_FLIGHT)
    # Who holds the record while in flight; a takeover of a stale record changes it, so the
    # slow original can no longer complete (its effects roll back with its transaction).
    claim = models.UUIDField(default=uuid.uuid4)
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    # The first response, with every secret in it (API key, session token, signing or
    # webhook secret) replaced by "[withheld]": secrets are shown once and never stored.
    response_body = models.JSONField(null=True, blank=True, encoder=DjangoJSONEncoder)
    # True when secrets were withheld from response_body: a replay then answers the
    # secret-not-replayable problem instead of the body (gin_platform/http/idempotency.py).
    secret_withheld = models.BooleanField(default=False, db_default=False)
    # Records older than IDEMPOTENCY_RETENTION_SECONDS are deleted by the beat job
    # prune-expired-records; a key replayed after that is a new request.
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=("operator", "key"), name="idempotency_key_unique"),
            models.CheckConstraint(
                condition=Q(state="in_flight") | Q(response_status__isnull=False),
                name="idempotency_completed_has_response",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.operator_id}:{self.key}"


class AuditEvent(models.Model):
    """An append-only record of every state change, written in the change's transaction."""

    class ActorType(models.TextChoices):
        OPERATOR = "operator"
        PLAYER = "player"
        STAFF = "staff"
        SYSTEM = "system"

    operator = models.ForeignKey(
        Operator, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    actor_type = models.CharField(max_length=16, choices=ActorType.choices)
    actor_id = models.CharField(max_length=64, blank=True, default="")
    action = models.CharField(max_length=64)
    object_type = models.CharField(max_length=64)
    object_id = models.CharField(max_length=64)
    data = models.JSONField(default=dict, blank=True, encoder=DjangoJSONEncoder)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ("-created_at", "-id")
        indexes = [models.Index(fields=("object_type", "object_id"))]

    def __str__(self) -> str:
        return f"{self.action} {self.object_type}:{self.object_id}"


class WebhookDelivery(models.Model):
    """One event for one operator's webhook URL, delivered at least once (docs/webhooks.md).

    The id is the event id receivers use to drop duplicates.
    """

    class Status(models.TextChoices):
        PENDING = "pending"
        DELIVERED = "delivered"
        FAILED = "failed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    operator = models.ForeignKey(Operator, on_delete=models.PROTECT, related_name="webhooks")
    event_type = models.CharField(max_length=64)
    payload = models.JSONField(encoder=DjangoJSONEncoder)
    url = models.URLField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    attempt_count = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(default=timezone.now, db_index=True)
    created_at = models.DateTimeField(default=timezone.now)
    delivered_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True, default="")

    class Meta:
        verbose_name_plural = "webhook deliveries"
        indexes = [models.Index(fields=("status", "next_attempt_at"))]

    def __str__(self) -> str:
        return f"{self.event_type} -> {self.operator.slug} ({self.status})"


class WebhookAttempt(models.Model):
    """Every attempt at a delivery is logged, successful or not."""

    delivery = models.ForeignKey(WebhookDelivery, on_delete=models.CASCADE, related_name="attempts")
    number = models.PositiveIntegerField()
    started_at = models.DateTimeField(default=timezone.now)
    duration_ms = models.PositiveIntegerField(default=0)
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    # No longer written (the receiver's body is never logged) and emptied by migration 0003;
    # kept one release so the previous release's code can still read the table.
    response_excerpt = models.CharField(max_length=500, blank=True, default="")
    # A short generic class ("HTTP 503", "timeout", "refused: private address"), never the
    # target's answer or a socket error text.
    error = models.CharField(max_length=500, blank=True, default="")

    class Meta:
        ordering = ("number",)
        constraints = [
            models.UniqueConstraint(fields=("delivery", "number"), name="webhook_attempt_unique")
        ]

    def __str__(self) -> str:
        return f"attempt {self.number} of {self.delivery_id}"


class TransactionNow(Now):
    """The time the current transaction began (``CURRENT_TIMESTAMP`` on PostgreSQL).

    Every event a transaction records gets the same ``created_at``, never later than the
    start of the transaction; the events API reads up to the start of the oldest transaction
    still running, so an event can never appear behind a cursor
    (gin_platform/events/event_log.py)."""

    def as_postgresql(self, compiler, connection, **extra_context):
        return self.as_sql(compiler, connection, template="CURRENT_TIMESTAMP", **extra_context)


class OperatorEvent(models.Model):
    """Something that changed for an operator (docs/webhooks.md "Event types"), recorded in
    the transaction that made it true whether or not the operator has a webhook URL. The id
    is the event id: the webhook body's ``id`` and the events API's."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    operator = models.ForeignKey(Operator, on_delete=models.CASCADE, related_name="events")
    type = models.CharField(max_length=64)
    created_at = models.DateTimeField(db_default=TransactionNow(), editable=False)
    data = models.JSONField(encoder=DjangoJSONEncoder)

    class Meta:
        indexes = [
            models.Index(fields=("operator", "created_at", "id"), name="operator_event_feed"),
            models.Index(fields=("created_at",), name="operator_event_created"),
        ]

    def __str__(self) -> str:
        return f"{self.type} {self.pk}"


class OperatorWebhookSubscription(models.Model):
    """The event types an operator's webhook receives; no row: every type (``["*"]``)."""

    operator = models.OneToOneField(
        Operator, on_delete=models.CASCADE, primary_key=True, related_name="webhook_subscription"
    )
    event_types = models.JSONField(default=list)
    updated_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"{self.operator_id}: {', '.join(self.event_types)}"


class StaffOperatorScope(models.Model):
    """Limits a staff user to some operators (docs/backoffice.md "Operator scope"): a user
    with rows sees only those operators' objects, in the staff API and the admin; a user
    without any row sees every operator."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="operator_scopes"
    )
    operator = models.ForeignKey(Operator, on_delete=models.CASCADE, related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=("user", "operator"), name="staff_scope_unique")
        ]

    def __str__(self) -> str:
        return f"{self.user_id} -> {self.operator_id}"


class StaffChangeRequest(models.Model):
    """A change of a staff user's access (docs/backoffice.md "Staff access"): their active,
    staff and superuser flags, roles (groups), own permissions and operator scope. Proposed
    by one unscoped staff member, executed only when another approves (four eyes, as the
    wallet's approval requests): gin_platform/staff/access.py. ``changes`` maps each field
    that changes to ``[before, after]`` as they were proposed; the execution refuses it if
    the user's access no longer matches ``before``."""

    class Status(models.TextChoices):
        PENDING = "pending"
        EXECUTED = "executed"
        REJECTED = "rejected"
        FAILED = "failed"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    changes = models.JSONField(default=dict, encoder=DjangoJSONEncoder)
    reason = models.CharField(max_length=500)
    proposed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    proposed_at = models.DateTimeField(default=timezone.now)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_note = models.CharField(max_length=500, blank=True, default="")

    class Meta:
        ordering = ("-proposed_at", "-id")
        indexes = [models.Index(fields=("status", "proposed_at"), name="staff_change_status")]
        permissions = [
            ("propose_staff_change", "Can propose a change of a staff user's access"),
            ("approve_staff_change", "Can approve a change of a staff user's access"),
        ]

    def __str__(self) -> str:
        return f"access of {self.user} #{self.pk} ({self.status})"


class Heartbeat(models.Model):
    """When each tier last proved it could work (gin_platform/heartbeat.py): ``web`` (a web
    process reached the database and Redis, so moves could be taken) and ``beat``."""

    source = models.CharField(max_length=16, primary_key=True)
    beat_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.source} heartbeat at {self.beat_at:%Y-%m-%d %H:%M:%S}"


class Outage(models.Model):
    """A span in which the platform could not take moves (R13): the web heartbeat stopped.
    ``applied_at``: when games moved the deadlines on, or voided the matches, for it."""

    started_at = models.DateTimeField()
    ended_at = models.DateTimeField()
    recorded_at = models.DateTimeField(default=timezone.now)
    applied_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("started_at",)
        indexes = [models.Index(fields=("applied_at",), name="outage_unapplied")]
        constraints = [
            models.CheckConstraint(
                condition=Q(ended_at__gte=models.F("started_at")), name="outage_ends_after_start"
            )
        ]

    def __str__(self) -> str:
        return f"outage {self.started_at:%Y-%m-%d %H:%M:%S} ({self.seconds:.0f} s)"

    @property
    def seconds(self) -> float:
        return (self.ended_at - self.started_at).total_seconds()
