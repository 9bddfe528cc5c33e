"""Django's HTTP side under the ASGI server: the synchronous handler on a fixed pool of threads.

Every view of the API is synchronous (row locks, transactions, the ORM). Django's own ASGI
handler runs each such request through asgiref: a new one-thread executor per request (an OS
thread started and joined every time), a hop back to the event loop for the middleware that
can run async, and another hop into a thread for the view. Profiled under load that was about a
quarter of a web worker's CPU, more than the view's own database work, and every request
opened the cache's Redis connection anew (caches live per thread, and each request had a
fresh thread).

This adapter serves HTTP the way a WSGI server does, from inside the ASGI worker that also
holds the sockets: the event loop reads the request body (spooled to disk past
FILE_UPLOAD_MAX_MEMORY_SIZE, as Django's ASGI handler does), one long-lived thread of a fixed
pool runs Django's WSGI handler, and the loop writes the answer. One hop in, one hop out.
The pool's size caps the requests inside Django at once (ASGI_THREADS, each with at most one
database connection); the others wait in its queue, which costs nothing. Threads live as long
as the process, so each keeps its cache client and its database connection (CONN_MAX_AGE)
from one request to the next.

An answer larger than STREAM_AFTER bytes (a CSV export, a static file) is streamed: the
thread hands the loop each chunk and waits until it is written, so memory stays bounded by
one chunk per request. Smaller answers, every API call, travel back with the thread's result.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

from django.conf import settings

# In the environ of every request this adapter serves: the request came over the ASGI server.
ASGI_SERVER_MARK = "gin_platform.asgi_server"
# Answers up to this size are built whole in the thread and written by the loop at once.
STREAM_AFTER = 256 * 1024


class SyncHTTPApplication:
    """ASGI ``http`` scopes run through a WSGI application on ``threads`` long-lived threads."""

    def __init__(self, wsgi_application, *, threads: int) -> None:
        self.wsgi_application = wsgi_application
        self.threads = threads
        self.executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="django-http")

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            raise ValueError(f"{type(self).__name__} serves HTTP only, not {scope['type']!r}")
        body = await _read_body(receive)
        if body is None:  # the client went away before its request was complete
            return
        loop = asyncio.get_running_loop()
        try:
            environ = wsgi_environ(scope, body)
            answer = await loop.run_in_executor(self.executor, self._respond, environ, loop, send)
        finally:
            body.close()
        if answer is not None:
            status, headers, chunks = answer
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": b"".join(chunks)})

    def _respond(self, environ: dict, loop, send):
        """In a pool thread: run the WSGI application. Returns (status, headers, chunks) for
        the loop to write, or None when the answer was long and has been streamed already."""
        started: list = []

        def start_response(status, headers, exc_info=None):
            if exc_info and started:
                raise exc_info[1].with_traceback(exc_info[2])
            started[:] = [
                int(status.split(" ", 1)[0]),
                [
                    (name.lower().encode("latin-1"), value.encode("latin-1"))
                    for name, value in headers
                ],
            ]
            return _no_write

        iterable = self.wsgi_application(environ, start_response)
        try:
            chunks, size, streaming = [], 0, False
            for chunk in iterable:
                if not chunk:
                    continue
                if streaming:
                    _send_from_thread(loop, send, _more(chunk))
                    continue
                chunks.append(chunk)
                size += len(chunk)
                if size > STREAM_AFTER:
                    streaming = True
                    status, headers = started
                    start = {"type": "http.response.start", "status": status, "headers": headers}
                    _send_from_thread(loop, send, start)
                    _send_from_thread(loop, send, _more(b"".join(chunks)))
                    chunks = []
        finally:
            close = getattr(iterable, "close", None)
            if close is not None:
                close()
        if streaming:
            _send_from_thread(loop, send, {"type": "http.response.body", "body": b""})
            return None
        status, headers = started
        return status, headers, chunks


def _more(chunk: bytes) -> dict:
    return {"type": "http.response.body", "body": chunk, "more_body": True}


def _send_from_thread(loop, send, message: dict) -> None:
    asyncio.run_coroutine_threadsafe(send(message), loop).result()


def _no_write(data: bytes) -> None:
    raise RuntimeError("the WSGI write() callable is not supported; return an iterable")


async def _read_body(receive):
    """The whole request body, as Django's ASGI handler reads it: in memory up to
    FILE_UPLOAD_MAX_MEMORY_SIZE, on disk past it. None when the client disconnected."""
    max_size = settings.FILE_UPLOAD_MAX_MEMORY_SIZE
    body = tempfile.SpooledTemporaryFile(max_size=max_size, mode="w+b")  # noqa: SIM115
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            body.close()
            return None
        if message.get("body"):
            body.write(message["body"])
        if not message.get("more_body", False):
            break
    body.seek(0)
    return body


def wsgi_environ(scope: dict, body) -> dict:
    """The WSGI environ (PEP 3333) of an ASGI HTTP scope, with the META Django's ASGI handler
    would give the request: client and server addresses, scheme (uvicorn has already applied
    the trusted proxy's X-Forwarded-* headers to the scope), repeated headers joined with
    commas; a header whose name holds an underscore is dropped."""
    script_name = scope.get("root_path", "")
    path = scope["path"]
    if script_name and path.startswith(script_name):
        path = path[len(script_name) :]
    environ = {
        "REQUEST_METHOD": scope["method"].upper(),
        "SCRIPT_NAME": script_name.encode("utf-8").decode("latin-1"),
        "PATH_INFO": path.encode("utf-8").decode("latin-1"),
        "QUERY_STRING": scope.get("query_string", b"").decode("latin-1"),
        "SERVER_PROTOCOL": f"HTTP/{scope.get('http_version', '1.1')}",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scope.get("scheme", "http"),
        "wsgi.input": body,
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        ASGI_SERVER_MARK: True,
    }
    server = scope.get("server") or ("localhost", 80)
    environ["SERVER_NAME"] = str(server[0])
    environ["SERVER_PORT"] = str(server[1] or 0)
    client = scope.get("client")
    if client:
        environ["REMOTE_ADDR"] = client[0]
        environ["REMOTE_HOST"] = client[0]
        environ["REMOTE_PORT"] = str(client[1])
    for raw_name, raw_value in scope.get("headers", ()):
        if b"_" in raw_name:
            # "X_Forwarded_For" would read as X-Forwarded-For once mapped to META: dropped,
            # as gunicorn and nginx drop them.
            continue
        name = raw_name.decode("latin-1").upper().replace("-", "_")
        key = name if name in ("CONTENT_LENGTH", "CONTENT_TYPE") else f"HTTP_{name}"
        value = raw_value.decode("latin-1")
        if key in environ:
            value = f"{environ[key]},{value}"
        environ[key] = value
    if "CONTENT_LENGTH" not in environ:
        # A chunked body has no Content-Length. Django's ASGI handler reads such a body all
        # the same; its WSGI request reads Content-Length bytes (none without the header), so
        # give it the length of the body read.
        body.seek(0, 2)
        size = body.tell()
        body.seek(0)
        if size:
            environ["CONTENT_LENGTH"] = str(size)
    return environ
