"""RFC 9457 problem details for every API error (docs/api-errors.md lists them).

Each domain error is a ``Problem`` subclass with a stable ``slug``; its ``type`` is the
relative URI ``/problems/<slug>``, which this service also serves as documentation. Apps
declare their own problems next to their services and raise them from there; views never
build error responses by hand (``gin_platform.http.problem_handler`` renders them).
"""

from __future__ import annotations

from typing import Any, ClassVar

from django.utils import translation
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

PROBLEM_CONTENT_TYPE = "application/problem+json"
PROBLEM_TYPE_PREFIX = "/problems/"

REGISTRY: dict[str, type[Problem]] = {}


class Problem(Exception):
    """A domain error with a stable type. Subclasses set slug, status and title."""

    slug: ClassVar[str] = "about-blank"
    status: ClassVar[int] = 400
    # Translated into the language active when the body is rendered (gettext_lazy).
    title: ClassVar[str | Promise] = _("Bad request")
    description: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.slug in REGISTRY and REGISTRY[cls.slug] is not cls:
            raise TypeError(f"problem slug {cls.slug!r} is declared twice")
        REGISTRY[cls.slug] = cls

    def __init__(self, detail: str | Promise | None = None, **extensions: Any) -> None:
        self.detail = detail or self.title
        self.extensions = extensions
        super().__init__(self.detail)

    @classmethod
    def type_uri(cls) -> str:
        return PROBLEM_TYPE_PREFIX + cls.slug

    def headers(self) -> dict[str, str]:
        """The headers every answer of this problem carries: ``WWW-Authenticate`` on a 401
        (and ``Retry-After`` on a throttle: ``ThrottledProblem``)."""
        return {"WWW-Authenticate": 'Bearer realm="api"'} if self.status == 401 else {}

    def as_record(self) -> dict[str, str]:
        """Type, title and detail as an operator's record keeps them (a webhook's payload):
        in English, whatever language the request that met the problem speaks."""
        with translation.override("en"):
            return {"type": self.type_uri(), "title": str(self.title), "detail": str(self.detail)}

    def body(self, instance: str | None = None) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "type": self.type_uri(),
            "title": str(self.title),
            "status": self.status,
            "detail": str(self.detail),
        }
        if instance:
            payload["instance"] = instance
        payload.update(self.extensions)
        return payload


# --- Generic problems, one per DRF/Django failure ----------------------------------------
class ValidationProblem(Problem):
    slug = "validation-error"
    status = 400
    title = _("The request is not valid")
    description = "A field is missing or malformed; `errors` maps each field to its messages."


class UnknownFieldsProblem(Problem):
    slug = "unknown-fields"
    status = 400
    title = _("The request has fields this endpoint does not take")
    description = (
        "A body or socket message names a field the operation does not declare (a typo, or an "
        "option this version lacks): nothing was done. `fields` lists the unknown names (the "
        "first 10, dotted inside a nested object), `accepted` the names the object takes."
    )


class MalformedRequestProblem(Problem):
    slug = "malformed-request"
    status = 400
    title = _("The request body could not be parsed")
    description = (
        "The body is not JSON, is nested more than 32 levels deep, or holds a NUL character "
        "(U+0000) or an unpaired surrogate in a key or string; or the query string or a "
        "header holds a NUL character (gin_platform/http/parsers.py); or a socket's text message "
        "is not UTF-8 (the socket then closes with 1007, docs/realtime.md)."
    )


class BadRequestProblem(Problem):
    slug = "bad-request"
    status = 400
    title = _("The request was refused")
    description = (
        "Refused before any endpoint ran it, as Django refuses a request it takes for an "
        "attack (a suspicious session, file name or multipart body) or cannot read; no more "
        "specific type applies. Nothing was done."
    )


class HostNotAllowedProblem(Problem):
    slug = "host-not-allowed"
    status = 400
    title = _("The Host header names a host this service does not serve")
    description = (
        "The request's Host is not one of the deployment's ALLOWED_HOSTS: check the URL the "
        "client calls. Refused before anything else reads the request; nothing was done."
    )


class RequestTooLargeProblem(Problem):
    slug = "request-too-large"
    status = 413
    title = _("The request body is too large")
    description = (
        "A request body may be at most REQUEST_MAX_BODY_BYTES (256 KiB by default); `limit` "
        "says how many bytes."
    )


class NotAuthenticatedProblem(Problem):
    slug = "not-authenticated"
    status = 401
    title = _("Authentication is required")
    description = "Send an operator API key or a player session token as a Bearer token."


class AuthenticationFailedProblem(Problem):
    slug = "authentication-failed"
    status = 401
    title = _("The credentials were not accepted")
    description = "The key or token is unknown, revoked or expired."


class SignatureInvalidProblem(Problem):
    slug = "signature-invalid"
    status = 401
    title = _("The request signature was not accepted")
    description = (
        "The X-Signature header is missing, stale (outside the tolerance) or does not match "
        "any active signing secret of the operator."
    )


class SignatureReplayedProblem(Problem):
    slug = "signature-replayed"
    status = 401
    title = _("The signed request was already accepted")
    description = (
        "A signed request is good once: the same signature (same timestamp, method, path, "
        "Idempotency-Key and body) was accepted before. Sign every request, retries included, "
        "afresh."
    )


class SocketTicketInvalidProblem(Problem):
    slug = "socket-ticket-invalid"
    status = 401
    title = _("The socket ticket was not accepted")
    description = (
        "The ticket is missing, unknown, used, expired, or the session that minted it is no "
        "longer valid. A ticket opens one socket within 30 seconds: mint a new one "
        "(POST /api/v1/socket-tickets) for each connection (docs/realtime.md)."
    )


class LaunchTokenInvalidProblem(Problem):
    slug = "launch-token-invalid"
    status = 401
    title = _("The launch token was not accepted")
    description = (
        "The launch token is unknown, already exchanged or expired, or its player can no "
        "longer play. A launch token is good once, for LAUNCH_TOKEN_TTL_SECONDS (120 s): ask "
        "the operator for a new game-launch URL."
    )


class OriginNotAllowedProblem(Problem):
    slug = "origin-not-allowed"
    status = 403
    title = _("The request's Origin is not one the operator registered")
    description = (
        "A browser request (or socket) carries the Origin of the page that made it; it must "
        "be the platform itself or an origin the caller's operator registered "
        "(/api/v1/operators/me/origins, docs/browser-clients.md). Requests without an "
        "Origin (servers) are not affected."
    )


class LiveModeForbiddenProblem(Problem):
    slug = "live-mode-forbidden"
    status = 403
    title = _("A test-mode key cannot reach live mode")
    description = (
        "A gop_test_ key acts in its sandbox only: it cannot create, list or manage live keys "
        '(docs/api.md "Sandbox"). Use a live key (gop_...) for live mode.'
    )


class PermissionDeniedProblem(Problem):
    slug = "permission-denied"
    status = 403
    title = _("You may not do this")


class NotFoundProblem(Problem):
    slug = "not-found"
    status = 404
    title = _("Not found")
    description = "The resource does not exist, or belongs to another operator."


class MethodNotAllowedProblem(Problem):
    slug = "method-not-allowed"
    status = 405
    title = _("Method not allowed")


class NotAcceptableProblem(Problem):
    slug = "not-acceptable"
    status = 406
    title = _("Not acceptable")
    description = (
        "The endpoint does not serve the `format` asked for, or any type the Accept header "
        "allows. Every endpoint serves JSON; the reports also serve CSV."
    )


class UnsupportedMediaTypeProblem(Problem):
    slug = "unsupported-media-type"
    status = 415
    title = _("Unsupported media type")
    description = "Send JSON with Content-Type: application/json."


class ThrottledProblem(Problem):
    slug = "throttled"
    status = 429
    title = _("Too many requests")
    description = "Slow down; `retry_after` says how many seconds to wait."

    def headers(self) -> dict[str, str]:
        """``Retry-After`` in whole seconds, never early (rounded up past the wait)."""
        retry_after = self.extensions.get("retry_after")
        retry = {"Retry-After": str(int(retry_after) + 1)} if retry_after else {}
        return retry | super().headers()


class LoginLockedOutProblem(ThrottledProblem):
    slug = "login-locked-out"
    status = 429
    title = _("Too many failed staff logins")
    description = (
        "Staff logins from this address failed too often; no password is checked until the "
        "lockout ends. `retry_after` says how many seconds that is."
    )


# --- Four eyes (docs/backoffice.md): the wallet's approvals and the staff access changes ---
class FourEyesRequiredProblem(Problem):
    slug = "four-eyes-required"
    status = 403
    title = _("Another person must decide")
    description = (
        "Reversals, manual adjustments, cashier-cap raises, net settlements, confiscations, "
        "staff's network tournaments and tournament cancellations, and changes of a staff "
        "user's access are proposed by one staff member and approved or rejected by another: "
        "the proposer can never decide their own request, nor a staff user a change of their "
        "own access."
    )


class ApprovalNotPendingProblem(Problem):
    slug = "approval-not-pending"
    status = 409
    title = _("The request is already decided")
    description = (
        "The approval request was rejected or failed (or, for a rejection, already executed): "
        "`status` says which. Approving an executed request again changes nothing (200)."
    )


class ApprovalInvalidProblem(Problem):
    slug = "approval-invalid"
    status = 422
    title = _("The proposal is not valid")
    description = (
        "The proposed action's payload does not fit its kind (docs/backoffice.md): e.g. a "
        "reversal of another operator's transaction, an adjustment of zero."
    )


class ProposerNotEntitledProblem(Problem):
    slug = "proposer-not-entitled"
    status = 409
    title = _("The proposer may no longer propose this request")
    description = (
        "A request is approved and executed only while its proposer may still propose it: "
        "an active staff user whose role holds the kind's propose permission and whose "
        "operator scope covers the request's operator. Otherwise nothing runs and the request "
        "is recorded failed (docs/backoffice.md); an entitled staff member proposes it anew."
    )


class IdempotencyKeyMissingProblem(Problem):
    slug = "idempotency-key-missing"
    status = 400
    title = _("An Idempotency-Key header is required")
    description = "Every operator write carries a unique Idempotency-Key (1-255 characters)."


class IdempotencyKeyReusedProblem(Problem):
    slug = "idempotency-key-reused"
    status = 422
    title = _("The Idempotency-Key was already used for a different request")
    description = "A key may be replayed only with the same method, path and body."


class IdempotencyRequestInFlightProblem(Problem):
    slug = "idempotency-request-in-flight"
    status = 409
    title = _("A request with this Idempotency-Key is still being processed")
    description = "Retry after a moment to receive the first request's response."


class SecretNotReplayableProblem(Problem):
    slug = "secret-not-replayable"
    status = 409
    title = _("The first response carried a secret, which is shown only once")
    description = (
        "A replay of a request whose response issued a secret (API key, session token, "
        "signing or webhook secret) does not show it again: secrets are never stored. "
        "`first_response` is that response with the secret withheld; send a new request "
        "with a new Idempotency-Key to get a new secret."
    )


class DatabaseUnavailableProblem(Problem):
    slug = "database-unavailable"
    status = 503
    title = _("The database is unavailable")
    description = (
        "The server lost its database connection (a restart or a failover of the database or "
        "of its connection pooler) and could not finish the request. Try again after "
        "`Retry-After` seconds: an operator write with the same Idempotency-Key (it is done "
        "exactly once, whether or not this attempt committed), a move with the same "
        "`expected_seq` (refused as `stale-sequence` if it was taken)"
    )

    def headers(self) -> dict[str, str]:
        return {"Retry-After": "2"} | super().headers()


class ServerErrorProblem(Problem):
    slug = "server-error"
    status = 500
    title = _("Internal server error")
