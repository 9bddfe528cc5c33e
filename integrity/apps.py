from django.apps import AppConfig


class IntegrityConfig(AppConfig):
    name = "integrity"
    verbose_name = "Integrity"
    default_auto_field = "django.db.models.BigAutoField"
