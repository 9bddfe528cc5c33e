"""Where a webhook or a seamless wallet call may be sent: the URL rules and the address check
(docs/webhooks.md "Where a webhook may go", docs/wallet.md "Seamless wallet").

A webhook URL, like a seamless wallet's ``base_url``, is chosen by an operator, so without
these rules it would let anyone with an API key make our workers connect inside our network
(server-side request forgery: the database port, the cache, a cloud metadata service) and
read what answered in the delivery log. So:

- when the URL is set (:func:`target_url_problem`): a URL, ``https`` only in production
  (``http`` also in development and test), a host that is a valid name or IP address, no
  user name or password, no fragment, and a host that is not, and does not resolve to, a
  non-public address;
- at every call (:func:`resolve_target`), after DNS: every address the host resolves to
  must be public. Loopback, private (RFC 1918, unique-local), shared/CGNAT, link-local
  (which holds the 169.254.169.254 metadata service), multicast, unspecified and reserved
  addresses, and IPv6 forms embedding one of them, are refused, unless
  ``settings.WEBHOOK_ALLOW_PRIVATE_TARGETS`` (development and test only; production refuses
  to start with it) allows them. The sender then connects to the address that was checked,
  never resolving the name again, so DNS rebinding cannot swap it in between.

Both checks ask one function, :func:`host_addresses`, what a host stands for, and it reads
a host the way the resolver does: every spelling of an IPv4 address that ``inet_aton``
takes (``127.1``, ``2130706433``, ``0x7f000001``, ``0177.0.0.1``), every IPv6 spelling,
trailing dots, ``localhost`` and its subdomains, and names through DNS.

No model import here: the model's field validator uses this module.
"""

from __future__ import annotations

import http.client
import ipaddress
import re
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


# What inet_aton may read as an IPv4 address: one to four parts, each decimal, octal (0...)
# or hexadecimal (0x...). Anything else is not tried (inet_aton also takes "1.2.3.4 junk").
_IPV4_SPELLING = re.compile(r"(?:0x[0-9a-f]*|[0-9]+)(?:\.(?:0x[0-9a-f]*|[0-9]+)){0,3}")
# A host name's label (letters, digits, hyphens; IDNA names in their xn-- form).
_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")
_LOOPBACK = (ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("::1"))


class HostInvalid(ValueError):
    """The host is neither an IP address nor a valid host name."""


def _normalized(host: str) -> str:
    """The host without brackets, upper case or its one trailing dot (the root)."""
    name = host.lower()
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
    return name.removesuffix(".")


def _literal_address(name: str) -> Address | None:
    """The address ``name`` spells, read as the resolver reads a numeric host (no DNS)."""
    try:
        return ipaddress.ip_address(name)
    except ValueError:
        pass
    if _IPV4_SPELLING.fullmatch(name):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(name))
        except OSError:
            return None
    return None


def _is_localhost(name: str) -> bool:
    """RFC 6761: ``localhost`` and every name under it are this machine."""
    return name == "localhost" or name.endswith(".localhost")


def _check_host_name(name: str) -> None:
    try:
        ascii_name = name.encode("idna").decode("ascii")
    except UnicodeError:
        raise HostInvalid(name) from None
    labels = ascii_name.split(".")
    if (
        len(ascii_name) > 253
        or not all(_LABEL.fullmatch(label) for label in labels)
        # Like a browser: a name ending in a number is an IPv4 address or nothing.
        or _IPV4_SPELLING.fullmatch(labels[-1])
    ):
        raise HostInvalid(name)


def host_addresses(host: str, port: int | None = None) -> list[Address]:
    """Every address a connection to ``host`` (a URL's host name) may be made to.

    An IP address in any spelling the resolver accepts is that address, without DNS:
    ``127.1``, ``2130706433``, ``0x7f000001``, ``0177.0.0.1`` are 127.0.0.1, ``[::1]`` and
    ``[0:0:0:0:0:0:0:1]`` are ::1, a trailing dot changes nothing. ``localhost`` (and any
    ``*.localhost``) is loopback, whatever /etc/hosts says. Any other host must be a valid
    host name, and is resolved (``socket.getaddrinfo``, as the connection would be).

    Raises HostInvalid for a host that is neither, TargetRefused("dns lookup failed") when
    the name does not resolve."""
    name = _normalized(host)
    literal = _literal_address(name)
    if literal is not None:
        return [literal]
    if _is_localhost(name):
        return list(_LOOPBACK)
    _check_host_name(name)
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise TargetRefused("dns lookup failed") from exc
    # sockaddr is (host, port) or (host, port, flowinfo, scope_id); drop any %zone.
    addresses = [ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in infos]
    if not addresses:
        raise TargetRefused("dns lookup failed")
    return addresses


def _url_form_problem(url: str) -> str | None:
    """Why ``url`` is not a URL we may call, addresses aside (no DNS), or None."""
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
    name = _normalized(parts.hostname)
    if _literal_address(name) is None and not _is_localhost(name):
        try:
            _check_host_name(name)
        except HostInvalid:
            return "the URL's host is not a valid host name or IP address"
    return None


def target_url_problem(url: str) -> str | None:
    """Why ``url`` cannot be a webhook URL or a seamless wallet's base URL, or None when it
    can. The empty string is allowed (it means: none).

    Unless private targets are allowed, the host is read by :func:`host_addresses`: a
    localhost name or an address that is not public is refused, and so is a name that
    resolves to one now. A name that does not resolve (yet) is accepted: every call
    resolves it again and refuses it until it resolves to public addresses only."""
    if url == "":
        return None
    problem = _url_form_problem(url)
    if problem or _allow_private():
        return problem
    host = urlsplit(url).hostname or ""
    if _is_localhost(_normalized(host)):
        return "the URL points at this machine (localhost)"
    try:
        addresses = host_addresses(host)
    except TargetRefused:
        return None
    if not all(is_public_address(address) for address in addresses):
        return "the URL points at a private, loopback, link-local or reserved address"
    return None


def validate_webhook_url(url: str) -> None:
    """Model field validator (the admin form and ``full_clean`` use it)."""
    problem = target_url_problem(url)
    if problem:
        raise ValidationError(problem, code="webhook_url")


def resolve_target(url: str) -> Target:
    """The checked address to send ``url``'s request to; raises TargetRefused."""
    if url == "" or _url_form_problem(url):
        raise TargetRefused("refused: invalid url")
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = parts.hostname or ""
    port = parts.port or (443 if scheme == "https" else 80)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    addresses = host_addresses(host, port)
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
        self._tls = ssl.create_default_context()
        super().__init__(target.host, target.port, timeout=timeout, context=self._tls)
        self._address = target.address

    def connect(self) -> None:
        sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._tls.wrap_socket(sock, server_hostname=self.host)


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
