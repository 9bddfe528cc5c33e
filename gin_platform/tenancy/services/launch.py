"""The game launch: a single-use launch token that opens the hosted table page for a
player (in the lobby, or watching a match), exchanged once for a player session."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from gin_platform.audit import audit_record
from gin_platform.http.cors import OriginError, normalize_origin
from gin_platform.http.problems import LaunchTokenInvalidProblem, OriginNotAllowedProblem, Problem
from gin_platform.i18n.languages import is_language_tag, matched_language
from gin_platform.models import AuditEvent, LaunchToken, Operator, Player, SocketTicket
from gin_platform.tenancy.principals import Actor
from gin_platform.tenancy.selectors import origin_allowed
from gin_platform.tenancy.services.players import (
    IssuedPlayerSession,
    PlayerInactiveProblem,
    player_session_create,
)
from gin_platform.tenancy.signals import identifiers_announce
from gin_platform.tenancy.tokens import LAUNCH_TOKEN_PREFIX, hash_secret, new_launch_token
from gin_platform.tenancy.watchable import match_watchable


class LaunchOptionsInvalidProblem(Problem):
    slug = "launch-options-invalid"
    status = 422
    title = _("The launch options are not valid")
    description = (
        "mode is lobby or watch; match, the id of a match the operator's players may watch, is "
        "given with watch and only with it; return_url is an https:// URL (http:// also for "
        "localhost outside production); lang is a well-formed BCP 47 language tag. `field` "
        "names the option."
    )


LAUNCH_MODES = ("lobby", "watch")
MAX_RETURN_URL_LENGTH = 2000


@dataclass(frozen=True)
class IssuedLaunchToken:
    launch_token: LaunchToken
    token: str  # returned once, never stored
    # The shipped language the page opens in: the launch's ``lang``, else the player's
    # stored locale's; None when neither is shipped (the page then follows the browser).
    page_language: str | None


@dataclass(frozen=True)
class LaunchedSession:
    player: Player
    options: dict
    issued: IssuedPlayerSession


def _return_url(url: str) -> str:
    """A page to send the player back to: its origin follows the registered-origin rules
    (https, no user name), then any path, query or fragment."""
    if len(url) > MAX_RETURN_URL_LENGTH or any(ch.isspace() or ord(ch) < 32 for ch in url):
        raise LaunchOptionsInvalidProblem(
            f"return_url: at most {MAX_RETURN_URL_LENGTH} characters, no spaces",
            field="return_url",
        )
    try:
        parts = urlsplit(url)
        normalize_origin(
            f"{parts.scheme}://{parts.netloc}",
            allow_http_localhost=settings.OPERATOR_ORIGINS_ALLOW_HTTP_LOCALHOST,
        )
    except (ValueError, OriginError) as exc:
        raise LaunchOptionsInvalidProblem(f"return_url: {exc}", field="return_url") from exc
    return url


def _launch_language(lang: str | None) -> str:
    """The shipped language a launch's ``lang`` asks for, "" when it names none we ship (the
    next source decides) or was not given; a tag that is not BCP 47 is refused."""
    if lang is None:
        return ""
    if not is_language_tag(lang):
        raise LaunchOptionsInvalidProblem(
            "lang: a BCP 47 language tag such as es or it-IT", field="lang"
        )
    return matched_language(lang) or ""


def _launch_options(
    *, operator: Operator, mode: str, match: int | None, return_url: str | None
) -> dict:
    if mode not in LAUNCH_MODES:
        raise LaunchOptionsInvalidProblem("mode: lobby or watch", field="mode")
    if mode == "watch" and match is None:
        raise LaunchOptionsInvalidProblem("match: the match to watch is required", field="match")
    if mode != "watch" and match is not None:
        raise LaunchOptionsInvalidProblem("match: only with mode watch", field="match")
    if match is not None and not match_watchable(operator=operator, match_id=match):
        # One answer for a missing match and another operator's: nothing tells them apart.
        raise LaunchOptionsInvalidProblem(
            "match: no match that this operator's players may watch", field="match"
        )
    return {
        "mode": mode,
        "match": match,
        "return_url": _return_url(return_url) if return_url else None,
    }


@transaction.atomic
def launch_token_create(
    *,
    player: Player,
    actor: Actor,
    mode: str = "lobby",
    match: int | None = None,
    return_url: str | None = None,
    lang: str | None = None,
    device_id: str | None = None,
    client_address: str | None = None,
) -> IssuedLaunchToken:
    """A single-use token that opens the hosted table page for ``player`` (the game-launch
    URL), good for LAUNCH_TOKEN_TTL_SECONDS. A self-excluded player may still launch: they
    can watch and read statements, and seating refuses them. ``lang`` (a BCP 47 tag) is the
    language the session speaks when we ship it. ``device_id`` and ``client_address``, as
    the operator saw them, may link the player to others (``identifiers_seen``); neither is
    stored here."""
    if not player.is_active:
        raise PlayerInactiveProblem(f"player {player.external_ref} is {player.status}")
    options = _launch_options(
        operator=player.operator, mode=mode, match=match, return_url=return_url
    )
    language = _launch_language(lang)
    token, token_hash = new_launch_token()
    now = timezone.now()
    launch_token = LaunchToken.objects.create(
        player=player,
        token_hash=token_hash,
        options=options,
        lang=language,
        created_by_type=actor.type,
        created_by_id=actor.id,
        created_at=now,
        expires_at=now + timedelta(seconds=settings.LAUNCH_TOKEN_TTL_SECONDS),
    )
    audit_record(
        actor=actor,
        action="launch_token.created",
        obj=launch_token,
        operator=player.operator,
        data={"player": str(player.pk), **options, **({"lang": language} if language else {})},
    )
    identifiers_announce(
        player=player,
        source=f"operator:{player.operator_id}",
        device_id=device_id,
        address=client_address,
    )
    return IssuedLaunchToken(
        launch_token=launch_token,
        token=token,
        page_language=language or matched_language(player.locale),
    )


def claim_once(model: type[LaunchToken] | type[SocketTicket], token_hash: str) -> bool:
    """Mark the unused, unexpired row with ``token_hash`` used, in ONE conditional UPDATE on
    that row alone: of any number of racing redeemers exactly one sees a row updated (the
    others wait for its lock, re-check ``used_at IS NULL`` on the new version, and update
    nothing)."""
    now = timezone.now()
    claimed = model.objects.filter(
        token_hash=token_hash, used_at__isnull=True, expires_at__gt=now
    ).update(used_at=now)
    return claimed == 1


@transaction.atomic
def launch_token_redeem(
    *,
    launch_token: str,
    origin: str | None = None,
    host: str = "",
    client_address: str | None = None,
) -> LaunchedSession:
    """Exchange a launch token, once, for a player session (the hosted page's first call).

    Unknown, used or expired tokens, and tokens of a player or operator no longer active,
    are all ``launch-token-invalid`` with one message. ``origin`` and ``host`` are the
    request's Origin and Host: a page at an origin the player's operator did not register
    is refused (403 ``origin-not-allowed``) and the token stays unused. ``client_address``
    is the address the platform saw the exchange come from (``identifiers_seen``).
    """
    refused = LaunchTokenInvalidProblem(
        gettext("This game link is not valid, was used or expired: open the game again.")
    )
    if not isinstance(launch_token, str) or not launch_token.startswith(LAUNCH_TOKEN_PREFIX + "_"):
        raise refused
    token_hash = hash_secret(launch_token)
    if not claim_once(LaunchToken, token_hash):
        raise refused
    row = LaunchToken.objects.select_related("player__operator").get(token_hash=token_hash)
    player = row.player
    if not player.is_active or not player.operator.is_active:
        raise refused
    if not origin_allowed(operator=player.operator, origin=origin, host=host):
        raise OriginNotAllowedProblem(
            gettext("This page's address is not registered by your casino: %(origin)s.")
            % {"origin": origin}
        )
    actor = Actor(AuditEvent.ActorType.PLAYER, str(player.pk))
    issued = player_session_create(player=player, actor=actor, lang=row.lang)
    row.session = issued.session
    row.save(update_fields=["session"])
    audit_record(
        actor=actor,
        action="launch_token.redeemed",
        obj=row,
        operator=player.operator,
        data={"player": str(player.pk), "session": issued.session.pk},
    )
    identifiers_announce(player=player, source="platform", address=client_address)
    return LaunchedSession(player=player, options=row.options, issued=issued)
