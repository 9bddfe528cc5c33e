"""The one module that pushes (docs/realtime.md). Services call ``match_changed`` inside the
transaction that changed a match; nothing is sent unless and until it commits.

After the commit, each audience somebody listens to (``presence.listened``) gets ONE message,
rendered once for all its sockets by the presenters that build the REST answers: a seat gets
the new feed events as that seat may see them and its game view; the watchers get the public
events and the watch view. The message goes out already encoded as the socket's JSON text,
with the sequence numbers the consumer needs to keep every socket in order.

Several changes of one match in one transaction (a knock that ends the hand, finishes the
match and deals nothing more) are coalesced into one push. A push that fails (the channel
layer down) is logged and dropped: the sockets repair themselves from the database at their
next message or heartbeat, and the move itself has committed.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from django.db import connection, transaction

from games import selectors
from games.realtime import local_sockets, presence, view_cache
from games.realtime.audience import MAX_SEATS, Audience, match_audiences
from games.realtime.layer_send import group_send_many
from games.realtime.render import audience_events, audience_view, waiting_list_message
from games.selectors import EVENTS_PAGE_MAX
from gin_platform.enqueue import on_commit_logged
from gin_platform.http.json_text import json_str
from wallet.selectors.rates import display_rates_reused

if TYPE_CHECKING:
    from games.models import Hand, HandEvent, Match

logger = logging.getLogger(__name__)

PUSH = "match.push"  # the consumers' handler: ``match_push``
PRESENCE = "match.presence"


def encode(message: dict[str, Any]) -> str:
    """The socket's JSON, encoded as the REST answers are (ISO times: json_text.py)."""
    return json_str(message)


@dataclass
class _Pending:
    match_id: int
    # The feed's sequence number before the transaction's first event and after its last
    # (None: no event yet).
    after: int | None = None
    last: int | None = None
    # The connection's list of commit hooks this push was registered in: a later change in
    # the same transaction joins it; a new transaction (after a commit or a rollback, when
    # Django starts a new list) registers a push of its own.
    hooks: object = None
    # What the transaction wrote, kept so the push renders it without reading it back: the
    # feed rows in order, and (``match_written``) the match with its shown seats and its
    # newest hands as they were last saved. Kept only while every change was made outside
    # any savepoint, so nothing of it can be undone unless the whole transaction is (and
    # then nothing is pushed); ``rows`` is None once that is not so.
    rows: list[HandEvent] | None = field(default_factory=list)
    final: tuple[Match, tuple[Hand, ...]] | None = None
    # Whether a change may have made the polled views' entries stale (view_cache.py): not a
    # finished match settled, whose entries went stale when it finished.
    views_changed: bool = True


_local = threading.local()


def _pending() -> dict[int, _Pending]:
    if not hasattr(_local, "pending"):
        _local.pending = {}
    return _local.pending


def match_changed(
    *, match_id: int, rows: Sequence[HandEvent] = (), views_changed: bool = True
) -> None:
    """Push the match's change to its listeners once the current transaction commits:
    ``rows`` are the feed events it appended (none for a seat taken or left, or the match
    settled: then only the views are pushed).
    ``views_changed=False``: the change leaves no polled view's entry to make stale (a
    finished match settled: view_cache.py caches running matches only).

    The push reads the events back from the database after the commit, from the first of
    ``rows`` on: what it sends is what committed, never a row of a rolled-back savepoint."""
    first = min((row.match_seq for row in rows), default=None)
    last = max((row.match_seq for row in rows), default=None)
    after = None if first is None else first - 1
    hooks = connection.run_on_commit
    kept = None if _in_savepoint() else list(rows)
    pending = _pending().get(match_id)
    if pending is not None and pending.hooks is hooks and connection.in_atomic_block:
        if after is not None:
            assert last is not None  # rows were given: they have a last seq too
            pending.after = after if pending.after is None else min(pending.after, after)
            pending.last = last if pending.last is None else max(pending.last, last)
        pending.rows = None if pending.rows is None or kept is None else pending.rows + kept
        pending.final = None  # changed again since: no longer the final state
        pending.views_changed = pending.views_changed or views_changed
        return
    pending = _Pending(
        match_id=match_id,
        after=after,
        last=last,
        hooks=hooks,
        rows=kept,
        views_changed=views_changed,
    )
    _pending()[match_id] = pending
    transaction.on_commit(partial(_publish_pending, pending), robust=True)


def match_written(*, match: Match, latest_hands: Sequence[Hand]) -> None:
    """The current transaction is done changing ``match``: ``match`` (with its
    ``shown_seats``) and its newest hands, newest first, are what it saved. The push renders
    them, and the feed rows ``match_changed`` was given, instead of reading them back after
    the commit (a move's push: three statements fewer). Ignored where that would not be
    exactly what commits: a change made inside a savepoint, or seats or hands not at hand."""
    pending = _pending().get(match.pk)
    if (
        pending is None
        or pending.hooks is not connection.run_on_commit
        or pending.rows is None
        or _in_savepoint()
        or not hasattr(match, "shown_seats")
        or not latest_hands
        or (len(latest_hands) == 1 and latest_hands[0].number > 1)  # its previous: unread
    ):
        return
    for hand in latest_hands:
        hand.match = match  # as ``selectors.latest_hands`` leaves them: no read to reach it
    pending.final = (match, tuple(latest_hands[:2]))


def _in_savepoint() -> bool:
    return any(sid is not None for sid in connection.savepoint_ids)


def _publish_pending(pending: _Pending) -> None:
    if _pending().get(pending.match_id) is pending:
        del _pending()[pending.match_id]
    try:
        publish(
            match_id=pending.match_id,
            after=pending.after,
            last=pending.last,
            written=_written(pending),
            views_changed=pending.views_changed,
        )
    except Exception:  # the move has committed; sockets repair gaps from the database
        logger.exception("push of match %s failed", pending.match_id)


def _written(pending: _Pending) -> _Written | None:
    """The committed change as the transaction wrote it, when it is whole: the final match
    and hands, and every feed row from ``after`` to ``last`` (one page at most)."""
    if pending.final is None or pending.rows is None:
        return None
    match, latest_hands = pending.final
    rows = sorted(pending.rows, key=lambda row: row.match_seq)
    if pending.after is None:
        return None if rows else _Written(match, latest_hands, rows)
    expected = list(range(pending.after + 1, (pending.last or 0) + 1))
    if [row.match_seq for row in rows] != expected or len(rows) > EVENTS_PAGE_MAX:
        return None
    if match.seq != pending.last:
        return None
    return _Written(match, latest_hands, rows)


@dataclass(frozen=True)
class _Written:
    match: Match
    latest_hands: tuple[Hand, ...]
    rows: list[HandEvent]


def publish(
    *,
    match_id: int,
    after: int | None = None,
    last: int | None = None,
    written: _Written | None = None,
    views_changed: bool = True,
) -> None:
    """Render and send one message per listened audience: the feed events after ``after``
    (None: none, only the views) and the views, as committed now. ``last``, the feed's
    sequence number the change ended at, wakes the long polls. With nobody listening this
    reads nothing from the database (a game played over REST pays two cache calls).
    Every push also renews the polled views' cache (view_cache.py): with ``written`` and a
    move not sent over a socket, the entry of the player to act; else it makes the match's
    entries stale (with no feed rows, after a read of the match's seq); both in the same
    round trip.
    ``written``: the change as its transaction wrote it (``match_written``), rendered
    instead of being read back. ``views_changed=False``: no polled view's entry to make
    stale (``match_changed``)."""
    mover = _socket_mover(match_id)
    # A move sent over a socket is a game played over sockets: its players have their views
    # pushed and do not poll, so no entry is rendered for them (a poll reads the database).
    store = None
    if written is not None and last is not None and mover is None:
        store = _views_store(written)
    if store is None and views_changed:  # the polled views' entries go stale (view_cache.py)
        mark = view_cache.stale_mark(match_id=match_id, seq=last)
        store = None if mark is None else partial(_store_views, match_id, mark, [], [])
    here = local_sockets.layer_delivers_here()
    # Each seat's count of sockets: the mover's, to send its message itself; every seat's
    # when this process may hold all of a seat's sockets (local_sockets.py).
    mover_seat = None if mover is None else mover.seat
    count_seats: Sequence[int] = (
        range(MAX_SEATS) if here is not None else () if mover_seat is None else (mover_seat,)
    )
    try:
        audiences, counted = presence.seq_pushed_and_listened(
            match_id=match_id,
            seq=last,
            audiences=match_audiences(match_id, seat_count=MAX_SEATS),
            count_seats=count_seats,
            first=store,
        )
    except Exception:
        if store is not None:  # once more on its own: no entry may outlive this change
            view_cache.forget(match_id=match_id, seq=last)
        raise
    if not audiences:
        return
    if written is not None:
        match, rows, latest_hands = written.match, written.rows, list(written.latest_hands)
    else:
        read = selectors.match_for_push(match_id=match_id)
        if read is None:
            return
        match = read
        # The hands first, read once for every audience: they may read the match again (a
        # move committed meanwhile), and the events then stop at the seq of that view.
        latest_hands = selectors.latest_hands(match)
        rows = (
            []
            if after is None
            else selectors.match_event_rows_through(match=match, after=after, through=match.seq)
        )
    # The mover's socket, when it is its seat's only one, sends its seat's message itself:
    # through the layer it would only come back to that one socket.
    kept = mover if mover_seat is not None and counted[mover_seat] == 1 else None
    kept = kept if kept in audiences else None
    messages = []
    handed: dict[asyncio.AbstractEventLoop, list[tuple[str, dict[str, Any]]]] = {}
    with display_rates_reused():
        for audience in audiences:
            message = audience_message(
                match=match, audience=audience, rows=rows, latest_hands=latest_hands
            )
            if message is None:
                continue
            if audience == kept:
                _local.kept.append(message)
                continue
            loop = None
            if here is not None and audience.seat is not None:
                loop = local_sockets.all_here(audience, counted=counted[audience.seat])
            if loop is None:
                messages.append((audience.group, message))
            else:
                handed.setdefault(loop, []).append((audience.group, message))
    for loop, sends in handed.items():  # first: they do not wait for Redis, nor fail with it
        assert here is not None  # handed only through the layer that delivers here
        try:
            local_sockets.deliver(here, loop, sends)
        except RuntimeError:  # the loop has closed (the process is stopping): nobody to tell
            logger.warning("push of match %s not handed over: its event loop is closed", match_id)
    group_send_many(messages)


def _views_store(written: _Written) -> Callable[[Any], None] | None:
    """What stores the polled views' entries of ``written`` on the push's pipeline; None if
    they could not be rendered (then the entries are made stale instead)."""
    try:
        with display_rates_reused():
            mark, keys, values = view_cache.render_entries(
                match=written.match, latest_hands=written.latest_hands
            )
    except Exception:  # the move has committed: its push goes on, the cache is not used
        logger.exception("view cache entry of match %s not rendered", written.match.pk)
        return None
    return partial(_store_views, written.match.pk, mark, keys, values)


def _store_views(match_id: int, mark: int, keys: list[str], values: list[bytes], pipe: Any) -> None:
    view_cache.store(match_id=match_id, mark=mark, keys=keys, values=values, client=pipe)


@contextmanager
def moved_over_socket(audience: Audience) -> Iterator[None]:
    """The current thread applies a move sent over a socket of ``audience`` (a seat): if
    that socket is its seat's only one when the move is pushed, the seat's message is not
    published but kept for the socket to send itself (``kept_for_mover``), a trip through
    the channel layer less. A socket of that seat opening meanwhile reads the committed
    move for its ``hello``: it counts itself before it reads."""
    _local.mover, _local.kept = audience, []
    try:
        yield
    finally:
        _local.mover = None


def kept_for_mover() -> list[dict[str, Any]]:
    """The layer messages ``moved_over_socket`` kept back, in order, once: the move's, and
    any pushed after it before the move returned (a finished match settled on its commit,
    where tasks run eagerly). Empty: published, or nothing pushed."""
    kept, _local.kept = getattr(_local, "kept", None) or [], []
    return kept


def _socket_mover(match_id: int) -> Audience | None:
    mover = getattr(_local, "mover", None)  # set, with ``kept``, by moved_over_socket
    if mover is None or mover.seat is None or mover.match_id != match_id:
        return None
    return mover


def audience_message(
    *,
    match: Match,
    audience: Audience,
    rows: Sequence[HandEvent],
    latest_hands: Sequence[Hand] = (),
) -> dict[str, Any] | None:
    """The layer message for one audience: the socket text and its sequence numbers.
    ``first``/``last``: the events' sequence numbers (0 when it carries only a view)."""
    view = audience_view(match=match, audience=audience, latest_hands=latest_hands)
    if view is None:  # a seat nobody holds (yet)
        return None
    # A message is of one seq: its view's, and its events lead up to that view.
    seq = view["seq"]
    events = audience_events((row for row in rows if row.match_seq <= seq), audience=audience)
    text = encode(
        {"type": "events", "seq": seq, "events": events, "view": view}
        if events
        else {"type": "view", "seq": seq, "view": view}
    )
    return {
        "type": PUSH,
        "first": events[0]["seq"] if events else 0,
        "last": events[-1]["seq"] if events else 0,
        "seq": seq,
        "text": text,
    }


def presence_changed(*, match_id: int) -> None:
    """A player's socket came or went: tell everybody at the table (not a feed event)."""
    seat_count, bot_seats = selectors.match_presence_facts(match_id=match_id)
    seats = presence.connected_seats(match_id=match_id, bot_seats=bot_seats, seat_count=seat_count)
    message = {"type": PRESENCE, "presence": seats}
    audiences = match_audiences(match_id, seat_count=seat_count)
    group_send_many([(audience.group, message) for audience in audiences])


# --- A player's own channel (docs/realtime.md "The player's socket") ------------------------
PLAYER_PUSH = "player.push"  # the player socket's handler: ``player_push``


def player_group(player_id: object) -> str:
    return f"player.{player_id}"


def player_message(*, player_id: object, message: dict[str, Any]) -> None:
    """Send ``message`` to the player's sockets (``/ws/v1/me``) once the current transaction
    commits (at once outside one; nothing if it rolls back). The one way another app pushes
    to a player (docs/realtime.md "The player's socket"): player protection's reality checks
    and session changes, a tournament's messages (R14). ``message`` is sent as it is: a
    JSON object with its own ``type``, holding only what the player may see."""
    if not isinstance(message.get("type"), str):
        raise ValueError("a player's message names its type")
    on_commit_logged(
        partial(player_message_send, player_id, message),
        what=f"push of a {message['type']} message to player {player_id}",
    )


def players_message(messages: Sequence[tuple[object, dict[str, Any]]]) -> None:
    """``player_message`` for many ``(player_id, message)`` at once: sent together once the
    transaction commits (one pipeline to the layer, not a callback and a round trip each)."""
    if not messages:
        return
    if not all(isinstance(message.get("type"), str) for _, message in messages):
        raise ValueError("a player's message names its type")
    sends = [
        (player_group(player_id), {"type": PLAYER_PUSH, "text": encode(message)})
        for player_id, message in messages
    ]
    on_commit_logged(
        partial(group_send_many, sends),
        what=f"push of {len(sends)} {messages[0][1]['type']} message(s) to players",
    )


def player_message_send(player_id: object, message: dict[str, Any]) -> None:
    """Send ``message`` to the player's sockets now (``player_message`` runs it after the
    commit)."""
    group_send_many([(player_group(player_id), {"type": PLAYER_PUSH, "text": encode(message)})])


def player_waiting_list_changed(*, player_id: object, entry_id: int) -> None:
    """A waiting-list entry of the player changed: once the transaction commits, the entry
    as the player sees it goes to their sockets (``/ws/v1/me``). Logged, never raised."""
    on_commit_logged(
        partial(_player_waiting_list_push, player_id, entry_id),
        what=f"push of waiting-list entry {entry_id}",
    )


def _player_waiting_list_push(player_id: object, entry_id: int) -> None:
    message = waiting_list_message(entry_id=entry_id)
    if message is not None:
        group_send_many([(player_group(player_id), {"type": PLAYER_PUSH, "text": encode(message)})])


WALLET_CHANGED = "wallet_changed"


def players_wallet_changed(
    sender: object = None, *, moves: dict[Any, tuple[str, ...]], **_: Any
) -> None:
    """``wallet.signals.player_money_moved``'s receiver (after the commit): each player
    whose wallet moved is told on their own sockets, ``{"type": "wallet_changed",
    "reasons": [the ledger kinds]}``, and reads ``GET /api/v1/me/wallet``. No figure is
    pushed: a seamless player's balance is the operator's, read by a call to its wallet."""
    group_send_many(
        [
            (
                player_group(player_id),
                {
                    "type": PLAYER_PUSH,
                    "text": encode({"type": WALLET_CHANGED, "reasons": list(reasons)}),
                },
            )
            for player_id, reasons in moves.items()
        ]
    )
