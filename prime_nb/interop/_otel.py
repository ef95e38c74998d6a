"""``to_otel``: a session's paths as OpenTelemetry traces, sent over OTLP/HTTP or written
to a ``.pb`` file.

Why: Phoenix, Langfuse and Jaeger read traces that arrive over OTLP, so a session
exported here can be browsed, searched and evaluated there beside live agents' traces.
The spans (their tree, times, ids and attributes) are decided in ``_otel_spans``; this
module hands them to the OpenTelemetry SDK's exporters, which the ``otel`` extra
installs (``pip install 'prime-nb[otel]'``): the core install does not need them.

A ``.pb`` file holds one OTLP ``ExportTraceServiceRequest`` in protobuf, the body any
OTLP/HTTP receiver takes at ``/v1/traces`` with ``Content-Type: application/x-protobuf``.
"""

from __future__ import annotations

import logging
import os
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

from .._names import shown_text
from .._version import __version__
from ..session import Session, SessionLike, as_session, paused_gc
from ._extras import require
from ._otel_spans import SpanRecord, conversation_id, path_spans, trace_id_of

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import ReadableSpan
    from opentelemetry.sdk.trace.export import SpanExporter

#: spans per OTLP request, and the text (in characters) one request may carry before the
#: next starts: a receiver's request size limit is met by many smaller requests
BATCH_SPANS = 512
BATCH_CHARS = 8_000_000

#: the path an OTLP/HTTP receiver takes traces at, added to an endpoint given without one
TRACES_PATH = "/v1/traces"

#: the module of the OTLP/HTTP exporter (``opentelemetry-exporter-otlp-proto-http``)
OTLP_HTTP = "opentelemetry.exporter.otlp.proto.http.trace_exporter"

#: where the OTLP exporters log a refused or failed request
EXPORTER_LOGGER = "opentelemetry.exporter.otlp"

#: seconds the OTLP exporter waits for a request (retries included)
TIMEOUT = 30.0


def to_otel(
    session: SessionLike,
    *,
    endpoint: str | None = None,
    path: str | os.PathLike[str] | None = None,
    project: str | None = None,
    leaf: str | None = None,
    exporter: SpanExporter | None = None,
    shared: Literal["repeat", "link"] = "repeat",
) -> list[str]:
    """Send a session's paths as traces to an OTLP/HTTP ``endpoint``, or write them to
    ``path`` (an OTLP protobuf file), or hand them to an SDK ``exporter``.

    ``session``: a Session or the path of a session file. ``leaf``: ``None`` exports the
    active path (root to the last entry), ``"all"`` one trace per leaf, an entry id the
    path from the root to that entry, as ``to_atif`` counts files. ``project``: the
    Phoenix project the traces land in (resource attribute
    ``openinference.project.name``; Phoenix's ``default`` when not given).

    ``endpoint``: an OTLP/HTTP traces URL, such as Phoenix's
    ``http://localhost:6006/v1/traces``; a URL without a path gets ``/v1/traces``.
    ``exporter``: any ``opentelemetry.sdk.trace.export.SpanExporter`` (an in-memory one
    for tests, gRPC, the console). Give exactly one of the three.

    Each trace is an agent span with a span under it per model call, tool call and
    compaction (docs/interop.md lists the attributes). Ids come from the session id, the
    leaf and the entry, so exporting again gives the same traces.

    ``shared``: what a path's trace holds of the history it shares with paths exported
    before it (with ``"link"``, the active path is exported, and returned, first).
    ``"repeat"`` (the default): every span of the path, so each trace reads whole.
    ``"link"``: only the spans no earlier trace holds;
    its agent span links (an OpenTelemetry span link) to the span of the last shared
    entry and says how many spans it left out (``prime_nb.shared_spans``), and its cost
    is that of the spans it holds, so each model call, tool call and compaction, and
    its cost, is in one trace.

    Returns the trace ids (32 hex digits), one per path, in the order of ``leaf``.

    Raises ImportError without the ``otel`` extra, ValueError for a wrong combination of
    arguments, EntryNotFoundError for a ``leaf`` not in the session, ConnectionError
    when the endpoint does not take the spans, OSError when ``path`` cannot be written.
    """
    targets = [
        name
        for name, v in (("endpoint", endpoint), ("path", path), ("exporter", exporter))
        if v is not None
    ]
    if len(targets) != 1:
        given = f"got {', '.join(targets)}" if targets else "got none"
        raise ValueError(f"to_otel: give one of endpoint, path or exporter; {given}")
    if shared not in ("repeat", "link"):
        raise ValueError(f"to_otel: shared={shared!r}; give 'repeat' or 'link'")
    if endpoint is not None:
        _check_endpoint(endpoint)
    otel = _sdk()
    loaded = as_session(session, "to_otel")
    leaves = _leaves(loaded, leaf)
    resource = _resource(otel, project)
    if shared == "link":  # the active path first: its trace holds the shared spans
        leaves = sorted(leaves, key=lambda leaf_id: leaf_id != loaded.leaf_id)
    records = _records(loaded, leaves)
    if shared == "link":
        records = _linked(records)
    batches = _batches(otel.readable(record, resource) for record in records)
    with paused_gc():  # many small objects, no cycles among them
        if path is not None:
            _write(Path(os.fspath(path)), (otel.encode(batch) for batch in batches))
        elif endpoint is not None:
            _send(otel.http_exporter(_traces_url(endpoint)), batches, endpoint, shutdown=True)
        else:
            assert exporter is not None
            _send(exporter, batches, type(exporter).__name__, shutdown=False)
    conversation = conversation_id(loaded)
    return [f"{trace_id_of(conversation, leaf_id):032x}" for leaf_id in leaves]


def _leaves(session: Session, leaf: str | None) -> list[str]:
    """The ends of the paths to export: the active leaf, every leaf, or the one asked."""
    if leaf == "all":
        return [str(entry_id) for entry_id in session.leaves.index]
    if leaf is None:
        path = session.path()
        return path[-1:]
    session.path(leaf)  # EntryNotFoundError for an id the session does not have
    return [leaf]


def _records(session: Session, leaves: Sequence[str]) -> Iterator[SpanRecord]:
    """Every path's spans; the entries on the paths are read from the file once."""
    on_paths = list(dict.fromkeys(e for leaf in leaves for e in session.path(leaf)))
    entries = dict(zip(on_paths, session.read_entries(on_paths), strict=True))
    for leaf_id in leaves:
        yield from path_spans(session, leaf_id, entries)


def _linked(records: Iterable[SpanRecord]) -> Iterator[SpanRecord]:
    """Each span once: a trace's spans that an earlier trace holds (same entry, call and
    result) are left out, and its agent span links to the last of them."""
    written: dict[tuple[str, ...], tuple[int, int]] = {}
    agent: SpanRecord | None = None
    kept: list[SpanRecord] = []
    left_out: list[tuple[int, int]] = []

    def finish() -> Iterator[SpanRecord]:
        if agent is None:
            return
        if left_out:
            agent.links.append(left_out[-1])
            agent.attributes["prime_nb.shared_spans"] = len(left_out)
            if "prime_nb.cost" in agent.attributes:  # the cost of what it holds, once
                costs = [r.attributes.get("prime_nb.cost") for r in kept]
                own = float(sum(c for c in costs if isinstance(c, float)))
                agent.attributes["llm.cost.total"] = agent.attributes["prime_nb.cost"] = own
        yield agent
        yield from kept

    for record in records:
        if not record.key:  # an agent span: the next path's trace begins
            yield from finish()
            agent, kept, left_out = record, [], []
            continue
        result = record.attributes.get("prime_nb.result_id")
        identity = (*record.key, result if isinstance(result, str) else "")
        if identity in written:  # no path repeats an identity: an earlier trace's
            left_out.append(written[identity])
        else:
            kept.append(record)
            written[identity] = (record.trace_id, record.span_id)
    yield from finish()


# -- the SDK ---------------------------------------------------------------------------------
class _Sdk:
    """The OpenTelemetry classes ``to_otel`` uses, imported when it is first called."""

    def __init__(self) -> None:
        from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import ReadableSpan
        from opentelemetry.sdk.trace.export import SpanExportResult
        from opentelemetry.sdk.util.instrumentation import InstrumentationScope
        from opentelemetry.trace import (
            Link,
            SpanContext,
            SpanKind,
            Status,
            StatusCode,
            TraceFlags,
        )

        self.encode_spans, self.OTLPSpanExporter = encode_spans, OTLPSpanExporter
        self.Resource, self.ReadableSpan, self.SUCCESS = (
            Resource,
            ReadableSpan,
            SpanExportResult.SUCCESS,
        )
        self.SpanContext, self.SpanKind, self.Status, self.StatusCode = (
            SpanContext,
            SpanKind,
            Status,
            StatusCode,
        )
        self.Link = Link
        self.sampled = TraceFlags(TraceFlags.SAMPLED)
        self.scope = InstrumentationScope("prime_nb", __version__)

    def context(self, trace_id: int, span_id: int) -> Any:
        return self.SpanContext(trace_id, span_id, is_remote=False, trace_flags=self.sampled)

    def readable(self, record: SpanRecord, resource: Any) -> ReadableSpan:
        parent = record.parent_id
        kind = self.SpanKind.CLIENT if record.kind == "client" else self.SpanKind.INTERNAL
        status = (
            self.Status(self.StatusCode.ERROR, record.error)
            if record.error is not None
            else self.Status(self.StatusCode.UNSET)
        )
        links = [self.Link(self.context(trace, span)) for trace, span in record.links]
        span: ReadableSpan = self.ReadableSpan(
            name=record.name,
            links=links,
            context=self.context(record.trace_id, record.span_id),
            parent=self.context(record.trace_id, parent) if parent is not None else None,
            resource=resource,
            attributes=record.attributes,
            kind=kind,
            status=status,
            start_time=record.start_ns,
            end_time=record.end_ns,
            instrumentation_scope=self.scope,
        )
        return span

    def encode(self, spans: Sequence[ReadableSpan]) -> bytes:
        body: bytes = self.encode_spans(spans).SerializeToString()
        return body

    def http_exporter(self, url: str) -> SpanExporter:
        exporter: SpanExporter = self.OTLPSpanExporter(endpoint=url, timeout=TIMEOUT)
        return exporter


_SDK: _Sdk | None = None


def _sdk() -> _Sdk:
    """The SDK's classes; without the extra, an ImportError that says how to install it."""
    global _SDK
    if _SDK is None:
        for module in ("opentelemetry.sdk.trace", OTLP_HTTP):
            require(module, "otel", "to_otel")
        _SDK = _Sdk()
    return _SDK


def _resource(otel: _Sdk, project: str | None) -> Any:
    attributes = {"service.name": "prime-agent", "telemetry.sdk.name": "prime_nb"}
    if project is not None:
        attributes["openinference.project.name"] = project
    return otel.Resource.create(attributes)


# -- where the spans go ----------------------------------------------------------------------
def _check_endpoint(endpoint: str) -> None:
    parts = urlsplit(endpoint)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(
            shown_text(
                f"{endpoint}: not an OTLP/HTTP address; give an http(s) URL such as "
                "http://localhost:6006/v1/traces"
            )
        )


def _traces_url(endpoint: str) -> str:
    """The endpoint, with ``/v1/traces`` when it names only a host."""
    parts = urlsplit(endpoint)
    if parts.path in ("", "/"):
        return parts._replace(path=TRACES_PATH).geturl()
    return endpoint


def _batches(spans: Iterable[ReadableSpan]) -> Iterator[list[ReadableSpan]]:
    """The spans in requests of at most BATCH_SPANS spans and about BATCH_CHARS of text,
    built as they are sent: a long path is never in memory as spans all at once."""
    batch: list[ReadableSpan] = []
    chars = 0
    for span in spans:
        size = sum(len(v) for v in (span.attributes or {}).values() if isinstance(v, str))
        if batch and (len(batch) >= BATCH_SPANS or chars + size > BATCH_CHARS):
            yield batch
            batch, chars = [], 0
        batch.append(span)
        chars += size
    if batch:
        yield batch


def _send(
    exporter: SpanExporter, batches: Iterable[list[ReadableSpan]], where: str, shutdown: bool
) -> None:
    """Export every batch; the first one refused is a ConnectionError. While our own
    OTLP exporter sends (``shutdown``), what it logs is kept for that error's message
    instead of printed beside it."""
    with _exporter_log(keep=shutdown) as said:
        try:
            for batch in batches:
                if exporter.export(batch) != _sdk().SUCCESS:
                    detail = f" ({'; '.join(dict.fromkeys(said))[:300]})" if said else ""
                    raise ConnectionError(
                        shown_text(
                            f"{where}: the spans were not accepted{detail}; check that the OTLP "
                            "receiver (Phoenix, Jaeger, a collector) is running at that address"
                        )
                    )
        finally:
            if shutdown:
                exporter.shutdown()


@contextmanager
def _exporter_log(keep: bool) -> Iterator[list[str]]:
    """The OTLP exporter's log messages of the block (left alone when ``keep`` is false)."""
    said: list[str] = []
    if not keep:
        yield said
        return

    class Kept(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            said.append(record.getMessage())

    logger, handler = logging.getLogger(EXPORTER_LOGGER), Kept(logging.WARNING)
    propagate, logger.propagate = logger.propagate, False
    logger.addHandler(handler)
    try:
        yield said
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate


def _write(path: Path, bodies: Iterable[bytes]) -> None:
    """Write the requests as one, whole or not at all (a temporary file renamed over
    ``path``). Serialised protobuf messages of one type concatenate into one message
    whose repeated fields hold all of theirs, so the batches' requests make one
    ``ExportTraceServiceRequest``."""
    folder = path.parent
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            for body in bodies:
                fh.write(body)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
