"""Minting and hashing the platform's secrets (API keys, player session tokens, game-launch
tokens, socket tickets).

Keys are 256-bit random values; storing their SHA-256 is enough (no password stretching is
needed for high-entropy secrets) and lets a lookup go straight to the row.
"""

from __future__ import annotations

import hashlib
import secrets

API_KEY_PREFIX = "gop"
# After API_KEY_PREFIX in a sandbox operator's keys: gop_test_<prefix>_<secret>.
TEST_MODE_MARK = "test"
PLAYER_TOKEN_PREFIX = "gps"
LAUNCH_TOKEN_PREFIX = "glt"
SOCKET_TICKET_PREFIX = "gst"


def hash_secret(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def new_api_key(*, test: bool = False) -> tuple[str, str, str]:
    """Return (full key shown once, public prefix, hash of the full key).

    A sandbox operator's key reads ``gop_test_<prefix>_<secret>`` (``test``), a live one's
    ``gop_<prefix>_<secret>``; the prefix is hex, so it can never read ``test``.
    """
    public = secrets.token_hex(6)
    mode = f"{TEST_MODE_MARK}_" if test else ""
    full = f"{API_KEY_PREFIX}_{mode}{public}_{secrets.token_urlsafe(32)}"
    return full, public, hash_secret(full)


def parse_api_key(value: str) -> tuple[str | None, bool]:
    """(the public prefix or None when not shaped like an API key, whether it is a test key)."""
    test = value.startswith(f"{API_KEY_PREFIX}_{TEST_MODE_MARK}_")
    if test:
        value = API_KEY_PREFIX + value[len(API_KEY_PREFIX) + len(TEST_MODE_MARK) + 1 :]
    parts = value.split("_", 2)
    if len(parts) != 3 or parts[0] != API_KEY_PREFIX or not parts[1] or not parts[2]:
        return None, test
    return parts[1], test


def _new_token(prefix: str) -> tuple[str, str]:
    token = f"{prefix}_{secrets.token_urlsafe(32)}"
    return token, hash_secret(token)


def new_player_token() -> tuple[str, str]:
    """Return (token shown once, its hash)."""
    return _new_token(PLAYER_TOKEN_PREFIX)


def new_launch_token() -> tuple[str, str]:
    """Return (launch token shown once, its hash)."""
    return _new_token(LAUNCH_TOKEN_PREFIX)


def new_socket_ticket() -> tuple[str, str]:
    """Return (socket ticket shown once, its hash)."""
    return _new_token(SOCKET_TICKET_PREFIX)


def new_signing_secret() -> str:
    return "whsec_" + secrets.token_urlsafe(32)
