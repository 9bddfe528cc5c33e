"""Credentials remembered by each web process, trusted only while one epoch holds.

Every API request used to read its credential from the database before anything else: an
operator's API key with its operator and live twin, or a player's session with the player,
the operator and the twin (one three- or four-table join, and a model instance per table).
Each process now keeps the rows of the credentials it has seen, with the epoch that was
current *before* it read them, and takes them again only if that epoch is still current:
the epoch lives in Redis and is read in the same round trip as the failed-authentication
guard and the throttle (``gate.pass_gate``), so a remembered credential costs no
database read and no extra round trip.

Any committed change to an operator, an API key, a player or a player session (a
revocation, a rotation, a suspension, a new webhook URL, a staff edit in the admin: every
``save`` and ``delete``, and every queryset ``update`` other than the last-use stamp, see
``models.CredentialQuerySet``) sets a new epoch, and from then on no process takes what it
remembered: the next request of each credential reads the database again. New rows set
none (nothing can remember a row before it exists), nor does deleting a session that no
longer authenticates (the prune of expired sessions). Because the epoch is read before the
database, a process that read a row just before a change committed has remembered it under
the old epoch and cannot take it afterwards. What the request presents is still checked at
every request, on the remembered row: the secret's hash, the revocation and expiry times,
the player's and the operator's status, the mode. A remembered row is also dropped after
``REMEMBER_SECONDS`` whatever the epoch says, which bounds how long a lost epoch change
(Redis unreachable at that moment) could go unseen.

Nothing is remembered without Redis (the demo's local-memory cache is per process) or while
it cannot be reached: then every request reads the database, as before. Each request gets
copies of the remembered instances, never the shared ones, so nothing a view sets on its
``request.user`` reaches another request.
"""

from __future__ import annotations

import copy
import secrets
import threading
import time
from dataclasses import dataclass
from typing import Any, Final, Generic, TypeVar

from django.core.cache import cache
from django.db import models, transaction
from django.db.models.signals import post_delete, post_save
from django.utils import timezone

from gin_platform.models import (
    Operator,
    OperatorApiKey,
    Player,
    PlayerSession,
    credentials_updated,
)
from gin_platform.request_path.cache import CACHE_ERRORS, warn_cache_unreachable

EPOCH_KEY = "auth-epoch:credentials"
REMEMBER_SECONDS = 30.0
# Only credentials that exist are remembered (a row was found), so an attacker's made-up
# ones take no room. Past this the process drops what is too old, then everything.
MAX_REMEMBERED = 20_000

Row = TypeVar("Row", bound=models.Model)


@dataclass(frozen=True)
class Kind(Generic[Row]):
    """A kind of credential: the name it is remembered under, and the model of its rows."""

    name: str
    model: type[Row]


API_KEY: Final = Kind("api-key", OperatorApiKey)  # remembered by the key's public prefix
SESSION: Final = Kind("session", PlayerSession)  # remembered by the token's hash


@dataclass(frozen=True)
class Remembered(Generic[Row]):
    row: Row  # with the rows it was read with (select_related); never handed out
    epoch: str
    until: float  # time.monotonic()

    def copy(self) -> Row:
        """This request's own instances of the row and of every row read with it."""
        return _detached(self.row, {})


# Each entry is of the kind its key names (remember() puts it there): Remembered[kind.model].
_remembered: dict[tuple[str, str], Remembered[Any]] = {}
_lock = threading.Lock()


def remembered(kind: Kind[Row], ident: str) -> Remembered[Row] | None:
    """What is remembered for this credential (its epoch still to be checked), if not too old."""
    entry = _remembered.get((kind.name, ident))
    if entry is None or entry.until < time.monotonic():
        return None
    return entry


def remember(kind: Kind[Row], ident: str, row: Row, *, epoch: str) -> Remembered[Row]:
    """Remember ``row``, read from the database after ``epoch`` was read; it is the
    remembered instance from now on (the caller takes a copy too)."""
    now = time.monotonic()
    entry = Remembered(row=row, epoch=epoch, until=now + REMEMBER_SECONDS)
    with _lock:
        if len(_remembered) >= MAX_REMEMBERED:
            for stale in [key for key, old in _remembered.items() if old.until < now]:
                del _remembered[stale]
            if len(_remembered) >= MAX_REMEMBERED:
                _remembered.clear()
        _remembered[(kind.name, ident)] = entry
    return entry


def forget_remembered() -> None:
    """Forget everything this process remembers (tests; the epoch makes it unneeded elsewhere)."""
    with _lock:
        _remembered.clear()


def new_epoch() -> int:
    """A fresh epoch: a random integer (the cache stores integers as plain Redis strings,
    which the gate's script reads and compares as they are)."""
    return secrets.randbits(62)


def credentials_changed() -> None:
    """Set a new epoch now: no process takes a credential it remembered before."""
    try:
        cache.set(EPOCH_KEY, new_epoch(), timeout=None)
    except CACHE_ERRORS:
        # What is remembered then holds until it is REMEMBER_SECONDS old.
        warn_cache_unreachable(EPOCH_KEY)


def credentials_changed_now_and_on_commit(*, using: str | None) -> None:
    """A change to a credential's rows: a new epoch now and another once the change
    commits. The second is the one that matters: a process that reads the row between the
    two (the change not yet visible) remembers it under the first, which the second ends.
    The first costs only a re-read, and makes the change hold at once inside the
    transaction that made it (tests, which never commit, among them)."""
    credentials_changed()
    transaction.on_commit(credentials_changed, using=using)


def _saved(sender, instance, created: bool, **kwargs) -> None:
    if not created:
        credentials_changed_now_and_on_commit(using=kwargs.get("using"))


def _updated(sender, using: str | None = None, **kwargs) -> None:
    credentials_changed_now_and_on_commit(using=using)


def _deleted(sender, instance, **kwargs) -> None:
    if isinstance(instance, PlayerSession) and not instance.is_valid_at(timezone.now()):
        return  # a revoked or expired session authenticates nothing either way
    credentials_changed_now_and_on_commit(using=kwargs.get("using"))


def connect_signals() -> None:
    """Every change to a credential's rows sets a new epoch: a ``save`` or ``delete``
    (Django's signals) and a queryset ``update`` (``models.credentials_updated``)."""
    credentials_updated.connect(
        _updated, dispatch_uid="gin_platform.request_path.remembered_credentials.update"
    )
    for model in (Operator, OperatorApiKey, Player, PlayerSession):
        uid = f"gin_platform.request_path.remembered_credentials.{model.__name__}"
        post_save.connect(_saved, sender=model, dispatch_uid=f"{uid}.save")
        post_delete.connect(_deleted, sender=model, dispatch_uid=f"{uid}.delete")


def _detached(instance: Row, copies: dict[int, Any]) -> Row:
    """A copy of ``instance`` with copies of the related rows it holds (Django's
    ``__getstate__`` gives the copy its own state and its own dict of related rows; a
    one-to-one holds its row both ways, hence ``copies``: by ``id()`` of each row, its copy,
    of the row's own model)."""
    done = copies.get(id(instance))
    if done is not None:
        return done
    clone = copies[id(instance)] = copy.copy(instance)
    related = clone._state.fields_cache
    for name, row in related.items():
        if row is not None:
            related[name] = _detached(row, copies)
    return clone
