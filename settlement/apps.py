from django.apps import AppConfig

from games.signals import match_finished


class SettlementConfig(AppConfig):
    name = "settlement"
    verbose_name = "Settlement"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Imported here, not at the top: the tasks and the receiver import settlement's
        # models, which Django loads only once the app registry is ready. The services
        # queue the tasks by name (settlement.services): imported here, they are registered,
        # so eager Celery (the demo, tests) runs them in any process.
        import settlement.tasks  # noqa: F401, PLC0415 (the models load first)
        from settlement.receivers import enqueue_settlement  # noqa: PLC0415 (the same)

        match_finished.connect(enqueue_settlement, dispatch_uid="settlement.enqueue")
