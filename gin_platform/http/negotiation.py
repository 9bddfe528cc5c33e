"""Content negotiation: a format nobody serves is 406 Not Acceptable, never 404.

DRF answers ``?format=xml`` (or a ``.xml`` URL suffix) with 404 when no renderer of the view
has that format, although the resource exists; an ``Accept`` header nothing can satisfy is
already 406. Both mean the same thing, so both are ``/problems/not-acceptable``.
"""

from __future__ import annotations

from rest_framework.exceptions import NotAcceptable
from rest_framework.negotiation import DefaultContentNegotiation

MAX_ECHOED_FORMAT = 32


class ContentNegotiation(DefaultContentNegotiation):
    def filter_renderers(self, renderers, format):
        matching = [renderer for renderer in renderers if renderer.format == format]
        if not matching:
            served = ", ".join(renderer.format for renderer in renderers)
            raise NotAcceptable(
                f"format {format[:MAX_ECHOED_FORMAT]!r} is not served here (formats: {served})",
                available_renderers=renderers,
            )
        return matching
