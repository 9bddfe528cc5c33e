from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Imported here: selectors import the models, which need the app registry ready.
        from games.launch_answers import match_watchable
        from gin_platform.tenancy.watchable import register_match_watchable

        # The game launch's watch option asks games which matches a player may watch
        # (gin_platform/tenancy/watchable.py): gin_platform does not import games.
        register_match_watchable(match_watchable)
