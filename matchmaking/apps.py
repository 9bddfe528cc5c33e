from django.apps import AppConfig


class MatchmakingConfig(AppConfig):
    name = "matchmaking"
    verbose_name = "Matchmaking"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Imported here, not at the top: the tasks import the services and the models, which
        # Django loads only once the app registry is ready.
        from matchmaking import tasks  # noqa: F401, PLC0415 (registered in every process)
