"""No secret is readable from the database: webhook and signing secrets are encrypted at rest,
stored responses, audit rows and logs never hold one, and the migration cleans old rows."""

import io
import logging
import sys

import pytest
from celery import signals
from cryptography.fernet import Fernet, MultiFernet
from django.conf import settings as live
from django.core.exceptions import FieldError
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.models import TextField
from django.db.models.functions import Cast

from gin_platform.audit import audit_record
from gin_platform.encryption import SecretDecryptionError
from gin_platform.models import (
    AuditEvent,
    IdempotencyRecord,
    Operator,
    OperatorSigningSecret,
    WebhookAttempt,
    WebhookDelivery,
)
from gin_platform.redaction import WithholdSecretsFilter
from gin_platform.tenancy.services import signing_secret_create, webhook_secret_rotate
from gin_platform.tenancy.tokens import new_api_key, new_player_token
from tests.factories import SYSTEM

pytestmark = pytest.mark.django_db


def raw(model, field: str, pk) -> str:
    """The column as stored, read without the field's decryption."""
    return model.objects.filter(pk=pk).values_list(Cast(field, TextField()), flat=True).get()


def test_the_webhook_secret_is_encrypted_in_the_database_and_plain_in_python(operator):
    operator = webhook_secret_rotate(operator=operator, actor=SYSTEM)
    secret = operator.webhook_secret
    assert secret.startswith("whsec_")
    stored = raw(Operator, "webhook_secret", operator.pk)
    assert secret not in stored and stored.startswith("gAAAAA")
    assert Operator.objects.get(pk=operator.pk).webhook_secret == secret


def test_signing_secrets_are_encrypted_and_read_back_for_verification(operator):
    made = signing_secret_create(operator=operator, actor=SYSTEM)
    stored = raw(OperatorSigningSecret, "secret", made.pk)
    assert made.secret not in stored and stored.startswith("gAAAAA")
    # What request authentication reads to verify a signature.
    assert list(operator.signing_secrets.values_list("secret", flat=True)) == [made.secret]


def test_an_encrypted_field_cannot_be_filtered_on(operator):
    with pytest.raises(FieldError):
        list(Operator.objects.filter(webhook_secret=operator.webhook_secret))


def test_keys_rotate_without_losing_a_secret(operator, settings):
    old, new = settings.SECRETS_ENCRYPTION_KEYS[0], Fernet.generate_key().decode()
    secret = signing_secret_create(operator=operator, actor=SYSTEM).secret
    webhook = Operator.objects.get(pk=operator.pk).webhook_secret

    settings.SECRETS_ENCRYPTION_KEYS = [new, old]  # the new key first: old rows still read
    assert OperatorSigningSecret.objects.get().secret == secret
    out = io.StringIO()
    call_command("reencrypt_secrets", stdout=out)
    assert "re-encrypted the secrets of 2 rows" in out.getvalue()

    settings.SECRETS_ENCRYPTION_KEYS = [new]  # the old key dropped
    assert OperatorSigningSecret.objects.get().secret == secret
    assert Operator.objects.get(pk=operator.pk).webhook_secret == webhook

    settings.SECRETS_ENCRYPTION_KEYS = [Fernet.generate_key().decode()]  # a wrong key
    with pytest.raises(SecretDecryptionError):
        OperatorSigningSecret.objects.get()


def test_a_secret_is_decrypted_once_per_process_not_at_every_read(operator, monkeypatch):
    calls = []
    real = MultiFernet.decrypt
    monkeypatch.setattr(
        MultiFernet, "decrypt", lambda self, token: calls.append(1) or real(self, token)
    )
    operator.webhook_secret = "whsec_read_twice"
    operator.save(update_fields=["webhook_secret"])
    first = Operator.objects.get(pk=operator.pk).webhook_secret
    second = Operator.objects.get(pk=operator.pk).webhook_secret
    assert first == second == "whsec_read_twice"
    assert len(calls) == 1


def test_the_audit_log_never_stores_a_secret(operator):
    key, _, _ = new_api_key()
    token, _ = new_player_token()
    event = audit_record(
        actor=SYSTEM,
        action="test.secret",
        obj=operator,
        operator=operator,
        data={"key": key, "nested": [{"note": f"token {token}"}], "plain": "gps_short"},
    )
    stored = AuditEvent.objects.get(pk=event.pk).data
    assert stored == {
        "key": "[withheld]",
        "nested": [{"note": "token [withheld]"}],
        "plain": "gps_short",  # not shaped like a token: left alone
    }


def test_logs_never_carry_a_secret(settings):

    handler = live.LOGGING["handlers"]["console"]
    assert "withhold_secrets" in handler["filters"]
    token, _ = new_player_token()
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "minted %s for %s", (token, 7), None)
    assert WithholdSecretsFilter().filter(record)
    assert record.getMessage() == "minted [withheld] for 7"
    try:
        raise ValueError(f"bad {token}")
    except ValueError:
        failure = logging.LogRecord("x", logging.ERROR, __file__, 1, "failed", (), sys.exc_info())
    WithholdSecretsFilter().filter(failure)
    text = logging.Formatter().format(failure)
    assert token not in text and "bad [withheld]" in text


@pytest.mark.django_db(transaction=True)
def test_the_migration_encrypts_existing_secrets_and_cleans_stored_copies():
    """Rows written before the migration: plain secrets, a stored response with a session
    token, and a webhook log with the receiver's body and a socket error."""
    before = [("platform", "0002_webhooks")]
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes()
    executor.migrate(before)
    try:
        apps = MigrationExecutor(connection).loader.project_state(before).apps
        webhook_secret, token = "whsec_" + "w" * 43, "gps_" + "t" * 43
        operator = apps.get_model("platform", "Operator").objects.create(
            name="Old", slug="old", base_currency="EUR", webhook_secret=webhook_secret
        )
        signing = apps.get_model("platform", "OperatorSigningSecret").objects.create(
            operator=operator, secret="whsec_" + "s" * 43
        )
        apps.get_model("platform", "IdempotencyRecord").objects.create(
            operator=operator,
            key="k",
            fingerprint="f",
            method="POST",
            path="/api/v1/players/1/sessions",
            state="completed",
            response_status=201,
            response_body={"id": 1, "token": token},
        )
        delivery = apps.get_model("platform", "WebhookDelivery").objects.create(
            operator=operator,
            event_type="game.settled",
            payload={},
            url="http://127.0.0.1:5432/",
            last_error="URLError: <urlopen error [Errno 111] Connection refused>",
        )
        apps.get_model("platform", "WebhookAttempt").objects.create(
            delivery=delivery,
            number=1,
            response_status=None,
            response_excerpt="FATAL: no pg_hba.conf entry",
            error="URLError: <urlopen error [Errno 111] Connection refused>",
        )
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(latest)

    assert raw(Operator, "webhook_secret", operator.pk).startswith("gAAAAA")
    assert Operator.objects.get(pk=operator.pk).webhook_secret == webhook_secret
    assert raw(OperatorSigningSecret, "secret", signing.pk).startswith("gAAAAA")
    assert OperatorSigningSecret.objects.get(pk=signing.pk).secret == "whsec_" + "s" * 43
    record = IdempotencyRecord.objects.get(key="k")
    assert record.response_body == {"id": 1, "token": "[withheld]"}
    assert record.secret_withheld is True
    logged = WebhookAttempt.objects.get()
    assert (logged.response_excerpt, logged.error) == ("", "connection refused")
    assert WebhookDelivery.objects.get().last_error == "connection refused"


def test_worker_log_handlers_get_the_same_filter():

    logger = logging.getLogger("celery.test-worker")
    handler = logging.StreamHandler(io.StringIO())
    logger.addHandler(handler)
    try:
        signals.after_setup_logger.send(sender=None, logger=logger)
        assert any(isinstance(f, WithholdSecretsFilter) for f in handler.filters)
        token, _ = new_player_token()
        logger.warning("session %s", token)
        assert token not in handler.stream.getvalue()
        assert "session [withheld]" in handler.stream.getvalue()
    finally:
        logger.removeHandler(handler)
