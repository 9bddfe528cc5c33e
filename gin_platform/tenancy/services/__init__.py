"""State changes of tenancy, one module per concern (docs/api.md).

    operators       operators (staff), their settings, the webhook secret, signing secrets;
                    the real-currency rule
    network         the platform's network and each operator's membership (docs/network.md)
    sandbox         a live operator's sandbox twin, and which one a mode acts on
    api_keys        issuing, revoking and rotating an operator's API keys
    players         players and their sessions
    origins         the origins an operator registered (gin_platform/http/cors.py)
    launch          the game launch: single-use launch tokens, exchanged for a session
    socket_tickets  single-use tickets that open one socket (docs/realtime.md "Tickets")
    pruning         what is kept only for a while (beat: prune-expired-records)

One function per change, keyword-only and typed, atomic, each writing its audit row in the
same transaction (README "Architecture"). The modules import each other in one direction
(operators <- network, players; sandbox <- api_keys; players <- launch <- socket_tickets).
Import them from ``gin_platform.tenancy.services`` (this package re-exports every public
name); reads are in ``gin_platform.tenancy.selectors``.
"""

from gin_platform.tenancy.services.api_keys import (
    API_KEY_MAX_GRACE_SECONDS,
    API_KEY_NAME_MAX_LENGTH,
    ApiKeyGraceProblem,
    ApiKeyRevokedProblem,
    IssuedApiKey,
    LastApiKeyProblem,
    api_key_create,
    api_key_revoke,
    api_key_rotate,
)
from gin_platform.tenancy.services.launch import (
    LAUNCH_MODES,
    MAX_RETURN_URL_LENGTH,
    IssuedLaunchToken,
    LaunchedSession,
    LaunchOptionsInvalidProblem,
    claim_once,
    launch_token_create,
    launch_token_redeem,
)
from gin_platform.tenancy.services.network import (
    NetworkExistsProblem,
    network_create,
    network_membership_update,
    network_update,
)
from gin_platform.tenancy.services.operators import (
    RealityCheckIntervalInvalidProblem,
    SigningSecretRequiredProblem,
    UnknownCurrencyProblem,
    WebhookUrlInvalidProblem,
    operator_create,
    operator_update,
    real_currency,
    signing_secret_create,
    signing_secret_revoke,
    webhook_secret_rotate,
)
from gin_platform.tenancy.services.origins import (
    OriginExistsProblem,
    OriginInvalidProblem,
    operator_origin_create,
    operator_origin_delete,
)
from gin_platform.tenancy.services.players import (
    IssuedPlayerSession,
    PlayerExistsProblem,
    PlayerInactiveProblem,
    SessionTtlProblem,
    player_create,
    player_operator,
    player_session_create,
    player_session_revoke,
    player_update,
)
from gin_platform.tenancy.services.pruning import (
    expired_records_prune,
)
from gin_platform.tenancy.services.sandbox import (
    SANDBOX_SLUG_SUFFIX,
    operator_for_mode,
    sandbox_operator_get_or_create,
)
from gin_platform.tenancy.services.socket_tickets import (
    IssuedSocketTicket,
    operator_socket_ticket_create,
    socket_ticket_create,
    socket_ticket_redeem,
    watch_socket_ticket_redeem,
)

__all__ = [
    "API_KEY_MAX_GRACE_SECONDS",
    "API_KEY_NAME_MAX_LENGTH",
    "LAUNCH_MODES",
    "MAX_RETURN_URL_LENGTH",
    "SANDBOX_SLUG_SUFFIX",
    "ApiKeyGraceProblem",
    "ApiKeyRevokedProblem",
    "IssuedApiKey",
    "IssuedLaunchToken",
    "IssuedPlayerSession",
    "IssuedSocketTicket",
    "LastApiKeyProblem",
    "LaunchOptionsInvalidProblem",
    "LaunchedSession",
    "NetworkExistsProblem",
    "OriginExistsProblem",
    "OriginInvalidProblem",
    "PlayerExistsProblem",
    "PlayerInactiveProblem",
    "RealityCheckIntervalInvalidProblem",
    "SessionTtlProblem",
    "SigningSecretRequiredProblem",
    "UnknownCurrencyProblem",
    "WebhookUrlInvalidProblem",
    "api_key_create",
    "api_key_revoke",
    "api_key_rotate",
    "claim_once",
    "expired_records_prune",
    "launch_token_create",
    "launch_token_redeem",
    "network_create",
    "network_membership_update",
    "network_update",
    "operator_create",
    "operator_for_mode",
    "operator_origin_create",
    "operator_origin_delete",
    "operator_socket_ticket_create",
    "operator_update",
    "player_create",
    "player_operator",
    "player_session_create",
    "player_session_revoke",
    "player_update",
    "real_currency",
    "sandbox_operator_get_or_create",
    "signing_secret_create",
    "signing_secret_revoke",
    "socket_ticket_create",
    "socket_ticket_redeem",
    "watch_socket_ticket_redeem",
    "webhook_secret_rotate",
]
