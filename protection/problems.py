"""Player protection's domain errors, each with a stable problem ``type``
(docs/api-errors.md)."""

from __future__ import annotations

from gin_platform.http.problems import Problem


class HarmRuleInvalidProblem(Problem):
    slug = "harm-rule-invalid"
    status = 422
    title = "The marker of harm's parameters are not valid"
    description = (
        "A parameter is out of its bounds, of the wrong type, or one the rule does not take "
        '(docs/player-protection.md "Markers of harm" lists each rule\'s); `field` names it '
        "(`params.hours`). Nothing was changed."
    )
