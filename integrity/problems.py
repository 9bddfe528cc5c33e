"""Integrity's domain errors, each with a stable problem ``type`` (docs/api-errors.md).
The four-eyes problems of a confiscation are the platform's (``four-eyes-required``,
``approval-not-pending``, ``proposer-not-entitled``), the posting's the wallet's."""

from __future__ import annotations

from gin_platform.http.problems import Problem


class CaseClosedProblem(Problem):
    slug = "case-closed"
    status = 409
    title = "The case is closed"
    description = (
        "A closed case takes no more alerts, notes or actions; open a new case for new "
        'evidence (docs/integrity.md "Cases").'
    )


class CaseActionInvalidProblem(Problem):
    slug = "case-action-invalid"
    status = 422
    title = "The case action is not valid"
    description = (
        "The action does not fit the case: its player (or the pair, for a blocked pairing) "
        "must be among the case's players, a suspension to lift must be in force, an alert "
        "belongs to one case only; `field` names what is wrong."
    )


class ReportInvalidProblem(Problem):
    slug = "report-invalid"
    status = 422
    title = "The report is not valid"
    description = (
        "A player reports an opponent of a match they played, once per match and opponent, "
        "never themselves; `field` names what is wrong."
    )
