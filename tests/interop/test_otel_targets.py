"""Where ``to_otel``'s spans go and what it refuses: an OTLP ``.pb`` file (parsed back with
OpenTelemetry's own protobuf classes), an OTLP/HTTP receiver on loopback, the same ids
on every export, times and text from hostile entries, the arguments' errors and the
missing extra.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fresh_python import run_fresh
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from otlp_receiver import receiving, spans_of
from session_matrix import shared_file

import prime_nb
from prime_nb.errors import EntryNotFoundError
from prime_nb.interop import _otel, _otel_spans, to_otel

BRANCHY = "synthetic-v3-prime-forks5"


def in_memory(session: Any, **kwargs: Any) -> list[ReadableSpan]:
    exporter = InMemorySpanExporter()
    to_otel(session, exporter=exporter, **kwargs)
    return list(exporter.get_finished_spans())


def ids(spans: list[ReadableSpan]) -> list[tuple[int, int]]:
    return [(s.context.trace_id, s.context.span_id) for s in spans if s.context is not None]


def proto_ids(spans: list[Any]) -> list[tuple[int, int]]:
    return [(int.from_bytes(s.trace_id, "big"), int.from_bytes(s.span_id, "big")) for s in spans]


# -- a .pb file ----------------------------------------------------------------------------------
def test_a_pb_file_written_in_batches_is_one_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Batches are encoded one by one and their bytes concatenated: the file parses as
    one request holding every span, each batch's resource naming the project."""
    monkeypatch.setattr(_otel, "BATCH_SPANS", 5)
    session = prime_nb.load(shared_file(BRANCHY))
    expected = in_memory(session, leaf="all")
    target = tmp_path / "t.pb"
    to_otel(session, path=target, project="probes", leaf="all")
    request = ExportTraceServiceRequest()
    request.ParseFromString(target.read_bytes())
    assert len(request.resource_spans) == -(-len(expected) // 5)
    assert sorted(proto_ids(spans_of(target.read_bytes()))) == sorted(ids(expected))
    for resource in request.resource_spans:
        values = {a.key: a.value.string_value for a in resource.resource.attributes}
        assert values["openinference.project.name"] == "probes"
        assert values["service.name"] == "prime-agent"


# -- an OTLP/HTTP receiver ---------------------------------------------------------------------
def test_an_endpoint_gets_the_spans_over_otlp_http(monkeypatch: pytest.MonkeyPatch) -> None:
    """A host without a path gets ``/v1/traces``; many spans go as several requests."""
    monkeypatch.setattr(_otel, "BATCH_SPANS", 7)
    session = prime_nb.load(shared_file(BRANCHY))
    expected = in_memory(session, leaf="all")
    assert len(expected) > 7
    with receiving() as received:
        to_otel(session, endpoint=received.url, leaf="all")
    assert len(received.requests) == -(-len(expected) // 7)
    assert {(path, kind) for path, kind, _ in received.requests} == {
        ("/v1/traces", "application/x-protobuf")
    }
    spans = [span for _, _, body in received.requests for span in spans_of(body)]
    assert sorted(proto_ids(spans)) == sorted(ids(expected))


def test_an_endpoint_that_refuses_the_spans_is_an_error() -> None:
    with (
        receiving(status=400) as received,
        pytest.raises(  # 400: not retried
            ConnectionError, match=r"/v1/traces: the spans were not accepted \(.* 400, .*\); check"
        ),
    ):
        to_otel(shared_file(BRANCHY), endpoint=f"{received.url}/v1/traces")


# -- ids and times -----------------------------------------------------------------------------
def test_exporting_again_gives_the_same_ids() -> None:
    session = prime_nb.load(shared_file(BRANCHY))
    first, again = (
        in_memory(session, leaf="all"),
        in_memory(prime_nb.load(session.file), leaf="all"),
    )
    assert ids(first) == ids(again)
    leaves = list(session.leaves.index)
    active = in_memory(session)
    assert len({s.context.trace_id for s in active if s.context}) == 1
    chosen = in_memory(session, leaf=leaves[0])
    assert set(ids(active)) | set(ids(chosen)) <= set(ids(first))
    assert set(ids(active)).isdisjoint(ids(chosen)), "another path is another trace"


def test_the_leaf_argument_is_the_active_path_every_leaf_or_one_entry() -> None:
    session = prime_nb.load(shared_file(BRANCHY))
    leaves = list(session.leaves.index)
    assert len(to_otel(session, exporter=InMemorySpanExporter(), leaf="all")) == len(leaves) > 1
    (active,) = to_otel(session, exporter=InMemorySpanExporter())
    conversation = _otel_spans.conversation_id(session)
    assert active == f"{_otel_spans.trace_id_of(conversation, session.path()[-1]):032x}"
    middle = session.path()[len(session.path()) // 2]
    spans = in_memory(session, leaf=middle)
    assert {dict(s.attributes or {})["prime_nb.entry_id"] for s in spans} <= set(
        session.path(middle)
    )
    with pytest.raises(EntryNotFoundError, match="no entry with id 'nope'"):
        to_otel(session, exporter=InMemorySpanExporter(), leaf="nope")


def lines(path: Path, entries: list[dict[str, Any]]) -> Path:
    header = {"type": "session", "version": 3, "id": "s-1", "timestamp": "2026-01-01T00:00:00Z"}
    path.write_text("".join(json.dumps(e) + "\n" for e in [header, *entries]))
    return path


def message(entry_id: str, parent: str | None, second: int, **body: Any) -> dict[str, Any]:
    return {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": f"2026-01-01T00:00:{second:02d}Z",
        "message": body,
    }


NS = 1_000_000_000
T0 = 1_767_225_600 * NS  # 2026-01-01T00:00:00Z


def test_a_model_call_starts_at_its_request_unless_that_time_is_absurd(tmp_path: Path) -> None:
    entries = [
        message("u1", None, 10, role="user", content="go"),
        message("a1", "u1", 20, role="assistant", content="ok", timestamp=(T0 // 10**6) + 12_000),
        message("u2", "a1", 30, role="user", content="again"),
        message("a2", "u2", 40, role="assistant", content="ok", timestamp=1),
        message("u3", "a2", 50, role="user", content="more"),
        message("a3", "u3", 59, role="assistant", content="ok", timestamp="soon"),
    ]
    spans = in_memory(lines(tmp_path / "s.jsonl", entries))
    times = {
        (a["openinference.span.kind"], a["prime_nb.entry_id"]): (s.start_time, s.end_time)
        for s in spans
        for a in [dict(s.attributes or {})]
    }
    assert times["LLM", "a1"] == (T0 + 12 * NS, T0 + 20 * NS)
    assert times["LLM", "a2"] == (T0 + 30 * NS, T0 + 40 * NS), "1970 is not when it started"
    assert times["LLM", "a3"] == (T0 + 50 * NS, T0 + 59 * NS)
    assert times["AGENT", "a3"] == (T0 + 10 * NS, T0 + 59 * NS), "it covers the path"


def test_a_tool_call_runs_until_its_result_and_failures_are_errors(tmp_path: Path) -> None:
    call = {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "ls"}}
    waiting = {"type": "toolCall", "id": "c2", "name": "read", "arguments": {"path": "x"}}
    entries = [
        message("u1", None, 1, role="user", content="list"),
        message("a1", "u1", 2, role="assistant", content=[call, waiting], stopReason="toolUse"),
        message(
            "r1",
            "a1",
            5,
            role="toolResult",
            toolCallId="c1",
            toolName="bash",
            content=[{"type": "text", "text": "no such dir"}],
            isError=True,
        ),
    ]
    spans = in_memory(lines(tmp_path / "s.jsonl", entries))
    tools = {
        dict(s.attributes or {})["tool_call.id"]: s
        for s in spans
        if dict(s.attributes or {})["openinference.span.kind"] == "TOOL"
    }
    done, pending = tools["c1"], tools["c2"]
    assert (done.start_time, done.end_time) == (T0 + 2 * NS, T0 + 5 * NS)
    assert done.status.status_code.name == "ERROR"
    assert dict(done.attributes or {})["output.value"] == '{"text":"no such dir"}'
    assert dict(done.attributes or {})["gen_ai.tool.call.result"] == "no such dir"
    assert dict(done.attributes or {})["gen_ai.tool.call.arguments"] == '{"command":"ls"}'
    assert dict(pending.attributes or {})["prime_nb.waiting"] is True
    assert pending.start_time == pending.end_time == T0 + 2 * NS


def test_long_text_is_cut_and_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_otel_spans, "MAX_TEXT_CHARS", 50)
    entries = [
        message("u1", None, 1, role="user", content="x" * 80),
        message("a1", "u1", 2, role="assistant", content="y" * 20),
    ]
    spans = in_memory(lines(tmp_path / "s.jsonl", entries))
    (llm,) = [s for s in spans if dict(s.attributes or {})["openinference.span.kind"] == "LLM"]
    said = {key: json.loads(str(dict(llm.attributes or {})[key]))["text"] for key in IO}
    assert said == {
        "input.value": "x" * 50 + "… [cut: 80 characters in all]",
        "output.value": "y" * 20,
    }


#: the attributes Phoenix draws as a span's input and output
IO = ("input.value", "output.value")


def test_inputs_and_outputs_are_json_objects(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every ``input.value`` and ``output.value`` is a JSON object, typed so: Phoenix
    draws any other value as Markdown with its HTML, and session text is untrusted
    (``test_otel_phoenix.py`` shows it in Phoenix's UI). Tool arguments that are no
    object (a string of markup) or that are cut are wrapped as well; whole object
    arguments are sent as they are."""
    monkeypatch.setattr(_otel_spans, "MAX_TEXT_CHARS", 60)
    link = '<a href="https://outside.example/">x</a>'

    def call(call_id: str, arguments: Any) -> dict[str, Any]:
        return {"type": "toolCall", "id": call_id, "name": "bash", "arguments": arguments}

    entries = [
        message("u1", None, 1, role="user", content=link),
        message(
            "a1",
            "u1",
            2,
            role="assistant",
            content=[call("c1", link), call("c2", {"command": link * 3}), call("c3", {"a": 1})],
        ),
        message("r1", "a1", 3, role="toolResult", content=link, toolCallId="c1"),
        {
            "type": "compaction",
            "id": "k1",
            "parentId": "r1",
            "summary": link,
            "firstKeptEntryId": "r1",
            "tokensBefore": 10,
            "timestamp": "2026-01-01T00:00:04Z",
        },
        message("a2", "k1", 5, role="assistant", content=link),
    ]
    spans = in_memory(lines(tmp_path / "s.jsonl", entries))
    kinds, found = set(), []
    for span in spans:
        a = dict(span.attributes or {})
        kinds.add(a["openinference.span.kind"])
        for key in IO:
            if key in a:
                assert a[key.replace("value", "mime_type")] == "application/json", (span.name, key)
                found.append((span.name, key, json.loads(str(a[key]))))
    assert kinds == {"AGENT", "LLM", "TOOL", "CHAIN"}
    assert all(isinstance(value, dict) for *_, value in found), found
    arguments = [v for name, key, v in found if (name, key) == ("execute_tool bash", IO[0])]
    assert {"arguments": json.dumps(link)} in arguments  # a string of markup, wrapped
    assert {"a": 1} in arguments  # an object, as it is
    assert any(set(a) == {"arguments"} and "[cut: " in a["arguments"] for a in arguments)


def test_an_empty_session_has_no_trace(tmp_path: Path) -> None:
    target = tmp_path / "t.pb"
    assert to_otel(lines(tmp_path / "s.jsonl", []), path=target, leaf="all") == []
    assert spans_of(target.read_bytes()) == []


# -- arguments and the extra -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "give one of endpoint, path or exporter; got none"),
        ({"endpoint": "http://h:1", "path": "t.pb"}, "got endpoint, path"),
        ({"endpoint": "localhost:6006"}, "localhost:6006: not an OTLP/HTTP address; give"),
    ],
)
def test_wrong_targets_are_refused_before_any_work(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        to_otel("no-such-file.jsonl", **kwargs)


def test_interop_imports_opentelemetry_only_to_export_and_names_a_missing_extra() -> None:
    out = run_fresh(
        """
        import sys
        import prime_nb.interop
        print(any(name.startswith("opentelemetry") for name in sys.modules))
        sys.modules["opentelemetry.sdk.trace"] = None  # as if the extra were not installed
        try:
            prime_nb.interop.to_otel("s.jsonl", path="t.pb")
        except ImportError as error:
            print(error)
            print(type(error.__cause__).__name__)
        """
    )
    assert out.splitlines() == [
        "False",
        "to_otel needs the package 'opentelemetry', which is not installed; "
        "install it with: pip install 'prime-nb[otel]'",
        "ModuleNotFoundError",
    ]
