"""Integrity's domain errors, each with a stable problem ``type`` (docs/api-errors.md). The
seat refused to linked players is games' (``linked-players``): games raises it."""

from __future__ import annotations

from gin_platform.http.problems import Problem


class LinkInvalidProblem(Problem):
    slug = "link-invalid"
    status = 422
    title = "The link or identifier is not valid"
    description = (
        "A declared link joins two different players of your own (`player_id` one of yours) and "
        "is of kind household or associate; an identifier is of kind device, address or "
        "payment_instrument with a value that identifies (a public IP address for an address). "
        "`field` names the field. Another operator's player is answered like an unknown one."
    )


class LinkNotEndableProblem(Problem):
    slug = "link-not-endable"
    status = 409
    title = "Only a link you declared can be ended"
    description = (
        "Links you declared (household, associate) end when you delete them; links the platform "
        "found from shared devices, addresses or payment instruments, or that the risk team "
        "set, stay in force (docs/integrity-links.md)."
    )
