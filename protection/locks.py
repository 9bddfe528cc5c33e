"""Row locks of player protection (one lock helper module per app). A marker of harm's rule
is locked alone, while its settings change."""

from __future__ import annotations

from protection.models import HarmRule


def lock_harm_rule(*, code: str, params: dict) -> HarmRule:
    """The rule's row (made with ``params`` if the seeded rows are gone: a flushed test
    database), locked until the end of the transaction."""
    HarmRule.objects.get_or_create(code=code, defaults={"params": params})
    return HarmRule.objects.select_for_update().get(code=code)
