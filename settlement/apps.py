from django.apps import AppConfig


class SettlementConfig(AppConfig):
    name = "settlement"
    verbose_name = "Settlement"
    default_auto_field = "django.db.models.BigAutoField"
