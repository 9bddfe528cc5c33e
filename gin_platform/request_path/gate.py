"""The gate of every authenticated request: the failed-authentication guard, the epoch of
the remembered credentials and the request throttle in one Redis round trip.

An API request asks three things of Redis before its view runs: may this address (and this
credential) still try (``throttling.AuthFailureGuard``), does what this process remembers of
the credential still hold (the epoch of gin_platform/request_path/remembered_credentials.py),
and may the caller make one more request (``throttling.PrincipalRateThrottle``). One Lua
script answers all three, so a request whose credential is remembered costs one round trip
and no database read (docs/benchmarks.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextvars import ContextVar
from typing import Any

from django.core.cache import cache as default_cache

from gin_platform.http.throttling import ADMIT_FUNCTION, AuthFailureGuard, PrincipalRateThrottle
from gin_platform.request_path.cache import CACHE_ERRORS, redis_script, warn_cache_unreachable
from gin_platform.request_path.seen import seen_seconds

# KEYS: failures of the address (this window, the last), of the credential (this, the last),
# the epoch of remembered credentials, the caller's request counter (this window, the last).
# ARGV: the address's failure limit (-1: not counted) and its last window's weight, the same
# for the credential, the epoch the caller remembers its credential under ('' for none), a
# fresh epoch to set if there is none (Redis restarted or flushed: nothing remembered holds),
# the request limit (-1: not asked), its last window's weight, its counter's TTL; the TTL
# of the player's presence mark (KEYS[8], gin_platform/request_path/seen.py; '' for none).
# KEYS[9..]: keys read for the request's view (``prefetch``), returned after the rest ('' for
# a key with no value), unless the guard refuses.
# Returns the four failure counts, the epoch, the verdict (0 refused by the guard, 1 passed
# the guard with the throttle not asked, 2 throttled, 3 admitted and counted) and the
# request counter's last-window hits and this window's hits before this request.
# The guard's rule is AuthFailureGuard._refusal's and the throttle's is admit(); the
# throttle is asked only when the remembered epoch still holds, so a request is counted
# only when its remembered credential is good.
GATE_SCRIPT = (
    ADMIT_FUNCTION
    + """
local ap, ac = hits(KEYS[2]), hits(KEYS[1])
local cp, cc = hits(KEYS[4]), hits(KEYS[3])
local alimit, aweight = tonumber(ARGV[1]), tonumber(ARGV[2])
local climit, cweight = tonumber(ARGV[3]), tonumber(ARGV[4])
local epoch = redis.call('GET', KEYS[5])
if not epoch then
  epoch = ARGV[6]
  redis.call('SET', KEYS[5], epoch)
end
local address_full = alimit >= 0 and ap * aweight + (ac + 1) > alimit
local address_failed = alimit < 0 or ap * aweight + ac > 0
local credential_full = climit >= 0 and cp * cweight + (cc + 1) > climit
if address_full or (credential_full and address_failed) then
  return {ap, ac, cp, cc, epoch, 0, 0, 0}
end
if ARGV[10] ~= '' then
  redis.call('SET', KEYS[8], '1', 'EX', ARGV[10])
end
local limit = tonumber(ARGV[7])
local answer
if limit < 0 or epoch ~= ARGV[5] then
  answer = {ap, ac, cp, cc, epoch, 1, 0, 0}
else
  local previous, current, admitted = admit(KEYS[6], KEYS[7], limit, tonumber(ARGV[8]), ARGV[9])
  answer = {ap, ac, cp, cc, epoch, 2 + admitted, previous, current}
end
for i = 9, #KEYS do
  answer[i] = redis.call('GET', KEYS[i]) or ''
end
return answer
"""
)

# The epoch the current request's gate read (None: none read), before the request read any
# row: what is rendered from rows it reads may be trusted while the epoch holds (the polled
# game view's cache, games/realtime/view_cache.py). And the player the request authenticated.
passed_epoch: ContextVar[str | None] = ContextVar("passed_epoch", default=None)
authenticated_player: ContextVar[object] = ContextVar("authenticated_player", default=None)
# What the gate read for the request's view (``prefetch``): cache key -> value (None: none).
prefetched: ContextVar[dict[str, bytes | None]] = ContextVar("prefetched", default={})  # noqa: B039 (never changed in place)

# Who names the keys a player's request may want read in the gate's round trip: games
# registers the polled game view's (gin_platform does not import games).
_prefetchers: list[Callable[[Any, object], list[str]]] = []


def prefetch_register(prefetcher: Callable[[Any, object], list[str]]) -> None:
    """``prefetcher(request, player_id)``: the cache keys (as made) the request's view will
    read, to be read in the gate's round trip instead; [] for none."""
    if prefetcher not in _prefetchers:
        _prefetchers.append(prefetcher)


def prefetch_keys(request: Any, player_id: object) -> list[str]:
    return [key for prefetcher in _prefetchers for key in prefetcher(request, player_id)]


# The verdicts of GATE_SCRIPT.
_GATE_REFUSED, _GATE_PASSED, _GATE_THROTTLED, _GATE_ADMITTED = range(4)


def pass_gate(
    guard: AuthFailureGuard,
    *,
    epoch_key: str,
    remembered_epoch: str | None,
    fresh_epoch: int,
    throttle: PrincipalRateThrottle | None,
    seen_key: str | None = None,
    prefetch: Sequence[str] = (),
) -> str | None:
    """Check ``guard`` and read the epoch at ``epoch_key`` (setting ``fresh_epoch`` if there
    is none) in one Redis round trip; when ``remembered_epoch`` is still the epoch and a
    ``throttle`` (``for_principal``) is given, also admit and count the request
    (``throttle.admitted``); with ``seen_key``, mark the player's presence there for
    ``PRESENCE_TIMEOUT_SECONDS`` unless the guard refuses; with ``prefetch`` (cache keys, as
    made), also read those for the request's view (``prefetched``). Returns the epoch, read
    before the caller looks anything up.
    Raises ThrottledProblem when the guard refuses.

    Without Redis (the demo) the guard is checked alone and None returned: nothing is
    remembered. If Redis cannot be reached: None, nothing remembered, and like the guard and
    the throttle the request goes on (fail open, with the logged warning).
    """
    passed_epoch.set(None)
    prefetched.set({})
    script = redis_script(default_cache, GATE_SCRIPT, "_gin_gate_script")
    if script is None:
        guard.check()
        return None
    client, run = script
    make_key = default_cache.make_and_validate_key
    unused = make_key("gate:unused")
    failure_keys: list[str] = []
    failure_args: list[int | str] = []  # each counter's limit and weight (repr: exact)
    for counter in (guard.by_address, guard.by_credential):
        if counter is None:
            failure_keys += [unused, unused]
            failure_args += [-1, 0]
        else:
            failure_keys += [make_key(key) for key in counter.keys]
            failure_args += [counter.num_requests, repr(counter.weight)]
    throttle_args: list[int | str]
    if throttle is None:
        throttle_keys, throttle_args = [unused, unused], [-1, 0, 0]
    else:
        throttle_keys = [make_key(key) for key in throttle.keys]
        throttle_args = [throttle.num_requests, repr(throttle.weight), 2 * throttle.duration + 1]
    try:
        answer = run(
            keys=[
                *failure_keys,
                make_key(epoch_key),
                *throttle_keys,
                make_key(seen_key) if seen_key else unused,
                *prefetch,
            ],
            args=[
                *failure_args,
                remembered_epoch or "",
                fresh_epoch,
                *throttle_args,
                seen_seconds() if seen_key else "",
            ],
            client=client,
        )
    except CACHE_ERRORS:
        warn_cache_unreachable(epoch_key)
        return None
    address_previous, address_current, credential_previous, credential_current = answer[:4]
    epoch, verdict, previous, current = answer[4:8]
    for counter, counts in (
        (guard.by_address, (address_previous, address_current)),
        (guard.by_credential, (credential_previous, credential_current)),
    ):
        if counter is not None:
            counter.previous, counter.current = int(counts[0]), int(counts[1])
    if verdict == _GATE_REFUSED:
        guard.raise_if_refused()
    if throttle is not None and verdict in (_GATE_THROTTLED, _GATE_ADMITTED):
        throttle.previous, throttle.current = int(previous), int(current)
        throttle.admitted, throttle.counted = verdict == _GATE_ADMITTED, True
    epoch = epoch.decode() if isinstance(epoch, bytes) else epoch
    passed_epoch.set(epoch)
    if prefetch:
        prefetched.set(
            {key: value or None for key, value in zip(prefetch, answer[8:], strict=False)}
        )
    return epoch
