"""Settlement's domain errors (RFC 9457 problem types)."""

from django.utils.translation import gettext_lazy as _

from gin_platform.http.problems import Problem


class GameNotFinishedProblem(Problem):
    slug = "game-not-finished"
    status = 409
    title = _("The game has not finished")
    description = "Only a finished game can be settled; a game in play has no result yet."


class ReportRangeProblem(Problem):
    slug = "report-range-invalid"
    status = 400
    title = _("The report period is not valid")
    description = "Give `from` and `to` as ISO dates or UTC date-times, `from` before `to`."
