"""Where a webhook may be sent: the URL rules and the address check (docs/webhooks.md).

A webhook URL is chosen by an operator, so without these rules it would let anyone with an
API key make our workers connect inside our network (server-side request forgery: the
database port, the cache, a cloud metadata service) and read what answered in the delivery
log. So:

- when the URL is set (:func:`webhook_url_problem`): ``https`` only in production (``http``
  also in development and test), a host name, no user name or password, no fragment;
- at every delivery (:func:`resolve_target`), after DNS: every address the host resolves to
  must be public. Loopback, private (RFC 1918, unique-local), shared/CGNAT, link-local
  (which holds the 169.254.169.254 metadata service), multicast, unspecified and reserved
  addresses, and IPv6 forms embedding one of them, are refused, unless
  ``settings.WEBHOOK_ALLOW_PRIVATE_TARGETS`` (development and test only; production refuses
  to start with it) allows them. The sender then connects to the address that was checked,
  never resolving the name again, so DNS rebinding cannot swap it in between.

No model import here: the model's field validator uses this module.
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

MAX_URL_LENGTH = 200  # the column's length (Operator.webhook_url)
# NAT64 prefixes embed an IPv4 address in the low 32 bits.
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
# Shared address space (carrier-grade NAT) is neither private nor global to Python.
_SHARED = ipaddress.ip_network("100.64.0.0/10")


class TargetRefused(Exception):
    """The delivery must not be attempted; ``reason`` is a short, generic log text."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Target:
    scheme: str
    host: str  # the name in the URL: the Host header and the TLS server name
    port: int
    path: str  # path and query, as sent in the request line
    address: str  # the checked IP address to connect to


def _embedded_ipv4(address: Address) -> list[ipaddress.IPv4Address]:
    if not isinstance(address, ipaddress.IPv6Address):
        return []
    embedded = []
    if address.ipv4_mapped is not None:
        embedded.append(address.ipv4_mapped)
    if address.sixtofour is not None:
        embedded.append(address.sixtofour)
    if address.teredo is not None:
        embedded.extend(address.teredo)
    if any(address in network for network in _NAT64):
        embedded.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    return embedded


def is_public_address(address: Address) -> bool:
    """True only for a globally routable unicast address (see the module docstring)."""
    if (
        not address.is_global
        or address.is_private
        or address.is_loopback
        or address.is_link_local
        or address.is_multicast
        or address.is_reserved
        or address.is_unspecified
        or (isinstance(address, ipaddress.IPv4Address) and address in _SHARED)
        or (isinstance(address, ipaddress.IPv6Address) and address.is_site_local)
    ):
        return False
    return all(is_public_address(inner) for inner in _embedded_ipv4(address))


def _allow_private() -> bool:
    return bool(settings.WEBHOOK_ALLOW_PRIVATE_TARGETS)


def _allowed_schemes() -> tuple[str, ...]:
    return ("http", "https") if settings.WEBHOOK_ALLOW_HTTP else ("https",)


def webhook_url_problem(url: str) -> str | None:
    """Why ``url`` cannot be a webhook URL, or None when it can. The empty string is allowed
    (it means: no webhooks)."""
    if url == "":
        return None
    if len(url) > MAX_URL_LENGTH:
        return f"the URL is longer than {MAX_URL_LENGTH} characters"
    if any(ord(char) < 0x21 or ord(char) == 0x7F for char in url):
        return "the URL contains spaces or control characters"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "the URL is not valid"
    schemes = _allowed_schemes()
    if parts.scheme.lower() not in schemes:
        return "the URL must start with " + " or ".join(f"{scheme}://" for scheme in schemes)
    if not parts.hostname:
        return "the URL has no host"
    if parts.username is not None or parts.password is not None:
        return "the URL must not carry a user name or password (they would be stored in clear)"
    if parts.fragment:
        return "the URL must not have a #fragment"
    if port == 0:
        return "the URL's port is not valid"
    if not _allow_private():
        host = parts.hostname.rstrip(".").lower()
        if host == "localhost" or host.endswith(".localhost"):
            return "the URL points at this machine (localhost)"
        try:
            literal = ipaddress.ip_address(host)
        except ValueError:
            literal = None
        if literal is not None and not is_public_address(literal):
            return "the URL points at a private, loopback, link-local or reserved address"
    return None


def validate_webhook_url(url: str) -> None:
    """Model field validator (the admin form and ``full_clean`` use it)."""
    problem = webhook_url_problem(url)
    if problem:
        raise ValidationError(problem, code="webhook_url")


def resolve_target(url: str) -> Target:
    """The checked address to send ``url``'s request to; raises TargetRefused."""
    if webhook_url_problem(url):
        raise TargetRefused("refused: invalid url")
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = parts.hostname or ""
    port = parts.port or (443 if scheme == "https" else 80)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise TargetRefused("dns lookup failed") from exc
    addresses = []
    for info in infos:
        # sockaddr is (host, port) or (host, port, flowinfo, scope_id); drop any %zone.
        text = str(info[4][0]).split("%", 1)[0]
        addresses.append(ipaddress.ip_address(text))
    if not addresses:
        raise TargetRefused("dns lookup failed")
    if not _allow_private() and not all(is_public_address(item) for item in addresses):
        # One non-public answer is enough to refuse: the name is pointed inside.
        raise TargetRefused("refused: private address")
    return Target(scheme=scheme, host=host, port=port, path=path, address=str(addresses[0]))


# --- Connecting to a checked target ----------------------------------------------------------
class _PinnedHTTPConnection(http.client.HTTPConnection):
    """An HTTP connection to an address checked in advance (no second DNS lookup)."""

    def __init__(self, target: Target, timeout: float) -> None:
        super().__init__(target.host, target.port, timeout=timeout)
        self._address = target.address

    def connect(self) -> None:
        self.sock = socket.create_connection((self._address, self.port), self.timeout)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """HTTPS to a checked address; the certificate is verified for the URL's host name."""

    def __init__(self, target: Target, timeout: float) -> None:
        super().__init__(
            target.host, target.port, timeout=timeout, context=ssl.create_default_context()
        )
        self._address = target.address

    def connect(self) -> None:
        sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)


def pinned_connection(target: Target, *, timeout: float) -> http.client.HTTPConnection:
    """A connection to the address :func:`resolve_target` checked, never resolved again
    (webhooks and the seamless wallet's calls). Redirects are the caller's to refuse:
    http.client never follows them."""
    connection_class = _PinnedHTTPSConnection if target.scheme == "https" else _PinnedHTTPConnection
    return connection_class(target, timeout)


def connection_error_class(exc: BaseException) -> str:
    """A short, generic description of a failed connection: what the attempt logs keep,
    never the socket's own text (it would tell an operator what answered at an address)."""
    if isinstance(exc, TimeoutError | socket.timeout):
        return "timeout"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, ssl.SSLError | ssl.CertificateError):
        return "tls error"
    if isinstance(exc, http.client.HTTPException):
        return "invalid http response"
    return "connection failed"
