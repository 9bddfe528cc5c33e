from django.apps import AppConfig


class WalletConfig(AppConfig):
    name = "wallet"
    verbose_name = "Wallet"
    default_auto_field = "django.db.models.BigAutoField"
