"""Identifiers as keyed hashes (docs/integrity.md "Hashing"): a device id, a client
address or a payment-instrument fingerprint becomes HMAC-SHA256 under the platform's one link
secret (``INTEGRITY_LINK_SECRET``), so the same identifier matches whichever operator of the
network sent it, and nobody without the secret can test a guess (the whole IPv4 space is
only 2^32 guesses: a plain hash would hide nothing). The raw value lives only in the memory
of the request that brought it. Unset, the secret is derived from SECRET_KEY under its own
label (``link_secret``).

>>> normalized_identifier(kind="address", value="2a02:c7f:1234:5678:9abc::1")
'2a02:c7f:1234:5678::/64'
>>> normalized_identifier(kind="address", value="::ffff:81.2.69.160")
'81.2.69.160'
>>> normalized_identifier(kind="address", value="10.1.2.3") is None
True
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress

from django.conf import settings

from integrity.models import MarkKind

# A household's IPv6 devices share their /64 and rotate the rest (privacy addresses).
IPV6_PREFIX = 64
MAX_IDENTIFIER_LENGTH = 200


def normalized_identifier(*, kind: str, value: str) -> str | None:
    """The form of ``value`` that is hashed, or None when it links nobody: an address that
    is not a public one (private, loopback, link-local, reserved: a proxy's or a LAN's, which
    would link everybody behind it), or an empty value."""
    value = value.strip()
    if not value:
        return None
    if kind != MarkKind.ADDRESS:
        return value
    try:
        address = ipaddress.ip_address(value)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if not address.is_global:
        return None
    if isinstance(address, ipaddress.IPv6Address):
        return str(ipaddress.ip_network(f"{address}/{IPV6_PREFIX}", strict=False))
    return str(address)


def link_secret() -> bytes:
    """INTEGRITY_LINK_SECRET, or when it is empty one derived from SECRET_KEY under its own
    label (never the bytes of another key derived from it)."""
    if settings.INTEGRITY_LINK_SECRET:
        return settings.INTEGRITY_LINK_SECRET.encode()
    return hashlib.sha256(
        b"gin-platform integrity links\x00" + settings.SECRET_KEY.encode()
    ).digest()


def identifier_digest(*, kind: str, value: str) -> str | None:
    """HMAC-SHA256 (hex) of the identifier under the link secret, the kind in the message so
    a value sent as a device never matches the same text sent as an instrument; None when it
    links nobody (``normalized_identifier``)."""
    normalized = normalized_identifier(kind=kind, value=value)
    if normalized is None:
        return None
    message = f"{kind}\x00{normalized}".encode()
    return hmac.new(link_secret(), message, hashlib.sha256).hexdigest()
