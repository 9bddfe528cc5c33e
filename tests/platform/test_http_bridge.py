"""HTTP under the ASGI server: Django's synchronous handler on a fixed pool of threads
(gin_platform/project/http_bridge.py)."""

import asyncio
import io
import threading
import time

from gin_platform.project.http_bridge import (
    ASGI_SERVER_MARK,
    STREAM_AFTER,
    SyncHTTPApplication,
    wsgi_environ,
)

SCOPE = {
    "type": "http",
    "http_version": "1.1",
    "method": "POST",
    "scheme": "https",
    "path": "/api/v1/matches/7/actions",
    "root_path": "",
    "query_string": b"wait=5",
    "headers": [
        (b"host", b"gin.example"),
        (b"content-type", b"application/json"),
        (b"content-length", b"2"),
        (b"x-custom", b"a"),
        (b"x-custom", b"b"),
        (b"x_forwarded_for", b"6.6.6.6"),
    ],
    "client": ("10.0.0.9", 51000),
    "server": ("10.0.0.1", 8000),
}


def call(app, scope, chunks=(b"{}",), disconnect=False):
    """Run one ASGI HTTP call; the messages the application sent."""
    incoming = [{"type": "http.request", "body": c, "more_body": True} for c in chunks]
    incoming[-1]["more_body"] = False
    if disconnect:
        incoming[-1] = {"type": "http.disconnect"}
    sent = []

    async def receive():
        return incoming.pop(0)

    async def send(message):
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    return sent


def test_the_environ_carries_what_django_reads_from_the_scope():
    body = io.BytesIO(b"{}")
    environ = wsgi_environ(SCOPE, body)
    assert environ["REQUEST_METHOD"] == "POST"
    assert environ["PATH_INFO"] == "/api/v1/matches/7/actions"
    assert environ["QUERY_STRING"] == "wait=5"
    assert environ["wsgi.url_scheme"] == "https"
    assert environ["wsgi.input"] is body
    assert (environ["CONTENT_TYPE"], environ["CONTENT_LENGTH"]) == ("application/json", "2")
    assert environ["HTTP_HOST"] == "gin.example"
    assert environ["HTTP_X_CUSTOM"] == "a,b"  # repeated headers joined, as Django's ASGI does
    assert (environ["REMOTE_ADDR"], environ["REMOTE_PORT"]) == ("10.0.0.9", "51000")
    assert (environ["SERVER_NAME"], environ["SERVER_PORT"]) == ("10.0.0.1", "8000")
    assert environ[ASGI_SERVER_MARK] is True
    # A header name with an underscore would pass for X-Forwarded-For: dropped.
    assert "HTTP_X_FORWARDED_FOR" not in environ


def test_a_path_outside_ascii_and_a_mount_point_read_as_a_wsgi_server_gives_them():
    scope = dict(SCOPE, path="/gin/api/v1/players/zoë", root_path="/gin")
    environ = wsgi_environ(scope, io.BytesIO())
    assert environ["SCRIPT_NAME"] == "/gin"
    assert environ["PATH_INFO"].encode("latin-1").decode("utf-8") == "/api/v1/players/zoë"


def test_a_chunked_body_without_content_length_is_read_as_django_asgi_reads_it():
    def as_django_wsgi_reads(environ, start_response):  # Content-Length bytes, 0 without it
        length = int(environ.get("CONTENT_LENGTH") or 0)
        start_response("200 OK", [])
        return [environ["wsgi.input"].read(length)]

    chunked = dict(SCOPE, headers=[(n, v) for n, v in SCOPE["headers"] if n != b"content-length"])
    app = SyncHTTPApplication(as_django_wsgi_reads, threads=1)
    assert call(app, chunked, chunks=(b'{"kind":', b'"draw"}'))[-1]["body"] == b'{"kind":"draw"}'
    assert "CONTENT_LENGTH" not in wsgi_environ(chunked, io.BytesIO())  # no body: no length


def echo(environ, start_response):
    body = environ["wsgi.input"].read()
    start_response("201 Created", [("Content-Type", "text/plain"), ("X-Thread", "t")])
    return [b"got:", body]


def test_a_short_answer_is_written_whole_by_the_loop():
    sent = call(SyncHTTPApplication(echo, threads=2), SCOPE, chunks=(b'{"a"', b":1}"))
    assert sent == [
        {
            "type": "http.response.start",
            "status": 201,
            "headers": [(b"content-type", b"text/plain"), (b"x-thread", b"t")],
        },
        {"type": "http.response.body", "body": b'got:{"a":1}'},
    ]


def test_a_long_answer_is_streamed_a_chunk_at_a_time():
    chunk = b"x" * (64 * 1024)
    count = STREAM_AFTER // len(chunk) + 4

    def export(environ, start_response):
        start_response("200 OK", [("Content-Type", "text/csv")])
        return (chunk for _ in range(count))

    sent = call(SyncHTTPApplication(export, threads=1), SCOPE)
    assert sent[0]["type"] == "http.response.start" and sent[0]["status"] == 200
    bodies = sent[1:]
    assert len(bodies) > 2
    assert all(m["more_body"] for m in bodies[:-1]) and not bodies[-1].get("more_body")
    assert b"".join(m["body"] for m in bodies) == chunk * count


def test_a_client_gone_before_its_body_arrived_runs_nothing():
    ran = []

    def app(environ, start_response):
        ran.append(environ)
        start_response("200 OK", [])
        return [b""]

    assert call(SyncHTTPApplication(app, threads=1), SCOPE, disconnect=True) == []
    assert ran == []


def test_at_most_threads_requests_are_inside_django_at_once():
    inside, most, lock = [0], [0], threading.Lock()

    def slow(environ, start_response):
        with lock:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        time.sleep(0.02)
        with lock:
            inside[0] -= 1
        start_response("200 OK", [])
        return [b"ok"]

    app = SyncHTTPApplication(slow, threads=3)
    answers = []

    async def burst():
        async def one():
            sent = []

            async def receive():
                return {"type": "http.request", "body": b"", "more_body": False}

            async def send(message):
                sent.append(message)

            await app(SCOPE, receive, send)
            answers.append(sent[-1]["body"])

        await asyncio.gather(*(one() for _ in range(20)))

    asyncio.run(burst())
    assert answers == [b"ok"] * 20
    assert most[0] == 3
