"""An HTTP server on 127.0.0.1 for test doubles: the fakes of this package, and the sites and APIs
that tests stand up, answer through it instead of each writing a request handler of its own.

``respond(request)`` answers every request, each on a thread of its own, with ``(status,
headers, body)``, or ``None`` to close the connection without an answer. The body is bytes, text
(sent as UTF-8) or an iterable of byte chunks, each written and flushed as it comes (a slow
answer); ``Content-Length`` is added from bytes or text unless the headers set it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

Body = bytes | str | Iterable[bytes]
Reply = tuple[int, Mapping[str, str], Body]


@dataclass
class Request:
    """A request as the server read it: ``path`` as sent (query string included)."""

    method: str
    path: str
    headers: Message
    body: bytes


class LoopbackServer:
    """Serves ``respond`` on 127.0.0.1 (a free port unless ``port`` is given) at ``url`` from a
    daemon thread until ``close()``; a context manager. Requests of other ``methods`` are
    answered 501, as ``http.server`` answers a method it has no handler for."""

    def __init__(
        self,
        respond: Callable[[Request], Reply | None],
        *,
        port: int = 0,
        methods: Iterable[str] = ("GET", "POST"),
    ):
        class Handler(BaseHTTPRequestHandler):
            def serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                reply = respond(Request(self.command, self.path, self.headers, body))
                if reply is not None:
                    self.answer(*reply)

            def answer(self, status: int, headers: Mapping[str, str], body: Body) -> None:
                if isinstance(body, str):
                    body = body.encode()
                try:
                    self.send_response(status)
                    for k, v in headers.items():
                        self.send_header(k, v)
                    if isinstance(body, bytes) and "Content-Length" not in headers:
                        self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    for chunk in [body] if isinstance(body, bytes) else body:
                        self.wfile.write(chunk)
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout, a cap on what it reads)

            def log_message(self, *args) -> None:
                pass

        for method in methods:
            setattr(Handler, f"do_{method}", Handler.serve)
        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.port: int = self.server.server_port
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        """Stops serving and frees the port (answers still being written are not waited for)."""
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> LoopbackServer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


__all__ = ["LoopbackServer", "Reply", "Request"]
