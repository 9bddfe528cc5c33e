"""Finding the platform's secrets in data before it is stored or logged.

Every secret the platform issues carries a registered prefix: operator API keys ``gop_``,
player session tokens ``gps_``, game-launch tokens ``glt_``, socket tickets ``gst_``, webhook
and request-signing secrets ``whsec_``. They are
shown to their owner once and never stored readable, so anything that keeps a copy of a
response, an audit payload or a log line passes it through :func:`withhold_secrets` first:

- the idempotency store keeps the first response without its secrets and answers a replay of
  it with the ``secret-not-replayable`` problem (gin_platform/http/idempotency.py);
- the audit log never stores one (gin_platform/audit.py);
- :class:`WithholdSecretsFilter` rewrites log records (settings.LOGGING).

A new kind of secret is covered by giving it one of these prefixes, or adding its prefix
here: nothing else needs to know.
"""

from __future__ import annotations

import logging
import re
from typing import Any

SECRET_PREFIXES = ("gop", "gps", "glt", "gst", "whsec")
WITHHELD = "[withheld]"
# A prefix, an underscore and at least 16 url-safe characters (the platform's secrets have
# 43 random characters after it; an API key also has its public part and a second "_").
SECRET_PATTERN = re.compile(
    r"\b(?:" + "|".join(SECRET_PREFIXES) + r")_[A-Za-z0-9_\-]{16,}", re.ASCII
)


def contains_secret(text: str) -> bool:
    return SECRET_PATTERN.search(text) is not None


def withhold_secrets(value: Any) -> tuple[Any, bool]:
    """``value`` (JSON-like: dicts, lists, strings, scalars) with every secret replaced by
    ``[withheld]``, and whether anything was replaced. Keys are scanned like values."""
    found = False

    def walk(item: Any) -> Any:
        nonlocal found
        if isinstance(item, str):
            replaced, count = SECRET_PATTERN.subn(WITHHELD, item)
            found = found or count > 0
            return replaced
        if isinstance(item, dict):
            return {walk(key): walk(inner) for key, inner in item.items()}
        if isinstance(item, list | tuple):
            return [walk(inner) for inner in item]
        return item

    return walk(value), found


class WithholdSecretsFilter(logging.Filter):
    """A logging filter that replaces secrets in the message and its arguments."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except (TypeError, ValueError):  # a malformed record: leave it to the formatter
            return True
        if contains_secret(message):
            record.msg = SECRET_PATTERN.sub(WITHHELD, message)
            record.args = None
        if record.exc_info and not record.exc_text:
            # Formatters reuse exc_text, so the traceback is rendered (and cleaned) once here.
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text and contains_secret(record.exc_text):
            record.exc_text = SECRET_PATTERN.sub(WITHHELD, record.exc_text)
        return True
