"""Player protection's domain errors, each with a stable problem ``type``
(docs/api-errors.md, docs/player-protection.md). A move refused while a reality check waits
(``reality-check-open``) is games' to raise: games asks, protection answers."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from gin_platform.http.problems import Problem


class SessionLimitsRequiredProblem(Problem):
    slug = "session-limits-required"
    status = 409
    title = _("Set the session's limits first")
    description = (
        "The operator's jurisdiction profile asks players to choose a session's duration and "
        "loss limit before its first buy-in: POST /api/v1/me/play-session with both, then sit "
        'down (docs/player-protection.md "Sessions"). Practice tables need none.'
    )


class SessionLimitReachedProblem(Problem):
    slug = "session-limit-reached"
    status = 403
    title = _("The session's limit is reached")
    description = (
        "The play session reached its duration or loss limit (`limit`): it takes no new "
        "buy-in. Where the profile ends the session then, a new one can be started with new "
        "limits; elsewhere the player ends this session first."
    )


class SessionLimitsInvalidProblem(Problem):
    slug = "session-limits-invalid"
    status = 422
    title = _("The session's limits are not valid")
    description = (
        "A duration is 1 to 1440 minutes and a loss limit a positive amount in the wallet "
        "currency; where the profile requires them, both are given. Limits are chosen once, "
        "before the session's first buy-in: `field` names what is wrong."
    )


class SessionActiveProblem(Problem):
    slug = "session-active"
    status = 409
    title = _("A session is already running")
    description = (
        "The player's play session has started (it has bought in, or its limits are set): "
        "its limits no longer change. End it (POST /api/v1/me/play-session/end) to start "
        "another."
    )


class RealityCheckNotOpenProblem(Problem):
    slug = "reality-check-not-open"
    status = 409
    title = _("The reality check was already answered")
    description = (
        "A reality check is answered once; the session's current one is in "
        "GET /api/v1/me/play-session."
    )


class HarmRuleInvalidProblem(Problem):
    slug = "harm-rule-invalid"
    status = 422
    title = _("The marker of harm's parameters are not valid")
    description = (
        "A parameter is out of its bounds, of the wrong type, or one the rule does not take "
        '(docs/player-protection.md "Markers of harm" lists each rule\'s); `field` names it '
        "(`params.hours`). Nothing was changed."
    )
