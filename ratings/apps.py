from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "ratings"
    verbose_name = "Ratings"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Imported here, not at the top: they import the models, which Django loads only once
        # the app registry is ready. games announces a finished match with a signal; the
        # receiver queues its rating (games never imports us).
        from games.signals import match_finished  # noqa: PLC0415
        from ratings import tasks  # noqa: F401, PLC0415 (registered in every process)
        from ratings.receivers import rate_finished_match  # noqa: PLC0415

        match_finished.connect(rate_finished_match, dispatch_uid="ratings.rate")
