from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Imported here, once the app registry is ready: each of these imports the models.
        from games import tasks  # noqa: F401, PLC0415 (registers the tasks the services queue by name)
        from games.launch_answers import match_watchable  # noqa: PLC0415 (the models: see above)
        from gin_platform.tenancy.watchable import register_match_watchable  # noqa: PLC0415 (idem)

        # The game launch's watch option asks games which matches a player may watch
        # (gin_platform/tenancy/watchable.py): gin_platform does not import games.
        register_match_watchable(match_watchable)

        # R13: a platform outage past its limit suspends the matches it touched, in the
        # transaction that records it (gin_platform/heartbeat.py does not import games).
        from games.services.interruptions import matches_suspend  # noqa: PLC0415 (idem)
        from gin_platform.heartbeat import outage_recorded  # noqa: PLC0415 (idem)

        outage_recorded.connect(matches_suspend, dispatch_uid="games.matches_suspend")

        # Every posting to a player's wallet tells the player's own socket once it has
        # committed (wallet/signals.py: the wallet does not import games).
        from games.realtime.publisher import players_wallet_changed  # noqa: PLC0415 (idem)
        from wallet.signals import player_money_moved  # noqa: PLC0415 (idem)

        player_money_moved.connect(players_wallet_changed, dispatch_uid="games.wallet_changed")

        # A polled game view's entry is read in the authentication gate's round trip
        # (games/realtime/view_cache.py; gin_platform does not import games).
        from games.realtime.view_cache import gate_keys  # noqa: PLC0415 (idem)
        from gin_platform.request_path.gate import prefetch_register  # noqa: PLC0415 (idem)

        prefetch_register(gate_keys)
