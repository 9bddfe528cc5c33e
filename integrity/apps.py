from django.apps import AppConfig

from gin_platform.tenancy.signals import identifiers_seen


class IntegrityConfig(AppConfig):
    name = "integrity"
    verbose_name = "Integrity"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Imported here, not at the top: the tasks and the receiver import integrity's
        # models, which Django loads only once the app registry is ready. The services queue
        # the tasks by name: imported here, they are registered in every process.
        import integrity.tasks  # noqa: F401, PLC0415 (the models load first)
        from integrity.receivers import identifiers_seen_receive  # noqa: PLC0415 (the same)

        identifiers_seen.connect(identifiers_seen_receive, dispatch_uid="integrity.marks")
