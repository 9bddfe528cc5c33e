"""Secrets encrypted at rest, no secret in stored responses, webhook logs without internals.

- The webhook secret and request-signing secrets become Fernet-encrypted text
  (gin_platform/encryption.py): the columns are widened to text, every existing value is
  encrypted with the first key of SECRETS_ENCRYPTION_KEY, and the fields become
  EncryptedTextField (same column type, nothing more to change in the database).
- Stored idempotent responses lose the secrets they held (API keys, session tokens,
  signing and webhook secrets): replaced by "[withheld]" and marked secret_withheld.
- Webhook attempt logs keep only status codes and generic error classes: the receivers'
  response excerpts are emptied and detailed error texts are reduced to their class.
- IdempotencyRecord.created_at is indexed for the pruning job; the webhook URL gets its
  validator (no schema change).

Rolling out: the previous release reads the encrypted column as the secret itself, so stop
its workers (they sign webhooks) and replace its web processes promptly after migrating;
meanwhile a webhook it signs fails verification and is retried by the new workers, and a
signed request it checks is refused (401) and can be retried.
"""

import django.utils.timezone
from django.db import migrations, models

import gin_platform.encryption
import gin_platform.events.webhook_targets

ENCRYPTED = (("Operator", "webhook_secret"), ("OperatorSigningSecret", "secret"))


def _looks_encrypted(value: str) -> bool:
    if not value.startswith(gin_platform.encryption.TOKEN_PREFIX):
        return False
    try:
        gin_platform.encryption.decrypt(value)
    except gin_platform.encryption.SecretDecryptionError:
        return False
    return True


def encrypt_existing(apps, schema_editor):
    for model_name, field in ENCRYPTED:
        model = apps.get_model("platform", model_name)
        for pk, value in model.objects.values_list("pk", field).iterator():
            if value and not _looks_encrypted(value):
                model.objects.filter(pk=pk).update(
                    **{field: gin_platform.encryption.encrypt(value)}
                )


def decrypt_existing(apps, schema_editor):
    for model_name, field in ENCRYPTED:
        model = apps.get_model("platform", model_name)
        for pk, value in model.objects.values_list("pk", field).iterator():
            if value and _looks_encrypted(value):
                model.objects.filter(pk=pk).update(
                    **{field: gin_platform.encryption.decrypt(value)}
                )


def withhold_stored_secrets(apps, schema_editor):
    from gin_platform.redaction import withhold_secrets

    record_model = apps.get_model("platform", "IdempotencyRecord")
    records = record_model.objects.filter(response_body__isnull=False)
    for pk, body in records.values_list("pk", "response_body").iterator():
        cleaned, found = withhold_secrets(body)
        if found:
            record_model.objects.filter(pk=pk).update(response_body=cleaned, secret_withheld=True)
    event_model = apps.get_model("platform", "AuditEvent")
    for pk, data in event_model.objects.values_list("pk", "data").iterator():
        cleaned, found = withhold_secrets(data)
        if found:
            event_model.objects.filter(pk=pk).update(data=cleaned)


def _error_class(text: str) -> str:
    if not text or text.startswith("HTTP "):
        return text
    lowered = text.lower()
    if "timed out" in lowered or "timeout" in lowered:
        return "timeout"
    if "refused" in lowered:
        return "connection refused"
    if "ssl" in lowered or "certificate" in lowered:
        return "tls error"
    if "name or service" in lowered or "getaddrinfo" in lowered or "nodename" in lowered:
        return "dns lookup failed"
    return "connection failed"


def scrub_webhook_logs(apps, schema_editor):
    attempt_model = apps.get_model("platform", "WebhookAttempt")
    attempt_model.objects.exclude(response_excerpt="").update(response_excerpt="")
    for pk, error in attempt_model.objects.exclude(error="").values_list("pk", "error").iterator():
        generic = _error_class(error)
        if generic != error:
            attempt_model.objects.filter(pk=pk).update(error=generic)
    delivery_model = apps.get_model("platform", "WebhookDelivery")
    deliveries = delivery_model.objects.exclude(last_error="")
    for pk, error in deliveries.values_list("pk", "last_error").iterator():
        generic = _error_class(error)
        if generic != error:
            delivery_model.objects.filter(pk=pk).update(last_error=generic)


class Migration(migrations.Migration):
    dependencies = [
        ("platform", "0002_webhooks"),
    ]

    operations = [
        migrations.AlterField(
            model_name="operator",
            name="webhook_secret",
            field=models.TextField(blank=True, default=""),
        ),
        migrations.AlterField(
            model_name="operatorsigningsecret",
            name="secret",
            field=models.TextField(),
        ),
        migrations.RunPython(encrypt_existing, decrypt_existing),
        migrations.AlterField(
            model_name="operator",
            name="webhook_secret",
            field=gin_platform.encryption.EncryptedTextField(blank=True, default=""),
        ),
        migrations.AlterField(
            model_name="operatorsigningsecret",
            name="secret",
            field=gin_platform.encryption.EncryptedTextField(),
        ),
        migrations.AddField(
            model_name="idempotencyrecord",
            name="secret_withheld",
            field=models.BooleanField(db_default=False, default=False),
        ),
        migrations.AlterField(
            model_name="idempotencyrecord",
            name="created_at",
            field=models.DateTimeField(db_index=True, default=django.utils.timezone.now),
        ),
        migrations.AlterField(
            model_name="operator",
            name="webhook_url",
            field=models.URLField(
                blank=True,
                default="",
                validators=[gin_platform.events.webhook_targets.validate_webhook_url],
            ),
        ),
        migrations.RunPython(withhold_stored_secrets, migrations.RunPython.noop),
        migrations.RunPython(scrub_webhook_logs, migrations.RunPython.noop),
    ]
