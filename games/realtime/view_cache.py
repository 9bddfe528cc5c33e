"""The polled game view answered from Redis (docs/games.md "The polled view's cache").

When a move commits, the push (``publisher.publish``) renders the game view of the player
whose turn it now is, exactly as ``GET /api/v1/matches/{id}/view`` would answer it, and
stores it in Redis in the push's own round trip. That player's next poll is answered from
the entry, without the database, when the entry is still current; else from the database,
as before.

An entry is per match AND player: it is written only for the player seated at that seat (the
key holds the player's id), so it answers nobody else, and the authorization a view does
(the player is seated there) holds by construction. A player who left is never written again,
and leaving changes the match (a push), which makes every entry of the match stale.

Current means three things, all checked by the reader:

- the match's *mark* still is the entry's ``seq``: every committed change of the match sets
  the mark once its transaction has committed (a move whose rows the push holds: 2 x its
  seq, with the entry; any other change, or a move it cannot render: 2 x the seq read after
  the commit + 1, which no entry matches). A mark only grows, so a push that runs late
  (another move committed and pushed first) changes nothing;
- the credentials' epoch (gin_platform/request_path/remembered_credentials.py) is still the
  one the move's request read before reading any row: a player's or an operator's change
  (a name, a display currency, a status) sets a new one, so no entry rendered before it is
  taken after it;
- the network's ``reveal_operators`` is still what it was (it names opponents' operators).

Only a running match's view is cached, and only one without converted amounts (the match's
currency is practice chips or the player's display currency): a conversion's rate changes
without the match changing. The view holds nothing that depends on the request (no
translated text, no ``now``: a running bank is shown as of its stage's start).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from typing import TYPE_CHECKING, Any

from django.core.cache import cache
from django.db import transaction
from django.http import HttpResponse
from rest_framework.renderers import JSONRenderer

from games import selectors
from games.api import presenters
from games.models import Hand, Match
from games.problems import NotYourTurnProblem, StaleSequenceProblem
from gin_platform.money import PRACTICE_CURRENCY
from gin_platform.request_path.cache import (
    CACHE_ERRORS,
    redis_client,
    redis_script,
    warn_cache_unreachable,
)
from gin_platform.request_path.gate import authenticated_player, passed_epoch, prefetched
from gin_platform.tenancy.selectors import network_reveals_operators

if TYPE_CHECKING:
    from rest_framework.request import Request

    from games.models import Seat
    from gin_platform.models import Player

# An entry outlives any poll that can use it: the next move replaces it.
ENTRY_SECONDS = 600

# KEYS[1]: the match's mark; KEYS[2..]: entries. ARGV[1]: the new mark, ARGV[2]: the TTL,
# ARGV[3..]: the entries' values. Nothing is written unless the mark grows.
STORE_SCRIPT = """
local mark = tonumber(ARGV[1])
local current = tonumber(redis.call('GET', KEYS[1]) or '-1')
if mark <= current then
  return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
for i = 2, #KEYS do
  redis.call('SET', KEYS[i], ARGV[i + 1], 'EX', ARGV[2])
end
return 1
"""

_renderer = JSONRenderer()


def mark_key(match_id: int) -> str:
    return f"view:mark:{match_id}"


def entry_key(match_id: int, player_id: object) -> str:
    return f"view:entry:{match_id}:{player_id}"


def _cacheable(match: Match, player: Player) -> bool:
    return match.status == Match.Status.RUNNING and (
        match.currency in (PRACTICE_CURRENCY, player.display_currency)
    )


def _seat_to_poll(match: Match, latest_hands: Sequence[Hand]) -> Seat | None:
    """The seat whose player polls next (its turn), unless it is the caller's own."""
    if not latest_hands or latest_hands[0].status != Hand.Status.IN_PROGRESS:
        return None
    to_act = latest_hands[0].to_act
    seat = next((s for s in selectors.match_seats(match) if s.position == to_act), None)
    if seat is None or seat.bot_level is not None or seat.player_id == authenticated_player.get():
        return None
    return seat


def render_entries(
    *, match: Match, latest_hands: Sequence[Hand]
) -> tuple[int, list[str], list[bytes]]:
    """The mark and the entries (keys, values) a push stores for the change that left
    ``match`` and ``latest_hands`` as they were committed."""
    epoch = passed_epoch.get()
    seat = _seat_to_poll(match, latest_hands) if epoch is not None else None
    if seat is None or not _cacheable(match, seat.player):
        return 2 * match.seq + 1, [], []  # nothing to store: no older entry holds
    view = presenters.game_view(
        match=match, seat=seat.position, player=seat.player, latest_hands=latest_hands
    )
    head = f"{match.seq}|{epoch}|{int(network_reveals_operators())}|".encode()
    key = cache.make_and_validate_key(entry_key(match.pk, seat.player_id))
    return 2 * match.seq, [key], [head + _renderer.render(view)]


def store(
    *, match_id: int, mark: int, keys: list[str], values: list[bytes], client: Any = None
) -> None:
    """Run the store script (on ``client``: a pipeline, the push's round trip).

    On a pipeline it goes as EVAL, with its source: redis-py asks Redis whether it knows
    each script queued on a pipeline (SCRIPT EXISTS) before it sends the pipeline, a round
    trip more on every push; the source is a few lines, and Redis keeps it compiled."""
    all_keys = [cache.make_and_validate_key(mark_key(match_id)), *keys]
    if client is not None:
        client.eval(STORE_SCRIPT, len(all_keys), *all_keys, mark, ENTRY_SECONDS, *values)
        return
    scripted = redis_script(cache, STORE_SCRIPT, "_gin_view_store_script")
    if scripted is None:
        return
    redis, script = scripted
    script(keys=all_keys, args=[mark, ENTRY_SECONDS, *values], client=redis)


def stale_mark(*, match_id: int, seq: int | None = None) -> int | None:
    """The mark that makes every entry of the match stale, its change committed (a change
    the push could not render, or one outside a push): 2 x seq + 1, which no entry matches
    and no older push can lower. ``seq``: where the change's feed rows ended (then nothing
    is read: every older entry has a smaller seq), else the match's seq is read. None
    without Redis or without the match."""
    if redis_client() is None:
        return None
    if seq is None:
        seq = selectors.match_seq(match_id=match_id)
    return None if seq is None else 2 * seq + 1


def forget(*, match_id: int, seq: int | None = None) -> None:
    """Make every entry of the match stale now (``stale_mark``), in a round trip of its own."""
    mark = stale_mark(match_id=match_id, seq=seq)
    if mark is None:
        return
    try:
        store(match_id=match_id, mark=mark, keys=[], values=[])
    except CACHE_ERRORS:
        warn_cache_unreachable(mark_key(match_id))


@contextmanager
def forgotten_when_stale(*, match_id: int) -> Iterator[None]:
    """Around a move: when it is refused because the player acted on a view the game has
    left behind, the match's entries are made stale. Should that view have come from an
    entry that outlived its change (its push and the retry lost with Redis), it answers no
    further poll: the next one reads the database."""
    try:
        yield
    except (StaleSequenceProblem, NotYourTurnProblem):
        forget(match_id=match_id)
        raise


def forget_on_commit(match_ids: Sequence[int]) -> None:
    """``forget`` each match once the current transaction commits."""
    for match_id in match_ids:
        transaction.on_commit(partial(forget, match_id=match_id), robust=True)


_VIEW_PATH = re.compile(r"/api/v1/matches/([0-9]{1,18})/view")


def gate_keys(request: Any, player_id: object) -> list[str]:
    """The keys a ``GET .../view`` of ``player_id`` reads, for the authentication gate to
    read in its round trip (gin_platform/request_path/gate.py ``prefetch``)."""
    if request.method != "GET":
        return []
    found = _VIEW_PATH.fullmatch(request.path_info)
    if found is None:
        return []
    match_id = int(found.group(1))
    return [
        cache.make_and_validate_key(mark_key(match_id)),
        cache.make_and_validate_key(entry_key(match_id, player_id)),
    ]


def cached_view(*, request: Request, player: Player, match_id: int | None) -> HttpResponse | None:
    """The player's game view from their entry when it is current (the module's rules), as
    the view would render it; None: answer from the database (also for no match id)."""
    if match_id is None:
        return None
    epoch = passed_epoch.get()
    media = getattr(request, "accepted_media_type", "")
    if epoch is None or media != _renderer.media_type:  # e.g. "; indent=2": rendered anew
        return None
    redis = redis_client()
    if redis is None:
        return None
    keys = [
        cache.make_and_validate_key(mark_key(match_id)),
        cache.make_and_validate_key(entry_key(match_id, player.pk)),
    ]
    read = prefetched.get()
    if keys[0] in read and keys[1] in read:  # read in the gate's round trip
        mark, entry = read[keys[0]], read[keys[1]]
    else:
        try:
            mark, entry = redis.mget(keys)
        except CACHE_ERRORS:
            warn_cache_unreachable(keys[0])
            return None
    if mark is None or entry is None:
        return None
    seq, entry_epoch, reveal, body = entry.split(b"|", 3)
    if (
        int(mark) != 2 * int(seq)
        or entry_epoch.decode() != epoch
        or int(reveal) != int(network_reveals_operators())
    ):
        return None
    return HttpResponse(body, content_type=_renderer.media_type)
