from django.apps import AppConfig


class ProtectionConfig(AppConfig):
    name = "protection"
    verbose_name = "Player protection"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Imported here, not at the top: the tasks import the models, which Django loads
        # only once the app registry is ready; imported, they are registered in every process.
        import protection.tasks  # noqa: F401, PLC0415 (the models load first)
