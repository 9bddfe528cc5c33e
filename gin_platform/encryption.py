"""Secrets the platform must use in clear, kept encrypted at rest.

The operator's webhook secret signs our webhooks and a request-signing secret verifies the
operator's requests, so neither can be stored as a hash like an API key or a session token.
:class:`EncryptedTextField` stores them as Fernet tokens (AES-128-CBC + HMAC-SHA256,
authenticated: a tampered value fails to decrypt) and gives Python the plain text back, so
``operator.webhook_secret`` and ``signing_secret.secret`` read as before.

Keys come from ``settings.SECRETS_ENCRYPTION_KEYS`` (the ``SECRETS_ENCRYPTION_KEY``
variable, comma-separated Fernet keys). The first key encrypts; every key decrypts, so a key
is rotated by putting a new one first, running ``manage.py reencrypt_secrets`` and then
dropping the old one. Outside production, without the variable, one key is derived from
``SECRET_KEY``; production refuses to start without it (gin_platform/project/config.py has the
key rules).

An encrypted value is non-deterministic: the field cannot be filtered on, only read.
"""

from __future__ import annotations

import functools
import hashlib
from typing import Any

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.db import models

# Fernet tokens are base64 of a version byte 0x80 and a timestamp: they start with "gAAAAA".
TOKEN_PREFIX = "gAAAAA"


class SecretDecryptionError(ValueError):
    """A stored secret could not be decrypted with any configured key."""


@functools.lru_cache(maxsize=8)
def _fernet(keys: tuple[str, ...]) -> MultiFernet:
    return MultiFernet([Fernet(key) for key in keys])


def _keys() -> tuple[str, ...]:
    keys = tuple(settings.SECRETS_ENCRYPTION_KEYS)
    if not keys:
        raise SecretDecryptionError("SECRETS_ENCRYPTION_KEYS is empty")
    return keys


def encrypt(plain: str) -> str:
    return _fernet(_keys()).encrypt(plain.encode()).decode()


def decrypt(token: str) -> str:
    return _decrypted(_keys(), token)


# A token is immutable and its plain text a function of it and the keys: an operator's
# secrets are decrypted once per process and key set, not at every read of the operator
# (each read, a settlement's escrow among them, would otherwise pay AES and an HMAC).
@functools.lru_cache(maxsize=4096)
def _decrypted(keys: tuple[str, ...], token: str) -> str:
    try:
        return _fernet(keys).decrypt(token.encode()).decode()
    except InvalidToken as exc:
        raise SecretDecryptionError(
            "a stored secret does not decrypt with any key in SECRETS_ENCRYPTION_KEY "
            "(was a key dropped before `manage.py reencrypt_secrets` ran?)"
        ) from exc


def fingerprint(plain: str) -> str:
    """A short, non-reversible label of a secret, for the back office (never the secret)."""
    if not plain:
        return "not set"
    return "set (sha256 " + hashlib.sha256(plain.encode()).hexdigest()[:8] + ")"


class EncryptedTextField(models.TextField):
    """A text field whose column holds a Fernet token of the value; Python sees plain text.

    The empty string is stored as is (it is "no secret", not a secret).
    """

    description = "Text encrypted at rest (Fernet)"

    def get_prep_value(self, value: Any) -> Any:
        value = super().get_prep_value(value)
        if value is None or value == "":
            return value
        return encrypt(value)

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Any:
        if value is None or value == "":
            return value
        return decrypt(value)

    def get_lookup(self, lookup_name: str):
        # Each encryption differs (random IV): an equality filter could never match.
        if lookup_name not in {"isnull"}:
            return None
        return super().get_lookup(lookup_name)
