"""An OTLP/HTTP receiver on loopback for the tests of ``to_otel`` and ``prime-nb convert``:
it keeps every request it is sent and answers with the status it is given.

Nothing here imports ``conftest``.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest


@dataclass
class Received:
    """What the receiver was sent: ``(path, content type, body)`` per request."""

    url: str
    status: int = 200
    requests: list[tuple[str, str, bytes]] = field(default_factory=list)


def spans_of(body: bytes) -> list[Any]:
    """The spans of an OTLP ``ExportTraceServiceRequest`` (a request's body, a .pb file)."""
    request = ExportTraceServiceRequest()
    request.ParseFromString(body)
    return [
        span
        for resource in request.resource_spans
        for scope in resource.scope_spans
        for span in scope.spans
    ]


@contextmanager
def receiving(status: int = 200) -> Iterator[Received]:
    """A receiver at ``Received.url`` for the ``with`` block, answering ``status``."""
    received = Received("")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            received.requests.append((self.path, self.headers["Content-Type"], body))
            self.send_response(received.status)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    received.url, received.status = f"http://127.0.0.1:{server.server_address[1]}", status
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield received
    finally:
        server.shutdown()
        server.server_close()
