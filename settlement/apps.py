from django.apps import AppConfig


class SettlementConfig(AppConfig):
    name = "settlement"
    verbose_name = "Settlement"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from games.signals import match_finished
        from settlement.receivers import enqueue_settlement

        match_finished.connect(enqueue_settlement, dispatch_uid="settlement.enqueue")
