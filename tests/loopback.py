"""Real HTTP on loopback for the tests: a threaded server for a handler class, stopped at once.

`serve(Handler)` is a context manager that yields the base URL (`http://127.0.0.1:PORT`);
`Replies` is a handler base with `reply(status, body, content_type)` and no request log;
`free_port()` is a port nothing listens on.
`socketserver`'s `shutdown()` waits one poll interval of `serve_forever` (half a second by
default), so the server polls every 20 ms: thousands of tests start and stop one.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Replies(BaseHTTPRequestHandler):
    """A handler that answers with `reply` and keeps its request log quiet."""

    def reply(
        self, status: int, body: bytes, content_type: str = "text/html; charset=utf-8"
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        return  # a client that gave up first (the timeout tests): the late write fails, as meant


@contextmanager
def serve(handler: type[BaseHTTPRequestHandler], host: str = "127.0.0.1") -> Iterator[str]:
    """Serve `handler` on a free port of `host` until the block ends; yields the base URL."""
    server = _Server((host, 0), handler)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
    )
    thread.start()
    try:
        yield f"http://{host}:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def free_port(host: str = "127.0.0.1") -> int:
    """A port of `host` that nothing listens on: bound by the OS's choice, then released."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])
