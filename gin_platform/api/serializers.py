"""Input and output serializers of the platform endpoints (thin: shape only, no rules)."""

from django.utils import timezone
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from gin_platform.api.fields import TargetUrl
from gin_platform.api.inputs import StrictInput
from gin_platform.models import (
    Operator,
    OperatorApiKey,
    OperatorOrigin,
    Player,
    PlayerSession,
    WebhookDelivery,
)
from gin_platform.tenancy.jurisdictions import JURISDICTIONS

MODE_HELP = 'live, or test for the sandbox (gop_test_ keys; docs/api.md "Sandbox")'


class OperatorOutput(serializers.ModelSerializer):
    mode = serializers.ChoiceField(choices=("live", "test"), read_only=True, help_text=MODE_HELP)

    class Meta:
        model = Operator
        fields = (
            "id",
            "name",
            "slug",
            "mode",
            "status",
            "base_currency",
            "webhook_url",
            "require_signed_requests",
            "jurisdiction",
            "reality_check_minutes",
            "created_at",
        )


# A player's KYC statuses, for other apps' serializers (wallet) that answer one.
KYC_STATUSES = Player.KycStatus.choices


class PlayerCreateInput(StrictInput):
    external_ref = serializers.CharField(max_length=128)
    wallet_currency = serializers.CharField(max_length=3, required=False)
    display_currency = serializers.CharField(max_length=3, required=False)
    locale = serializers.CharField(max_length=16, required=False, default="en")
    display_name = serializers.CharField(
        max_length=64, required=False, default="", allow_blank=True
    )
    kyc_status = serializers.ChoiceField(
        choices=Player.KycStatus.choices, required=False, default=Player.KycStatus.NONE
    )


class PlayerUpdateInput(StrictInput):
    display_currency = serializers.CharField(max_length=3, required=False)
    locale = serializers.CharField(max_length=16, required=False)
    display_name = serializers.CharField(max_length=64, required=False, allow_blank=True)
    status = serializers.ChoiceField(choices=Player.Status.choices, required=False)
    kyc_status = serializers.ChoiceField(choices=Player.KycStatus.choices, required=False)


class PlayerOutput(serializers.ModelSerializer):
    class Meta:
        model = Player
        fields = (
            "id",
            "external_ref",
            "display_name",
            "wallet_currency",
            "display_currency",
            "locale",
            "status",
            "kyc_status",
            "screen_name",
            "created_at",
        )
        read_only_fields = ("screen_name",)


class LinkIdentifiersInput(StrictInput):
    """What may link the player to other players (docs/integrity.md): kept only as a
    keyed hash, never stored or logged as sent."""

    device_id = serializers.CharField(
        required=False,
        max_length=200,
        help_text="Your id of the player's device (an app install id, a browser fingerprint): "
        "players seen on one device are never seated together.",
    )
    client_address = serializers.IPAddressField(
        required=False,
        help_text="The IP address the player's client reached you from (IPv4 or IPv6). Players "
        "seen at one address (a household) are never seated together; private and loopback "
        "addresses are ignored.",
    )


class PlayerSessionCreateInput(LinkIdentifiersInput):
    ttl_seconds = serializers.IntegerField(required=False, min_value=1)


class PlayerSessionOutput(serializers.ModelSerializer):
    player_id = serializers.UUIDField(source="player.pk", read_only=True)

    class Meta:
        model = PlayerSession
        fields: tuple[str, ...] = ("id", "player_id", "created_at", "expires_at", "revoked_at")


class PlayerSessionIssuedOutput(PlayerSessionOutput):
    token = serializers.CharField(read_only=True, help_text="Shown once; never stored.")

    class Meta(PlayerSessionOutput.Meta):
        fields = (*PlayerSessionOutput.Meta.fields, "token")


class HealthChecksOutput(serializers.Serializer):
    database = serializers.ChoiceField(choices=("ok", "down"))
    broker = serializers.ChoiceField(choices=("ok", "down"))
    channel_layer = serializers.ChoiceField(
        choices=("ok", "down"), required=False, help_text="Staff only"
    )


class HealthDetailOutput(serializers.Serializer):
    database = serializers.CharField()
    broker = serializers.CharField()
    channel_layer = serializers.CharField()


class LivenessOutput(serializers.Serializer):
    status = serializers.ChoiceField(choices=("ok",))


class HealthOutput(serializers.Serializer):
    status = serializers.ChoiceField(choices=("ok", "degraded"))
    checks = HealthChecksOutput()
    detail = HealthDetailOutput(
        required=False, help_text="Staff only: the reason behind each check's verdict."
    )
    server = serializers.ChoiceField(
        choices=("asgi", "wsgi"),
        required=False,
        help_text="Staff only: how this process serves (asgi: HTTP and WebSockets).",
    )


class ProblemTypeOutput(serializers.Serializer):
    type = serializers.CharField()
    slug = serializers.CharField()
    status = serializers.IntegerField()
    title = serializers.CharField()
    description = serializers.CharField()


class OperatorUpdateInput(StrictInput):
    webhook_url = TargetUrl(
        required=False,
        allow_blank=True,
        help_text='Where we POST your webhooks; checked as docs/webhooks.md "Where a webhook '
        'may go" says (422 webhook-url-invalid). Empty: no webhooks',
    )
    require_signed_requests = serializers.BooleanField(required=False)
    jurisdiction = serializers.ChoiceField(
        choices=JURISDICTIONS,
        required=False,
        help_text="The jurisdiction profile your players play under "
        '(docs/player-protection.md "Profiles"): uk, es, it, mga or none',
    )
    reality_check_minutes = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=0,
        help_text="Minutes between reality checks, within the profile's bounds (422 "
        "reality-check-interval-invalid); null: the profile's default; 0: none, where the "
        "profile allows it",
    )


class SecretIssuedOutput(serializers.Serializer):
    id = serializers.IntegerField(required=False)
    secret = serializers.CharField(help_text="Shown once; store it now.")
    created_at = serializers.DateTimeField()


class SigningSecretOutput(serializers.Serializer):
    id = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    revoked_at = serializers.DateTimeField(allow_null=True)


API_KEY_STATUSES = ("active", "revoking", "revoked")


class ApiKeyOutput(serializers.ModelSerializer):
    """An operator API key as its owner sees it: never the key, never its hash."""

    prefix = serializers.CharField(
        read_only=True,
        help_text="The public part: the key reads gop_<prefix>_<secret> (live) or "
        "gop_test_<prefix>_<secret> (test).",
    )
    mode = serializers.ChoiceField(
        choices=("live", "test"), source="operator.mode", read_only=True, help_text=MODE_HELP
    )
    status = serializers.SerializerMethodField(
        help_text=(
            "active; revoking (a rotation's grace period: it works until revoked_at); revoked"
        )
    )
    current = serializers.SerializerMethodField(
        help_text="True for the key this request was made with."
    )

    class Meta:
        model = OperatorApiKey
        fields: tuple[str, ...] = (
            "id",
            "prefix",
            "mode",
            "name",
            "status",
            "current",
            "created_at",
            "last_used_at",
            "revoked_at",
        )
        read_only_fields = fields

    @extend_schema_field(serializers.ChoiceField(choices=API_KEY_STATUSES))
    def get_status(self, api_key: OperatorApiKey) -> str:
        if api_key.revoked_at is None:
            return "active"
        return "revoking" if api_key.revoked_at > timezone.now() else "revoked"

    def get_current(self, api_key: OperatorApiKey) -> bool:
        request = self.context.get("request")
        calling = getattr(getattr(request, "user", None), "api_key", None)
        return calling is not None and calling.pk == api_key.pk


class ApiKeyCreateInput(StrictInput):
    name = serializers.CharField(max_length=100, required=False, default="default")
    mode = serializers.ChoiceField(
        choices=("live", "test"),
        required=False,
        help_text="test: a gop_test_ key of the sandbox (created on first use); live: a live "
        "key. Default: the calling key's mode. A test key cannot create live keys.",
    )


class ApiKeyListQuery(serializers.Serializer):
    mode = serializers.ChoiceField(choices=("live", "test"), required=False)


class ApiKeyRotateInput(StrictInput):
    grace_seconds = serializers.IntegerField(
        required=False,
        default=0,
        help_text=(
            "How long the old key keeps working, 0 to 604800 (7 days). 0, the default: it "
            "stops at once."
        ),
    )
    name = serializers.CharField(
        max_length=100, required=False, help_text="The new key's name (default: the old one's)."
    )


class ApiKeyIssuedOutput(ApiKeyOutput):
    key = serializers.CharField(read_only=True, help_text="Shown once; never stored.")

    class Meta(ApiKeyOutput.Meta):
        fields = (*ApiKeyOutput.Meta.fields, "key")


class ApiKeyRotatedOutput(ApiKeyIssuedOutput):
    replaces = ApiKeyOutput(
        read_only=True, help_text="The old key: revoked, or revoking until its revoked_at."
    )

    class Meta(ApiKeyIssuedOutput.Meta):
        fields = (*ApiKeyIssuedOutput.Meta.fields, "replaces")


class WebhookAttemptOutput(serializers.Serializer):
    number = serializers.IntegerField()
    started_at = serializers.DateTimeField()
    duration_ms = serializers.IntegerField()
    response_status = serializers.IntegerField(allow_null=True)
    error = serializers.CharField()


class WebhookDeliveryOutput(serializers.Serializer):
    id = serializers.UUIDField()
    event_type = serializers.CharField(
        help_text="game.finished or game.settled: the OpenAPI document's `webhooks` describe each"
    )
    url = serializers.URLField()
    status = serializers.ChoiceField(
        choices=WebhookDelivery.Status.choices,
        help_text="pending (more attempts to come), delivered (a 2xx), failed (10 attempts)",
    )
    attempt_count = serializers.IntegerField()
    next_attempt_at = serializers.DateTimeField()
    created_at = serializers.DateTimeField()
    delivered_at = serializers.DateTimeField(allow_null=True)
    last_error = serializers.CharField()
    payload = serializers.JSONField()
    attempts = WebhookAttemptOutput(many=True, source="attempts.all")


class Money(serializers.Serializer):
    """An amount as the API speaks it: a decimal string in the currency's minor unit."""

    amount = serializers.CharField(help_text='Decimal string, e.g. "12.50"')
    currency = serializers.CharField(help_text="ISO 4217 code (XGC: practice chips)")


class DisplayMoney(Money):
    """An amount converted into a player's display currency (R11): shown only, nothing moves."""

    rate = serializers.CharField(help_text="1 unit of the amount's currency in this currency")
    as_of = serializers.DateTimeField(allow_null=True)


DISPLAY_HELP = (
    "The amount in the player's display currency at the latest rate (R11); null for practice "
    "chips or when no rate is known."
)


class DisplayedMoney(Money):
    """An amount, and the same amount in the player's display currency (R11)."""

    display = DisplayMoney(allow_null=True, help_text=DISPLAY_HELP)


class OptionallyDisplayedMoney(Money):
    """An amount in a body that a player or someone else may read: ``display`` (R11) is there
    only when the reader is a player (operators and watchers get the amount alone)."""

    display = DisplayMoney(required=False, allow_null=True, help_text=DISPLAY_HELP)


class OperatorOriginInput(StrictInput):
    origin = serializers.CharField(
        max_length=300,
        help_text="scheme://host[:port], e.g. https://casino.example.com (no path, no wildcard)",
    )


class OperatorOriginOutput(serializers.ModelSerializer):
    origin = serializers.CharField(
        read_only=True, help_text="Normalised: lower case, no default port."
    )

    class Meta:
        model = OperatorOrigin
        fields = ("id", "origin", "created_at")
        read_only_fields = fields


class SocketTicketOutput(serializers.Serializer):
    ticket = serializers.CharField(
        help_text="gst_...: opens one socket (?ticket=) before expires_at; never stored."
    )
    expires_at = serializers.DateTimeField()
    ttl_seconds = serializers.IntegerField()


class LaunchInput(LinkIdentifiersInput):
    mode = serializers.ChoiceField(
        choices=("lobby", "watch"),
        required=False,
        default="lobby",
        help_text="lobby (the default): the player's lobby; watch: watch `match`.",
    )
    match = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=1,
        max_value=2**63 - 1,
        help_text="With mode watch (and only then): the id of a match this operator's players "
        "may watch (R11); any other is 422 launch-options-invalid.",
    )
    return_url = serializers.CharField(
        required=False,
        allow_null=True,
        default=None,
        max_length=2000,
        help_text="Where the page's exit button sends the player: an https:// URL.",
    )
    lang = serializers.CharField(
        required=False,
        allow_null=True,
        allow_blank=True,
        default=None,
        trim_whitespace=False,
        help_text="The player's language, a BCP 47 tag (es, it-IT, en-GB): the page and the "
        "player's API answers speak the shipped language that serves it best (en, es, it, "
        "de, fr, pt). "
        "A language not shipped is as if left out (the player's locale, then the browser's "
        "language decide); a tag that is not well formed is 422 launch-options-invalid.",
    )


class LaunchOptionsOutput(serializers.Serializer):
    mode = serializers.ChoiceField(choices=("lobby", "watch"))
    match = serializers.IntegerField(allow_null=True)
    return_url = serializers.CharField(allow_null=True)


class LaunchIssuedOutput(serializers.Serializer):
    url = serializers.CharField(
        help_text="<base>/play/?lang=es#launch=glt_...: open it in the player's browser once, "
        "before launch_token_expires_at. The token is in the fragment, so it never reaches a "
        "server log. `?lang=` is there when the page's language is known (`lang`)."
    )
    launch_token = serializers.CharField(help_text="glt_...: the token in `url`; never stored.")
    launch_token_expires_at = serializers.DateTimeField()
    player_id = serializers.UUIDField()
    options = LaunchOptionsOutput()
    lang = serializers.CharField(
        allow_null=True,
        help_text="The shipped language (en, es, it, de, fr, pt) the page opens in: the "
        "launch's `lang`, "
        "else the player's locale's; null when neither is shipped (the browser's language "
        "then decides).",
    )


class LaunchSessionInput(StrictInput):
    launch_token = serializers.CharField(max_length=200, help_text="glt_... from the launch URL")


class LaunchedPlayerOutput(serializers.Serializer):
    """The player as they may see themselves: never the operator's external_ref."""

    id = serializers.UUIDField()
    screen_name = serializers.CharField(source="display_name")
    display_currency = serializers.CharField()
    wallet_currency = serializers.CharField()
    locale = serializers.CharField()


class LaunchSessionOutput(serializers.Serializer):
    token = serializers.CharField(help_text="gps_...: the player session token; never stored.")
    expires_at = serializers.DateTimeField()
    player = LaunchedPlayerOutput()
    options = LaunchOptionsOutput()
    lang = serializers.CharField(
        help_text="The language (en, es, it, de, fr, pt) the session's answers and problems "
        "speak: the "
        "launch's `lang`, else the player's locale, else this request's Accept-Language, "
        "else en."
    )


# --- The network (docs/network.md) -----------------------------------------------------------
class NetworkMembershipInput(StrictInput):
    member = serializers.BooleanField(
        help_text="true joins the network (again after leaving), false leaves it."
    )
    all_rooms = serializers.BooleanField(
        required=False,
        help_text="Offer every network room (true) or only the rooms opted into one by one "
        "(PUT /operators/me/network/rooms/{id}). Unchanged when left out.",
    )


class NetworkMembershipOutput(serializers.Serializer):
    member = serializers.BooleanField(help_text="A member now (joined and not left).")
    all_rooms = serializers.BooleanField()
    joined_at = serializers.DateTimeField(allow_null=True)
    left_at = serializers.DateTimeField(allow_null=True)
    fee_share_bps = serializers.IntegerField(
        help_text="The network's share of each network game's fee, in basis points."
    )
    reveal_operators = serializers.BooleanField(
        help_text="Whether players see which operator an opponent at a network table plays "
        "for (its name only)."
    )
