from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Imported here, not at the top: they import the models, which Django loads only once
        # the app registry is ready. games announces a finished match with a signal; the
        # receiver takes a tournament's matches to the bracket (games never imports us).
        from games.signals import match_finished, match_voided  # noqa: PLC0415
        from tournaments import tasks  # noqa: F401, PLC0415 (registered in every process)
        from tournaments.receivers import bracket_match_finished  # noqa: PLC0415

        match_finished.connect(bracket_match_finished, dispatch_uid="tournaments.bracket")
        # R13: a match voided after an interruption past the limit cancels its tournament
        # (R14 "Cancellation"); the same task takes it.
        match_voided.connect(bracket_match_finished, dispatch_uid="tournaments.bracket-void")
