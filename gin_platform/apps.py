from django.apps import AppConfig


class PlatformConfig(AppConfig):
    name = "gin_platform"
    label = "platform"
    verbose_name = "Platform"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from gin_platform import schema  # noqa: F401  (registers OpenAPI auth extensions)
