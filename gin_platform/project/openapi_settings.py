"""drf-spectacular's settings (the OpenAPI document, docs/api.md): its title, the webhooks
the platform sends, the hooks that post-process it and the names of its enums. Only names
(import strings) of the apps' objects, so settings can import it before the apps load."""

SPECTACULAR_SETTINGS = {
    "TITLE": "Gin Rummy wagering platform API",
    "DESCRIPTION": (
        "Operators manage players, wallets and sessions with an API key; players use a "
        "short-lived session token for the lobby, seats and game actions. Every error is "
        "RFC 9457 problem+json with a stable `type`."
    ),
    "VERSION": "1.0.0",
    # OpenAPI 3.1: the document lists the webhooks we send (``webhooks``, a 3.1 field).
    "OAS_VERSION": "3.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI (/api/v1/docs/) from drf-spectacular-sidecar's static files, served by the
    # app itself: no CDN, so the docs work offline and the page loads nothing from elsewhere.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # No validator badge: Swagger UI would send the schema to validator.swagger.io.
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    # Relative: the paths are served by the host that serves this document (/api/v1/schema/),
    # which differs per deployment; Swagger UI and generated clients resolve it against it.
    "SERVERS": [{"url": "/", "description": "The host that serves this document"}],
    # The events we POST to operators (docs/webhooks.md), with their payloads.
    "WEBHOOKS": [
        "settlement.api.webhooks.GAME_FINISHED",
        "settlement.api.webhooks.GAME_SETTLED",
        # The rest of the catalogue (gin_platform/events/catalogue.py).
        "gin_platform.api.event_webhooks.DEPOSIT_COMPLETED",
        "gin_platform.api.event_webhooks.DEPOSIT_REFUSED",
        "gin_platform.api.event_webhooks.WITHDRAWAL_COMPLETED",
        "gin_platform.api.event_webhooks.WITHDRAWAL_REFUSED",
        "gin_platform.api.event_webhooks.LIMIT_CHANGED",
        "gin_platform.api.event_webhooks.SELF_EXCLUSION_STARTED",
        "gin_platform.api.event_webhooks.TIME_OUT_STARTED",
        "gin_platform.api.event_webhooks.SEAT_TAKEN",
        "gin_platform.api.event_webhooks.SEAT_LEFT",
        "gin_platform.api.event_webhooks.HAND_ENDED",
        "gin_platform.api.event_webhooks.GAME_VOIDED",
        "gin_platform.api.event_webhooks.SETTLEMENT_FAILED",
        "gin_platform.api.event_webhooks.WALLET_CALL_FAILED",
        "gin_platform.api.event_webhooks.INTEGRITY_CASE_OPENED",
        "gin_platform.api.event_webhooks.INTEGRITY_CASE_ACTION",
        "gin_platform.api.event_webhooks.INTEGRITY_CASE_CLOSED",
        "gin_platform.api.event_webhooks.INTEGRITY_REPORT_RECEIVED",
        "gin_platform.api.event_webhooks.SESSION_STARTED",
        "gin_platform.api.event_webhooks.SESSION_REALITY_CHECK",
        "gin_platform.api.event_webhooks.SESSION_LIMIT_REACHED",
        "gin_platform.api.event_webhooks.SESSION_ENDED",
        "gin_platform.api.event_webhooks.PLAYER_FLAGGED",
        "gin_platform.api.event_webhooks.TOURNAMENT_REGISTERED",
        "gin_platform.api.event_webhooks.TOURNAMENT_UNREGISTERED",
        "gin_platform.api.event_webhooks.TOURNAMENT_STARTED",
        "gin_platform.api.event_webhooks.TOURNAMENT_MATCH_READY",
        "gin_platform.api.event_webhooks.TOURNAMENT_ELIMINATED",
        "gin_platform.api.event_webhooks.TOURNAMENT_PRIZE_PAID",
        "gin_platform.api.event_webhooks.TOURNAMENT_FINISHED",
        "gin_platform.api.event_webhooks.TOURNAMENT_CANCELLED",
    ],
    "COMPONENT_SPLIT_REQUEST": True,
    # The default enum hook, then ours: problem+json error responses, per-operation security,
    # the Idempotency-Key and RateLimit-* headers, the webhooks' headers, OpenAPI 3.1 nulls
    # (gin_platform/http/openapi.py).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "gin_platform.http.openapi.postprocess_schema",
    ],
    "ENUM_NAME_OVERRIDES": {
        "OperatorStatusEnum": "gin_platform.models.Operator.Status",
        "PlayerStatusEnum": "gin_platform.models.Player.Status",
        "HealthStatusEnum": [("ok", "ok"), ("degraded", "degraded")],
        "ApiKeyStatusEnum": [
            ("active", "active"),
            ("revoking", "revoking"),
            ("revoked", "revoked"),
        ],
        "HealthCheckStatusEnum": [("ok", "ok"), ("down", "down")],
        "WebhookDeliveryStatusEnum": "gin_platform.models.WebhookDelivery.Status",
        "LedgerTransactionKindEnum": "wallet.models.LedgerTransaction.Kind",
        "WalletLimitKindEnum": "wallet.models.LimitKind",
        "OperatorWalletModeEnum": "wallet.models.OperatorWallet.Mode",
        "ApprovalKindEnum": "wallet.models.ApprovalRequest.Kind",
        "ApprovalStatusEnum": "wallet.models.ApprovalRequest.Status",
        "LiveModeEnum": [("live", "live"), ("test", "test")],  # the sandbox, docs/api.md
        "LaunchModeEnum": [("lobby", "lobby"), ("watch", "watch")],
        # Games and settlement: closed sets as enums, each named once (several share a field
        # name such as status, state or kind; docs/api.md).
        "VariantEnum": "games.models.Variant",
        "RoomPurposeEnum": "games.models.Room.Purpose",
        "TableStatusEnum": "games.models.Table.Status",
        "MatchStatusEnum": "games.models.Match.Status",
        "SeatStateEnum": "games.models.Seat.State",
        "ForfeitReasonEnum": "games.models.Match.ForfeitReason",
        "LobbyTableStateEnum": [("empty", "empty"), ("waiting", "waiting"), ("playing", "playing")],
        "HandStatusEnum": [
            ("in_progress", "in_progress"),
            ("ended", "ended"),
            ("abandoned", "abandoned"),
        ],
        "FinishedHandStatusEnum": [("ended", "ended"), ("abandoned", "abandoned")],
        "HandPhaseEnum": "games.engine.PHASES",
        "ActionKindEnum": "games.engine.ACTION_KINDS",
        "MatchEventKindEnum": "games.api.choices.MATCH_EVENT_KINDS",
        "MatchEndReasonEnum": "games.api.choices.MATCH_END_REASONS",
        "PayoutComponentEnum": "settlement.api.serializers.PAYOUT_COMPONENTS",
        # Tournaments (docs/tournaments.md).
        "TournamentKindEnum": "tournaments.models.Tournament.Kind",
        "TournamentStatusEnum": "tournaments.models.Tournament.Status",
        "TournamentEntryStatusEnum": "tournaments.models.Entry.Status",
        "TournamentPaymentEnum": "tournaments.models.Entry.Payment",
        "BracketTableStatusEnum": "tournaments.models.BracketTable.Status",
        "TournamentOutReasonEnum": "tournaments.models.Entry.OutReason",
        "TournamentSeedingEnum": "tournaments.models.Tournament.Seeding",
        "RoundVariantEnum": [("ftk", "ftk"), ("match", "match")],
        "TournamentEndEnum": [("finished", "finished"), ("cancelled", "cancelled")],
        "TournamentRequestKindEnum": "tournaments.models.TournamentRequest.Kind",
        "TournamentRequestStatusEnum": "tournaments.models.TournamentRequest.Status",
        # Ratings (docs/ratings.md).
        "RatingFamilyEnum": "ratings.models.Family",
        # Leaderboards (docs/leaderboards.md); their periods are the limits' (PeriodEnum).
        "LeaderboardScopeEnum": "leaderboards.selectors.SCOPES",
        "LeaderboardBoardEnum": "leaderboards.selectors.BOARDS",
        # The quick seat (docs/matchmaking.md).
        "QuickSeatStatusEnum": "matchmaking.models.Ticket.Status",
        # Player protection: the markers of harm (docs/player-protection.md).
        "HarmRuleCodeEnum": "protection.models.HarmRuleCode",
        # A player's history (docs/player-protection.md "History"); the limits' periods and
        # the reports' categories keep the names they had before these shared their fields.
        "PeriodEnum": "wallet.models.LimitPeriod",
        "CategoryEnum": "integrity.models.PlayerReport.Reason",
        "HistoryPeriodEnum": "wallet.selectors.history.PERIODS",
        "HistoryCategoryEnum": "wallet.selectors.history.CATEGORIES",
        "HistoryCountedKindEnum": "wallet.selectors.history.COUNTED_KINDS",
        "HistoryOutcomeEnum": "games.protection_selectors.OUTCOMES",
    },
}
