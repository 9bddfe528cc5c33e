"""CSV for reports: ``?format=csv`` or ``Accept: text/csv`` (RFC 4180 text from the view, one
table per download: ``table=totals|players``)."""

import json

from rest_framework.renderers import BaseRenderer


class CSVRenderer(BaseRenderer):
    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if isinstance(data, str):
            return data.encode(self.charset)
        # Errors keep their problem+json body even when CSV was asked for.
        return json.dumps(data, default=str).encode(self.charset)
