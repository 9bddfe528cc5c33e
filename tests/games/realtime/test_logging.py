"""A socket's ticket travels in its URL: the ASGI server's own request lines withhold it."""

from __future__ import annotations

import logging


def test_the_servers_request_lines_withhold_socket_tickets(caplog):
    ticket = "gst_" + "a1B2" * 10
    for name in ("uvicorn.access", "uvicorn.error"):
        logger = logging.getLogger(name)
        with caplog.at_level(logging.INFO, logger=name):
            logger.info(
                '%s - "WebSocket %s" [accepted]',
                "127.0.0.1:50000",
                f"/ws/v1/matches/1?ticket={ticket}",
            )
    assert caplog.records and ticket not in caplog.text
    assert "/ws/v1/matches/1?ticket=" in caplog.text
