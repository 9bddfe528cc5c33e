"""The back office: every admin page of every app opens for staff."""

import pytest
from django.contrib import admin
from django.db.models import TextField
from django.db.models.functions import Cast
from django.urls import reverse

from gin_platform.models import IdempotencyRecord, OperatorSigningSecret
from gin_platform.tenancy.services import signing_secret_create
from tests.factories import SYSTEM, OperatorFactory, PlayerFactory, admin_login
from tests.helpers import operator_api
from wallet.models import LedgerEntry, LedgerTransaction

pytestmark = pytest.mark.django_db


def test_every_admin_changelist_opens(client, django_user_model):
    user = django_user_model.objects.create_superuser("root", password="pw-root-12345")
    admin_login(client, user)
    for model in admin.site._registry:
        url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        assert client.get(url).status_code == 200, url


def test_ledger_rows_are_read_only_in_the_admin(client, django_user_model):
    for model in (LedgerTransaction, LedgerEntry):
        model_admin = admin.site._registry[model]
        assert not model_admin.has_add_permission(None)
        assert not model_admin.has_change_permission(None)
        assert not model_admin.has_delete_permission(None)


def test_the_admin_never_shows_a_secret_not_even_encrypted(client, django_user_model):
    """Operator (webhook secret), signing secret, and idempotency records of responses that
    issued a session token or a webhook secret: no page shows the secret or its ciphertext."""

    operator = OperatorFactory()
    signing = signing_secret_create(operator=operator, actor=SYSTEM)
    api = operator_api(operator)
    player = PlayerFactory(operator=operator)
    token = api.post(
        f"/api/v1/players/{player.pk}/sessions", {}, format="json", HTTP_IDEMPOTENCY_KEY="s"
    ).json()["token"]
    rotated = api.post(
        "/api/v1/operators/me/webhook-secret", format="json", HTTP_IDEMPOTENCY_KEY="w"
    ).json()["secret"]
    operator.refresh_from_db()
    assert operator.webhook_secret == rotated

    admin_login(client, django_user_model.objects.create_superuser("root", password="pw-12345"))
    pages = [
        reverse("admin:platform_operator_change", args=[operator.pk]),
        reverse("admin:platform_operator_changelist"),
        reverse("admin:platform_operatorsigningsecret_change", args=[signing.pk]),
        reverse("admin:platform_operatorsigningsecret_changelist"),
        reverse("admin:platform_idempotencyrecord_changelist"),
        *[
            reverse("admin:platform_idempotencyrecord_change", args=[pk])
            for pk in IdempotencyRecord.objects.values_list("pk", flat=True)
        ],
    ]
    stored = {
        "webhook": _raw_column(type(operator), "webhook_secret", operator.pk),
        "signing": _raw_column(OperatorSigningSecret, "secret", signing.pk),
    }
    for url in pages:
        html = client.get(url).content.decode()
        for secret in (rotated, token, signing.secret, *stored.values()):
            assert secret not in html, url
        assert "gps_" not in html and "whsec_" not in html, url
    operator_page = client.get(pages[0]).content.decode()
    assert "set (sha256 " in operator_page
    assert OperatorSigningSecret.objects.get(pk=signing.pk).secret == signing.secret


def _raw_column(model, field: str, pk) -> str:
    """The column as stored, read without the field's decryption."""
    return model.objects.filter(pk=pk).values_list(Cast(field, TextField()), flat=True).get()
