"""Re-encrypt every secret stored at rest with the first key of SECRETS_ENCRYPTION_KEY.

Key rotation (README, Operations): put the new key first (``SECRETS_ENCRYPTION_KEY=new,old``)
on every process, run this command once, then drop the old key.
"""

from django.core.management.base import BaseCommand
from django.db import transaction

from gin_platform.encryption import EncryptedTextField
from gin_platform.locks import lock_row
from gin_platform.models import Operator, OperatorSigningSecret

MODELS = (Operator, OperatorSigningSecret)


class Command(BaseCommand):
    help = "Re-encrypt the secrets stored at rest with the first SECRETS_ENCRYPTION_KEY key."

    def handle(self, *args, **options) -> None:
        total = 0
        for model in MODELS:
            fields = [f.name for f in model._meta.fields if isinstance(f, EncryptedTextField)]
            for pk in model.objects.values_list("pk", flat=True).iterator():
                with transaction.atomic():
                    # Reading decrypts with whichever key matches; saving encrypts with the
                    # first key.
                    row = lock_row(model, pk)
                    row.save(update_fields=fields)
                total += 1
        self.stdout.write(f"re-encrypted the secrets of {total} rows")
