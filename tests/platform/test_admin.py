"""The back office: every admin page of every app opens for staff."""

import pytest
from django.contrib import admin
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_every_admin_changelist_opens(client, django_user_model):
    user = django_user_model.objects.create_superuser("root", password="pw-root-12345")
    client.force_login(user)
    for model in admin.site._registry:
        url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        assert client.get(url).status_code == 200, url


def test_ledger_rows_are_read_only_in_the_admin(client, django_user_model):
    from wallet.models import LedgerEntry, LedgerTransaction

    for model in (LedgerTransaction, LedgerEntry):
        model_admin = admin.site._registry[model]
        assert not model_admin.has_add_permission(None)
        assert not model_admin.has_change_permission(None)
        assert not model_admin.has_delete_permission(None)
