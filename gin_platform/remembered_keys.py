"""Operator API keys remembered by each web process, trusted only while one epoch holds.

Every operator request used to read its API key, its operator and the live twin from the
database (one three-table join) before anything else. Each process now keeps the rows of
the keys it has seen, with the epoch that was current *before* it read them, and takes them
again only if that epoch is still current: the epoch lives in Redis and is read in the same
round trip as the failed-authentication guard and the throttle (``throttling.pass_gate``),
so a remembered key costs no database read and no extra round trip.

Any committed change to an operator or an API key (a revocation, a rotation, a suspension,
a new webhook URL, a staff edit in the admin: every ``save`` and ``delete``) sets a new
epoch, and from then on no process takes what it remembered: the next request of each key
reads the database again. Because the epoch is read before the database, a process that
read a row just before a change committed has remembered it under the old epoch and cannot
take it afterwards. Keys are looked up by the public prefix; the secret's hash, the
revocation time, the operator's status and the mode are still checked at every request, on
the remembered row. A remembered row is also dropped after ``REMEMBER_SECONDS`` whatever the
epoch says, which bounds how long a lost epoch change (Redis unreachable at that moment)
could go unseen.

Nothing is remembered without Redis (the demo's local-memory cache is per process) or while
it cannot be reached: then every request reads the database, as before. Each request gets
copies of the remembered instances, never the shared ones, so nothing a view sets on its
``request.user.operator`` reaches another request.
"""

from __future__ import annotations

import copy
import logging
import secrets
import threading
import time
from dataclasses import dataclass

from django.core.cache import cache
from django.db import transaction
from django.db.models.signals import post_delete, post_save

from gin_platform.models import Operator, OperatorApiKey
from gin_platform.throttling import CACHE_ERRORS, warn_cache_unreachable

logger = logging.getLogger(__name__)

EPOCH_KEY = "auth-epoch:operator-keys"
REMEMBER_SECONDS = 30.0
# Only keys that exist are remembered (a row was found for the prefix), so this is far
# above any real number of keys; past it the process starts again from nothing.
MAX_REMEMBERED = 10_000


@dataclass(frozen=True)
class RememberedKey:
    api_key: OperatorApiKey  # with its operator and the operator's live twin; never handed out
    epoch: str
    until: float  # time.monotonic()

    def copy(self) -> OperatorApiKey:
        """This request's own instances of the key, its operator and the live twin."""
        operator = _copied(self.api_key.operator)
        live = operator.live_operator if operator.live_operator_id is not None else None
        if live is not None:
            operator.live_operator = _copied(live)
        api_key = _copied(self.api_key)
        api_key.operator = operator
        return api_key


_remembered: dict[str, RememberedKey] = {}
_lock = threading.Lock()


def remembered_key(prefix: str) -> RememberedKey | None:
    """The key remembered for ``prefix`` (its epoch still to be checked), if not too old."""
    entry = _remembered.get(prefix)
    if entry is None or entry.until < time.monotonic():
        return None
    return entry


def remember_key(api_key: OperatorApiKey, *, epoch: str) -> RememberedKey:
    """Remember ``api_key``, read from the database after ``epoch`` was read; it is the
    remembered instance from now on (the caller takes a copy too)."""
    entry = RememberedKey(api_key=api_key, epoch=epoch, until=time.monotonic() + REMEMBER_SECONDS)
    with _lock:
        if len(_remembered) >= MAX_REMEMBERED:
            _remembered.clear()
        _remembered[api_key.prefix] = entry
    return entry


def forget_remembered_keys() -> None:
    """Forget every key this process remembers (tests; the epoch makes it unneeded elsewhere)."""
    with _lock:
        _remembered.clear()


def keys_changed() -> None:
    """Set a new epoch now: no process takes a key it remembered before."""
    try:
        cache.set(EPOCH_KEY, new_epoch(), timeout=None)
    except CACHE_ERRORS:
        # Remembered keys then hold until they are REMEMBER_SECONDS old.
        warn_cache_unreachable(EPOCH_KEY)


def new_epoch() -> int:
    """A fresh epoch: a random integer (the cache stores integers as plain Redis strings,
    which the gate's script reads and compares as they are)."""
    return secrets.randbits(62)


def _keys_changed(sender, **kwargs) -> None:
    """post_save / post_delete of an operator or an API key."""
    keys_changed_now_and_on_commit(using=kwargs.get("using"))


def keys_changed_now_and_on_commit(*, using: str | None) -> None:
    """A change to an operator or an API key: a new epoch now and another once the change
    commits. The second is the one that matters: a process that reads the row between the
    two (the change not yet visible) remembers it under the first, which the second ends.
    The first costs only a re-read, and makes the change hold at once inside the
    transaction that made it (tests, which never commit, among them)."""
    keys_changed()
    transaction.on_commit(keys_changed, using=using)


def connect_signals() -> None:
    for model in (Operator, OperatorApiKey):
        uid = f"gin_platform.remembered_keys.{model.__name__}"
        post_save.connect(_keys_changed, sender=model, dispatch_uid=f"{uid}.save")
        post_delete.connect(_keys_changed, sender=model, dispatch_uid=f"{uid}.delete")


def _copied(instance):
    """A shallow copy with its own state: Django's ``__getstate__`` copies the instance's
    fields and its cache of related objects (which the caller then replaces)."""
    return copy.copy(instance)
