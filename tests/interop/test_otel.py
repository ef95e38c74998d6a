"""``to_otel`` over the session matrix: the spans an in-memory exporter receives have the
tree and the attributes docs/interop.md promises, counted against the session's own
tables (not against the exporter's rules), and the same spans come back from a ``.pb``
file.

Every path is one trace: an AGENT span at the root, and under it one LLM span per
assistant message, one TOOL span per tool call and one CHAIN span per compaction, each
naming its entry.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from session_matrix import LOADED_CASES, shared_file

import prime_nb
from prime_nb.interop import to_otel


def exported(session: prime_nb.Session, **kwargs: Any) -> tuple[list[str], list[ReadableSpan]]:
    exporter = InMemorySpanExporter()
    traces = to_otel(session, exporter=exporter, **kwargs)
    return traces, list(exporter.get_finished_spans())


def attrs(span: ReadableSpan) -> dict[str, Any]:
    return dict(span.attributes or {})


def by_trace(spans: list[ReadableSpan]) -> dict[int, list[ReadableSpan]]:
    out: dict[int, list[ReadableSpan]] = {}
    for span in spans:
        assert span.context is not None
        out.setdefault(span.context.trace_id, []).append(span)
    return out


def _ns(value: Any) -> int | None:
    """A table time in nanoseconds since 1970 (None: missing or before 1970)."""
    if pd.isna(value):
        return None
    ns = (value - pd.Timestamp(0, tz="UTC")) // pd.Timedelta(microseconds=1) * 1000
    return int(ns) if ns >= 0 else None


def _opt(value: Any) -> int | None:
    return None if pd.isna(value) else int(value)


def check_trace(session: prime_nb.Session, leaf_id: str, spans: list[ReadableSpan]) -> None:
    """One path's trace against the session's tables."""
    path = session.path(leaf_id)
    table = session.entries.loc[path]
    conversation = session.id or session.file.stem
    roots = [s for s in spans if s.parent is None]
    assert len(roots) == 1, "one agent span per trace"
    root = roots[0]
    assert root.context is not None
    assert attrs(root)["openinference.span.kind"] == "AGENT"
    assert attrs(root)["gen_ai.operation.name"] == "invoke_agent"
    assert attrs(root)["prime_nb.leaf_id"] == leaf_id
    children = [s for s in spans if s is not root]
    for span in spans:
        a = attrs(span)
        assert a["prime_nb.entry_id"] in path
        assert a["session.id"] == a["gen_ai.conversation.id"] == conversation
        assert span.start_time is not None and span.end_time is not None
        assert span.start_time <= span.end_time
    for span in children:
        assert span.parent is not None and span.parent.span_id == root.context.span_id
        assert root.start_time is not None and root.end_time is not None
        assert span.start_time is not None and span.end_time is not None
        assert root.start_time <= span.start_time and span.end_time <= root.end_time

    kinds = Counter(attrs(s)["openinference.span.kind"] for s in children)
    assert set(kinds) <= {"LLM", "TOOL", "CHAIN"}

    # a model call per assistant message, in path order, with its numbers
    # (a tool call the specification's dialect writes as an entry of its own is no call)
    spec_calls = {e["id"] for e in session.read_entries(path) if e.get("_sourceType") == "toolCall"}
    assistants = table[(table["role"] == "assistant") & ~table.index.isin(spec_calls)]
    llm = [s for s in children if attrs(s)["openinference.span.kind"] == "LLM"]
    assert [attrs(s)["prime_nb.entry_id"] for s in llm] == list(assistants.index)
    for span, (_, row) in zip(llm, assistants.iterrows(), strict=True):
        a = attrs(span)
        assert a["gen_ai.operation.name"] == "chat"
        if isinstance(row["model"], str):
            assert a["llm.model_name"] == a["gen_ai.request.model"] == row["model"]
        parts = [_opt(row[c]) for c in ("input_tokens", "cache_read_tokens", "cache_write_tokens")]
        if any(p is not None for p in parts):
            prompt = sum(p or 0 for p in parts)
            if prompt < 2**63:  # an OTLP integer is 64 bits
                assert a["llm.token_count.prompt"] == a["gen_ai.usage.input_tokens"] == prompt
            else:
                assert "llm.token_count.prompt" not in a
        if _opt(row["output_tokens"]) is not None:
            assert a["llm.token_count.completion"] == a["gen_ai.usage.output_tokens"]
            assert a["gen_ai.usage.output_tokens"] == _opt(row["output_tokens"])
        if _opt(row["cache_read_tokens"]) is not None:
            assert a["llm.token_count.prompt_details.cache_read"] == _opt(row["cache_read_tokens"])
        if not pd.isna(row["cost"]):
            assert a["llm.cost.total"] == a["prime_nb.cost"] == pytest.approx(row["cost"])
            assert a["gen_ai.usage.cost"] == a["prime_nb.cost"]
        else:
            assert "llm.cost.total" not in a
        written = _ns(row["timestamp"])
        if written is not None:
            assert span.end_time == written, "a model call ends when its entry was written"
        assert (span.status.status_code.name == "ERROR") == bool(row["is_error"])

    # a tool call per toolCall block, paired with its result where it is on the path
    on_path = set(path)
    calls = session.tool_calls[session.tool_calls["assistant_id"].isin(on_path)]
    tools = [s for s in children if attrs(s)["openinference.span.kind"] == "TOOL"]
    assert Counter((attrs(s)["prime_nb.entry_id"], attrs(s)["tool.name"]) for s in tools) == (
        Counter(
            (assistant, name if isinstance(name, str) and name else "tool")
            for assistant, name in zip(calls["assistant_id"], calls["name"], strict=True)
        )
    )
    results = {
        (a, c): r
        for a, c, r in zip(calls["assistant_id"], calls["call_id"], calls["result_id"], strict=True)
        if isinstance(r, str) and r in on_path
    }
    for span in tools:
        a = attrs(span)
        assert a["gen_ai.tool.name"] == a["tool.name"]
        assert a["gen_ai.operation.name"] == "execute_tool"
        expected = results.get((a["prime_nb.entry_id"], a.get("tool_call.id")))
        if expected is not None:
            assert a["prime_nb.result_id"] == expected
            assert "output.value" in a

    # a typed span per compaction on the path
    compactions = [c for c in session.compactions.index if c in on_path]
    chains = [s for s in children if attrs(s)["openinference.span.kind"] == "CHAIN"]
    assert [attrs(s)["prime_nb.entry_id"] for s in chains] == compactions
    for span in chains:
        assert attrs(span)["prime_nb.entry_type"] == "compaction"
        summary = session.compactions.loc[attrs(span)["prime_nb.entry_id"], "summary"]
        if isinstance(summary, str) and summary:
            assert json.loads(attrs(span)["output.value"])["text"].startswith(summary[:1000])


def check_pb_file(target: Path, expected: list[ReadableSpan]) -> None:
    """The OTLP protobuf file parses back (with OpenTelemetry's own classes) to the spans
    the exporter got: ids, names, parents, times."""
    request = ExportTraceServiceRequest()
    request.ParseFromString(target.read_bytes())
    spans = [s for r in request.resource_spans for scope in r.scope_spans for s in scope.spans]
    twins = {s.context.span_id: s for s in expected if s.context is not None}
    assert sorted(int.from_bytes(s.span_id, "big") for s in spans) == sorted(twins)
    for span in spans:
        twin = twins[int.from_bytes(span.span_id, "big")]
        assert twin.context is not None
        assert int.from_bytes(span.trace_id, "big") == twin.context.trace_id
        assert span.name == twin.name
        assert (span.start_time_unix_nano, span.end_time_unix_nano) == (
            twin.start_time,
            twin.end_time,
        )
        parent = int.from_bytes(span.parent_span_id, "big") if span.parent_span_id else None
        assert parent == (twin.parent.span_id if twin.parent else None)


@pytest.mark.parametrize("name", LOADED_CASES)
def test_every_leaf_is_a_trace_with_the_session_tree(name: str, tmp_path: Path) -> None:
    """Every matrix session, in memory and as a .pb file (which needs valid UTF-8 and
    unsigned times: hostile sessions are in the matrix)."""
    session = prime_nb.load(shared_file(name))
    leaves = list(session.leaves.index)
    traces, spans = exported(session, leaf="all", project="matrix")
    assert len(traces) == len(set(traces)) == len(leaves)
    grouped = by_trace(spans)
    assert {f"{t:032x}" for t in grouped} == set(traces)
    span_ids = [s.context.span_id for s in spans if s.context is not None]
    assert len(span_ids) == len(set(span_ids)), "span ids are unique across traces"
    for trace, leaf_id in zip(traces, leaves, strict=True):
        check_trace(session, leaf_id, grouped[int(trace, 16)])
    for span in spans:
        assert span.resource.attributes["openinference.project.name"] == "matrix"
    target = tmp_path / "traces.pb"
    assert to_otel(session, path=target, leaf="all", project="matrix") == traces
    check_pb_file(target, spans)
    assert list(tmp_path.iterdir()) == [target], "no temporary file is left"


def _identity(span: ReadableSpan) -> tuple[Any, ...]:
    """What a span stands for on any path: its kind, entry, call and result."""
    a = attrs(span)
    return (
        a["openinference.span.kind"],
        a["prime_nb.entry_id"],
        span.name,
        a.get("tool_call.id"),
        a.get("prime_nb.result_id"),
    )


FORKED = [
    "comp-on2-off0-forks1-v3-prime",
    "comp-on1-off1-forks2-v3-spec",
    "comp-on0-off3-forks3-v3-prime",
]


@pytest.mark.parametrize("name", FORKED)
def test_shared_link_writes_each_span_once_and_links_to_the_fork(name: str, tmp_path: Path) -> None:
    session = prime_nb.load(shared_file(name))
    _, repeated = exported(session, leaf="all")
    traces, linked = exported(session, leaf="all", shared="link")
    target = tmp_path / "linked.pb"
    assert to_otel(session, path=target, leaf="all", shared="link") == traces
    request = ExportTraceServiceRequest.FromString(target.read_bytes())
    (scope,) = [s for r in request.resource_spans for s in r.scope_spans]
    assert len(scope.spans) == len(linked)
    assert sum(len(s.links) for s in scope.spans) == sum(len(s.links) for s in linked)
    whole, grouped = by_trace(repeated), by_trace(linked)
    assert len(traces) == len(session.leaves) > 1
    children = [s for s in linked if s.parent is not None]
    identities = [_identity(s) for s in children]
    assert len(identities) == len(set(identities)), "each span once"
    assert set(identities) == {_identity(s) for s in repeated if s.parent is not None}
    span_at = {s.context.span_id: s for s in linked if s.context is not None}
    earlier: set[int] = set()
    agent_costs = 0.0
    for n, trace in enumerate(int(t, 16) for t in traces):
        spans = grouped[trace]
        (agent,) = [s for s in spans if s.parent is None]
        leaf_id = attrs(agent)["prime_nb.leaf_id"]
        assert (leaf_id == session.leaf_id) == (n == 0), "the active path first"
        left_out = attrs(agent).get("prime_nb.shared_spans", 0)
        assert len(spans) + left_out == len(whole[trace])
        if n == 0:
            assert left_out == 0 and not agent.links
        if left_out:  # links to the last shared span, in an earlier trace, on its path
            (link,) = agent.links
            fork = span_at[link.context.span_id]
            assert fork.context is not None and fork.context.trace_id in earlier
            assert attrs(fork)["prime_nb.entry_id"] in session.path(leaf_id)
        agent_costs += float(attrs(agent).get("prime_nb.cost", 0.0))
        earlier.add(trace)
    assert any(s.links for s in linked), "a later path shares history with the first"
    llm_costs = sum(float(attrs(s).get("prime_nb.cost", 0.0)) for s in children)
    assert agent_costs == pytest.approx(llm_costs), "the agent spans count each cost once"


def test_shared_takes_repeat_or_link() -> None:
    session = prime_nb.load(shared_file(FORKED[0]))
    with pytest.raises(ValueError, match="shared='copy'; give 'repeat' or 'link'"):
        to_otel(session, exporter=InMemorySpanExporter(), shared="copy")  # type: ignore[arg-type]
