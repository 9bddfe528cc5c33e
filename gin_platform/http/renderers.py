"""CSV downloads: ``?format=csv`` or ``Accept: text/csv`` on the views that offer them (the
settlement reports, the network statement, a player's history). The view builds RFC 4180
text (or streams it); this renderer only negotiates the type and passes text through."""

import json

from rest_framework.renderers import BaseRenderer

CSV_CONTENT_TYPE = "text/csv; charset=utf-8"


class CSVRenderer(BaseRenderer):
    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if isinstance(data, str):
            return data.encode(self.charset)
        # Errors keep their problem+json body even when CSV was asked for.
        return json.dumps(data, default=str).encode(self.charset)
