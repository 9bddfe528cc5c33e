"""Idempotency-Key handling for operator writes (README "API conventions").

- The key is unique per operator. The first request claims it (a committed in-flight row).
- The view's effects and the stored response commit in ONE transaction, so either both
  exist or neither does: a crash can never leave an effect without its stored response.
- A replay with the same method, path and body gets the first response (with the header
  ``Idempotent-Replayed: true``); the same key with anything else is 422; while the first is
  in flight, 409.
- Domain errors (4xx) are answers too: they are stored and replayed. A 5xx or a crash
  releases the key so the client may retry.
- An in-flight row older than ``IDEMPOTENCY_STALE_AFTER_SECONDS`` belongs to a request that
  died; a new request takes it over with a new claim, and the old request, should it still
  be running, fails to complete and rolls back.
- Secrets are shown once and never stored. The stored response passes through
  gin_platform/redaction.py: every API key, session or launch token and signing or webhook
  secret in it (known by its registered prefix: ``gop_``, ``gps_``, ``glt_``, ``whsec_``, ...)
  is replaced by ``[withheld]`` and the record is marked ``secret_withheld``. A replay of
  such a success answers 409 ``secret-not-replayable`` with the first response minus its
  secrets (``first_response``), so the caller learns what was created (to revoke it) and
  mints a new secret with a new key. Any endpoint, present or future, gets this by issuing
  secrets with those prefixes.
- Records are kept ``IDEMPOTENCY_RETENTION_SECONDS`` (24 h by default, as Stripe); the beat
  job ``prune-expired-records`` deletes older ones, and a key replayed after the
  retention is a new request (a record past it is never replayed, even before the job ran).
"""

from __future__ import annotations

import functools
import hashlib
import json
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from rest_framework.exceptions import APIException
from rest_framework.request import Request
from rest_framework.response import Response

from gin_platform.events.webhooks import run_after_rollback
from gin_platform.http.problem_handler import problem_exception_handler
from gin_platform.http.problems import (
    PROBLEM_CONTENT_TYPE,
    IdempotencyKeyMissingProblem,
    IdempotencyKeyReusedProblem,
    IdempotencyRequestInFlightProblem,
    PermissionDeniedProblem,
    Problem,
    SecretNotReplayableProblem,
)
from gin_platform.locks import lock_idempotency_record
from gin_platform.models import IdempotencyRecord
from gin_platform.redaction import withhold_secrets
from gin_platform.tenancy.principals import OperatorPrincipal

HEADER = "Idempotency-Key"
REPLAY_HEADER = "Idempotent-Replayed"
MAX_KEY_LENGTH = 255


class _LostClaim(Exception):
    """Another request took this key over; our effects must roll back."""


def request_fingerprint(request: Request) -> str:
    canonical = json.dumps(
        {"method": request.method, "path": request.path, "body": request.data},
        sort_keys=True,
        separators=(",", ":"),
        default=str,
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def idempotent(view_method: Callable[..., Response]) -> Callable[..., Response]:
    """Decorate an APIView write method (post/put/patch/delete) of an operator endpoint."""

    @functools.wraps(view_method)
    def wrapper(view, request: Request, *args: Any, **kwargs: Any) -> Response:
        return run_idempotently(
            request=request, handler=lambda: view_method(view, request, *args, **kwargs)
        )

    wrapper.idempotent = True  # type: ignore[attr-defined]  # read by the schema hook
    return wrapper


def run_idempotently(*, request: Request, handler: Callable[[], Response]) -> Response:
    principal = request.user
    if not isinstance(principal, OperatorPrincipal):
        raise PermissionDeniedProblem("Idempotent writes are made with an operator API key")
    key = request.headers.get(HEADER, "").strip()
    if not key or len(key) > MAX_KEY_LENGTH or "\x00" in key:
        raise IdempotencyKeyMissingProblem(
            f"Send a unique {HEADER} header (1-{MAX_KEY_LENGTH} characters) with every write"
        )
    fingerprint = request_fingerprint(request)
    assert request.method is not None  # set by Django's handler for every request
    claimed = _claim(
        operator_id=principal.operator.pk,
        key=key,
        fingerprint=fingerprint,
        method=request.method,
        path=_storable(request.path),
    )
    if isinstance(claimed, Response):
        return claimed
    record = claimed
    try:
        with transaction.atomic():
            response = handler()
            if response.status_code >= 500:
                raise _ServerError(response)
            _complete(record, response)
        return response
    except _ServerError as failed:
        _release(record)
        return failed.response
    except (Problem, APIException) as exc:
        # The effects rolled back with the transaction; the error is the answer to this key.
        response = problem_exception_handler(exc, {"request": request})
        if response.status_code >= 500:
            _release(record)
            return response
        with transaction.atomic():
            _complete(record, response)
            run_after_rollback(exc)  # a refusal's event (deposit.refused...): once per key
        return response
    except _LostClaim as exc:
        raise IdempotencyRequestInFlightProblem(
            "This Idempotency-Key was taken over by a newer request"
        ) from exc
    except BaseException:
        _release(record)
        raise


class _ServerError(Exception):
    def __init__(self, response: Response) -> None:
        super().__init__("server error")
        self.response = response


def _claim(
    *, operator_id: Any, key: str, fingerprint: str, method: str, path: str
) -> IdempotencyRecord | Response:
    try:
        with transaction.atomic():
            return IdempotencyRecord.objects.create(
                operator_id=operator_id,
                key=key,
                fingerprint=fingerprint,
                method=method,
                path=path,
            )
    except IntegrityError:
        pass
    existing = IdempotencyRecord.objects.filter(operator_id=operator_id, key=key).first()
    if existing is not None and existing.created_at < _retention_cutoff():
        # Past the retention the key is forgotten, whether or not the pruning job ran yet.
        IdempotencyRecord.objects.filter(pk=existing.pk, claim=existing.claim).delete()
        existing = None
    if existing is None:  # released (or expired) between our insert and our read: claim again
        return _claim(
            operator_id=operator_id, key=key, fingerprint=fingerprint, method=method, path=path
        )
    if existing.fingerprint != fingerprint:
        raise IdempotencyKeyReusedProblem(
            f"{HEADER} {key!r} was first used for {existing.method} {existing.path} "
            "with a different body"
        )
    if existing.state == IdempotencyRecord.State.COMPLETED:
        return _replay(existing)
    stale_before = timezone.now() - timedelta(seconds=settings.IDEMPOTENCY_STALE_AFTER_SECONDS)
    new_claim = uuid.uuid4()
    taken = IdempotencyRecord.objects.filter(
        pk=existing.pk,
        state=IdempotencyRecord.State.IN_FLIGHT,
        claim=existing.claim,
        created_at__lt=stale_before,
    ).update(claim=new_claim, created_at=timezone.now())
    if taken:
        existing.claim = new_claim
        return existing
    raise IdempotencyRequestInFlightProblem(
        f"The first request with {HEADER} {key!r} is still being processed"
    )


def _complete(record: IdempotencyRecord, response: Response) -> None:
    locked = lock_idempotency_record(record.pk)
    if locked is None or locked.claim != record.claim:
        raise _LostClaim
    locked.state = IdempotencyRecord.State.COMPLETED
    locked.response_status = response.status_code
    locked.response_body, locked.secret_withheld = withhold_secrets(_storable(response.data))
    locked.completed_at = timezone.now()
    locked.save(
        update_fields=[
            "state",
            "response_status",
            "response_body",
            "secret_withheld",
            "completed_at",
        ]
    )


def _storable(value: Any) -> Any:
    """``value`` with each NUL character replaced by U+FFFD. PostgreSQL stores no NUL in
    text or jsonb, yet a path may carry one (``%00``) and a validation problem echoes the
    offending input; without this the write answered 500. A replay shows U+FFFD there."""
    if isinstance(value, str):
        return value.replace("\x00", "\ufffd")
    if isinstance(value, dict):
        return {_storable(k): _storable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_storable(item) for item in value]
    return value


def _release(record: IdempotencyRecord) -> None:
    IdempotencyRecord.objects.filter(
        pk=record.pk, claim=record.claim, state=IdempotencyRecord.State.IN_FLIGHT
    ).delete()


def _replay(record: IdempotencyRecord) -> Response:
    if record.secret_withheld and record.response_status and record.response_status < 400:
        problem = SecretNotReplayableProblem(
            f"The response to {record.method} {record.path} carried a secret, which is shown "
            "only once and never stored. Send the request again with a new "
            f"{HEADER} to get a new one (and revoke the unseen one if you can: "
            "first_response says what was created).",
            first_response={"status": record.response_status, "body": record.response_body},
        )
        response = Response(problem.body(record.path), status=problem.status)
        response.content_type = PROBLEM_CONTENT_TYPE
    else:
        response = Response(record.response_body, status=record.response_status)
        if record.response_status and record.response_status >= 400:
            response.content_type = PROBLEM_CONTENT_TYPE
    response[REPLAY_HEADER] = "true"
    return response


def _retention_cutoff() -> datetime:
    return timezone.now() - timedelta(seconds=settings.IDEMPOTENCY_RETENTION_SECONDS)


def idempotency_records_prune(*, batch_size: int = 5000) -> int:
    """Delete the records older than ``IDEMPOTENCY_RETENTION_SECONDS`` (beat job
    ``prune-expired-records``), in batches so no statement holds many row locks for
    long. Returns how many were deleted."""
    cutoff = _retention_cutoff()
    deleted = 0
    while True:
        batch = list(
            IdempotencyRecord.objects.filter(created_at__lt=cutoff).values_list("pk", flat=True)[
                :batch_size
            ]
        )
        if not batch:
            return deleted
        count, _ = IdempotencyRecord.objects.filter(pk__in=batch, created_at__lt=cutoff).delete()
        deleted += count
