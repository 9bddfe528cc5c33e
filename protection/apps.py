from django.apps import AppConfig


class ProtectionConfig(AppConfig):
    name = "protection"
    verbose_name = "Player protection"
    default_auto_field = "django.db.models.BigAutoField"
