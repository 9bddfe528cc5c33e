"""Browsers on the operators' sites: origins, CORS and the Origin check (docs/browser-clients.md).

An operator registers the origins (``scheme://host[:port]``) of the sites its players use
(``OperatorOrigin``, ``/api/v1/operators/me/origins``). Then:

- django-cors-headers answers preflights and adds the CORS headers under ``/api/``
  (``CORS_URLS_REGEX``) for an ``Origin`` that some active operator registered:
  :func:`allow_registered_origin` is its ``check_request_enabled`` receiver. A preflight
  carries no credentials, so at that point any operator's registration is enough; no
  cookie ever crosses origins (``CORS_ALLOW_CREDENTIALS`` is off).
- Once the caller is known, a request whose ``Origin`` is neither the platform itself nor
  registered by the caller's own operator is refused (403 ``origin-not-allowed``:
  gin_platform/http/authentication.py, ``selectors.origin_allowed``), so operator B's site
  cannot drive operator A's players. Requests without ``Origin`` (servers, curl) are not
  affected. The sockets apply the same rule.

Which operators registered an origin is cached for ``CORS_ORIGIN_CACHE_SECONDS``, unknown
origins included, so preflights do not reach the database each time; adding or deleting an
origin forgets its entry when the change commits. If the cache cannot be reached the
database answers (and a warning is logged, as for the throttles).
"""

from __future__ import annotations

import hashlib
import ipaddress
import re
from urllib.parse import urlsplit

from django.conf import settings
from django.core.cache import cache

from gin_platform.models import Operator, OperatorOrigin
from gin_platform.request_path.cache import CACHE_ERRORS, warn_cache_unreachable

MAX_ORIGIN_LENGTH = 300
DEFAULT_PORTS = {"https": 443, "http": 80}
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "[::1]"})
_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")
CACHE_PREFIX = "cors-origin:"


class OriginError(ValueError):
    """Not an origin the platform accepts; the message says why."""


def _host(hostname: str) -> str:
    """The host as browsers write it in an Origin: lower case, IDNA (punycode) labels,
    IPv6 literals in brackets."""
    if ":" in hostname:
        try:
            return f"[{ipaddress.IPv6Address(hostname).compressed}]"
        except ValueError as exc:
            raise OriginError("the host is not a valid IPv6 address") from exc
    if not hostname.isascii():
        try:
            hostname = hostname.encode("idna").decode("ascii")
        except UnicodeError as exc:
            raise OriginError("the host is not a valid domain name") from exc
    hostname = hostname.lower()
    if len(hostname) > 253 or not all(_LABEL.match(label) for label in hostname.split(".")):
        raise OriginError("the host is not a valid domain name or IP address")
    return hostname


def _parts(value: str) -> tuple[str, str, int | None]:
    """(scheme, host, port or None for the scheme's default) of an origin."""
    if not value or len(value) > MAX_ORIGIN_LENGTH:
        raise OriginError(f"an origin has 1 to {MAX_ORIGIN_LENGTH} characters")
    if "*" in value:
        raise OriginError("wildcards are not allowed: register each origin")
    if any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in value):
        raise OriginError("an origin has no spaces or control characters")
    try:
        parts = urlsplit(value)
        port = parts.port
    except ValueError as exc:
        raise OriginError("not a URL origin (scheme://host[:port])") from exc
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.netloc:
        raise OriginError("an origin is https://host[:port]")
    if "@" in parts.netloc:
        raise OriginError("an origin has no user name or password")
    if parts.path not in ("", "/") or parts.query or parts.fragment or value[-1] in "?#":
        raise OriginError("an origin has no path, query or fragment")
    if not parts.hostname:
        raise OriginError("an origin names a host")
    if port == 0:
        raise OriginError("port 0 is not a port")
    return scheme, _host(parts.hostname), None if port == DEFAULT_PORTS[scheme] else port


def _join(scheme: str, host: str, port: int | None) -> str:
    return f"{scheme}://{host}" + (f":{port}" if port is not None else "")


def normalize_origin(value: str, *, allow_http_localhost: bool) -> str:
    """``value`` as an operator may register it, normalised: ``scheme://host[:port]`` in lower
    case, without the scheme's default port (a trailing ``/`` is dropped). https only;
    ``allow_http_localhost`` also admits ``http://`` for localhost, 127.0.0.1 and [::1]
    (development and test). Raises OriginError saying what is wrong."""
    scheme, host, port = _parts(value.strip())
    if scheme == "http" and not (allow_http_localhost and host in LOCAL_HOSTS):
        allowed = " (or http:// for localhost)" if allow_http_localhost else ""
        raise OriginError(f"an origin must use https://{allowed}")
    return _join(scheme, host, port)


def canonical_origin(value: str | None) -> str | None:
    """The ``Origin`` a browser sent, in the registered form; None when it is not an http(s)
    origin at all (``null``, garbage)."""
    if not value:
        return None
    try:
        return _join(*_parts(value.strip()))
    except OriginError:
        return None


def is_platform_origin(origin: str, *, host: str) -> bool:
    """True when ``origin`` (canonical) is the platform's own: the host the request was made
    to (``host``, as in the Host header) or ``PUBLIC_BASE_URL``'s."""
    scheme, origin_host, origin_port = _parts(origin)
    public = getattr(settings, "PUBLIC_BASE_URL", "")
    if public and canonical_origin(public) == origin:
        return True
    if not host:
        return False
    try:
        requested = urlsplit(f"//{host.strip()}")
        requested_port = requested.port
        requested_host = _host(requested.hostname or "")
    except (ValueError, OriginError):
        return False
    if requested_port == DEFAULT_PORTS[scheme]:
        requested_port = None
    return (requested_host, requested_port) == (origin_host, origin_port)


def _cache_key(origin: str) -> str:
    return CACHE_PREFIX + hashlib.sha256(origin.encode()).hexdigest()[:32]


def registered_operator_ids(origin: str) -> frozenset[str]:
    """The ids (as strings) of the active operators that registered ``origin`` (canonical),
    through the cache."""
    key = _cache_key(origin)
    cached, cache_up = None, True
    try:
        cached = cache.get(key)
    except CACHE_ERRORS:
        warn_cache_unreachable(key)
        cache_up = False
    if cached is not None:
        return frozenset(cached)
    ids = [
        str(pk)
        for pk in OperatorOrigin.objects.filter(
            origin=origin, operator__status=Operator.Status.ACTIVE
        ).values_list("operator_id", flat=True)
    ]
    if cache_up:
        try:
            cache.set(key, ids, settings.CORS_ORIGIN_CACHE_SECONDS)
        except CACHE_ERRORS:
            warn_cache_unreachable(key)
    return frozenset(ids)


def forget_origin(origin: str) -> None:
    """Drop the cached answer for ``origin`` (after it was added or deleted)."""
    key = _cache_key(origin)
    try:
        cache.delete(key)
    except CACHE_ERRORS:
        warn_cache_unreachable(key)


def allow_registered_origin(sender, request, **kwargs) -> bool:
    """django-cors-headers' ``check_request_enabled`` receiver: CORS headers for an API
    request whose Origin some active operator registered. Also asked for paths outside
    ``CORS_URLS_REGEX``, where it always says no."""
    if not re.match(settings.CORS_URLS_REGEX, request.path_info):
        return False
    origin = canonical_origin(request.headers.get("origin"))
    return origin is not None and bool(registered_operator_ids(origin))
