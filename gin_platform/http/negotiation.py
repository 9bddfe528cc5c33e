"""Content negotiation: a format nobody serves is 406 Not Acceptable, never 404.

DRF answers ``?format=xml`` (or a ``.xml`` URL suffix) with 404 when no renderer of the view
has that format, although the resource exists; an ``Accept`` header nothing can satisfy is
already 406. Both mean the same thing, so both are ``/problems/not-acceptable``.

Almost every API call names no format and accepts anything (``*/*``, or no Accept header)
or exactly the view's first media type: those get the first renderer without DRF's parsing
of the Accept header and the query string (about 70 us a request on the benchmark's VM,
docs/benchmarks.md); anything else goes the whole way.
"""

from __future__ import annotations

from rest_framework.exceptions import NotAcceptable
from rest_framework.negotiation import DefaultContentNegotiation

MAX_ECHOED_FORMAT = 32


class ContentNegotiation(DefaultContentNegotiation):
    def select_renderer(self, request, renderers, format_suffix=None):
        accept = request.META.get("HTTP_ACCEPT", "*/*")
        first = renderers[0] if renderers else None
        override = self.settings.URL_FORMAT_OVERRIDE
        if (
            first is not None
            and format_suffix is None
            and (accept == "*/*" or accept == first.media_type)
            and (not override or override not in request.META.get("QUERY_STRING", ""))
        ):
            # What DRF's walk gives for these: the first renderer, its own media type.
            return first, first.media_type
        return super().select_renderer(request, renderers, format_suffix)

    def filter_renderers(self, renderers, format):
        matching = [renderer for renderer in renderers if renderer.format == format]
        if not matching:
            served = ", ".join(renderer.format for renderer in renderers)
            raise NotAcceptable(
                f"format {format[:MAX_ECHOED_FORMAT]!r} is not served here (formats: {served})",
                available_renderers=renderers,
            )
        return matching
