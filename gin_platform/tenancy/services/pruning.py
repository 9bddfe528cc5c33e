"""What is kept only for a while, deleted in batches (beat: prune-expired-records)."""

from __future__ import annotations

from django.db.models import Q
from django.utils import timezone

from gin_platform.http.idempotency import idempotency_records_prune
from gin_platform.models import LaunchToken, SocketTicket


def _prune(queryset, batch_size: int) -> int:
    deleted = 0
    while True:
        batch = list(queryset.values_list("pk", flat=True)[:batch_size])
        if not batch:
            return deleted
        count, _ = queryset.filter(pk__in=batch).delete()
        deleted += count


def expired_records_prune(*, batch_size: int = 5000) -> int:
    """Delete what is kept only for a while, in batches: Idempotency-Key records past
    IDEMPOTENCY_RETENTION_SECONDS, socket tickets used or expired, launch tokens expired
    (their mint and exchange stay in the audit log). Returns how many rows were deleted."""
    now = timezone.now()
    tickets = SocketTicket.objects.filter(Q(used_at__isnull=False) | Q(expires_at__lt=now))
    launch_tokens = LaunchToken.objects.filter(expires_at__lt=now)
    return (
        idempotency_records_prune(batch_size=batch_size)
        + _prune(tickets, batch_size)
        + _prune(launch_tokens, batch_size)
    )
