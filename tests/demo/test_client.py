"""The demo's API client waits out a 429 as an integration should (Retry-After), and gives
up with the problem when the server keeps refusing."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from gin_platform.demo.client import ApiClient, ApiError


def _server(answers: list[tuple[int, dict[str, str]]]):
    """A server answering each GET with the next (status, headers); records the paths."""
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            seen.append(self.path)
            status, headers = answers[min(len(seen), len(answers)) - 1]
            body = json.dumps({"status": status, "detail": "slow down" if status == 429 else ""})
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body.encode())

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, seen


def test_a_429_is_sent_again_after_its_retry_after():
    server, seen = _server([(429, {"Retry-After": "0"}), (429, {"Retry-After": "0"}), (200, {})])
    try:
        answer = ApiClient(f"http://127.0.0.1:{server.server_port}").get("/x")
    finally:
        server.shutdown()
    assert answer == {"status": 200, "detail": ""} and seen == ["/x"] * 3


def test_it_gives_up_after_its_retries():
    server, seen = _server([(429, {"Retry-After": "0"})])
    try:
        client = ApiClient(f"http://127.0.0.1:{server.server_port}", throttled_retries=2)
        with pytest.raises(ApiError) as refused:
            client.get("/x")
        assert refused.value.status == 429 and len(seen) == 3
    finally:
        server.shutdown()


def test_a_429_without_retry_after_is_not_retried():
    server, seen = _server([(429, {})])
    try:
        with pytest.raises(ApiError):
            ApiClient(f"http://127.0.0.1:{server.server_port}").get("/x")
    finally:
        server.shutdown()
    assert len(seen) == 1
