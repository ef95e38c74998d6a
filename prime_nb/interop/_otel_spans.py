"""The spans of one root-to-leaf path, as plain records: the OpenTelemetry view of a session.

Why plain records: what a trace says (its tree, times and attributes) is decided here
without the OpenTelemetry SDK, so the rules can be read in one place; ``_otel`` turns the
records into the SDK's spans and sends them.

One trace per path. Its root is an agent span covering the path; under it, side by side
as the agent ran them, a span per model call (an assistant message), per tool call (a
``toolCall`` block, ended by its result on the same path; the specification's dialect
writes a call as an entry of its own, which is a tool call only) and per compaction. Every span
carries its attributes twice, in the OpenInference conventions (what Phoenix reads) and
in the OpenTelemetry GenAI conventions (what Langfuse, Jaeger and others read), and
``prime_nb.entry_id``, the entry it stands for.

Ids are derived from the conversation, the leaf and the entry (BLAKE2b), so exporting a
session again gives the same ids, and a receiver that keys spans by id keeps one copy;
the same entry on two paths is two spans, one in each trace (a span belongs to exactly
one trace). ``SpanRecord.key`` names what a span stands for on any path, so an export of
many paths can write a shared entry's span once and link to it (``to_otel``'s
``shared="link"``).

Times come from the entries' timestamps: a model call runs from its message's own
``timestamp`` (when the request started) to its entry's; a tool call from the call's
entry to its result's; a compaction from the entry before it to its own. A missing or
absurd time is replaced by the one before it on the path, so every span ends after it
starts.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import pandas as pd

from .._names import shown_name
from ..session import Session, content_text, entry_text, to_json

#: what an attribute may hold (the OpenTelemetry attribute types prime_nb uses)
AttributeValue: TypeAlias = str | bool | int | float | Sequence[str]

#: longest text kept in an attribute (input, output, summaries); longer text is cut and
#: says by how much, since receivers store and draw every attribute
MAX_TEXT_CHARS = 100_000

#: the mime type of every ``input.value`` and ``output.value`` (:func:`_shown`)
JSON = "application/json"

#: the agent's name in ``gen_ai.agent.name`` and in the root span's name
AGENT_NAME = "prime-agent"

#: the key of a canonical entry that was a ``toolCall`` entry of the specification's
#: dialect: an assistant message of one call, made in the model call before it (the
#: session's context merges it into that turn too)
SPEC_TOOL_CALL = "_sourceType"

#: latest time a span may carry: OTLP times are unsigned 64-bit nanoseconds
_MAX_NS = 2**64 - 1


@dataclass
class SpanRecord:
    """One span: ids are integers (128-bit trace, 64-bit span), times nanoseconds."""

    name: str
    trace_id: int
    span_id: int
    parent_id: int | None
    start_ns: int
    end_ns: int
    kind: str  # "internal" or "client" (a model call is a request to a provider)
    attributes: dict[str, AttributeValue] = field(default_factory=dict)
    error: str | None = None  # the status description of a failed span
    #: what the span stands for on any path (kind, entry, call), the same on every path
    #: that holds the entry; empty for the agent span, which stands for its path
    key: tuple[str, ...] = ()
    #: spans of other traces this one continues: (trace id, span id) each
    links: list[tuple[int, int]] = field(default_factory=list)
    #: a model call's answer as text (its ``output.value`` wraps it, :func:`_shown`)
    output: str = ""


def conversation_id(session: Session) -> str:
    """The session's id (the header's), else its file's name without the suffix."""
    return session.id or shown_name(session.file.stem)


def trace_id_of(conversation: str, leaf_id: str) -> int:
    """The trace of the path to ``leaf_id``: 128 bits of BLAKE2b, never zero."""
    return _hashed(16, conversation, leaf_id)


def span_id_of(conversation: str, leaf_id: str, *parts: str) -> int:
    """A span of that trace: 64 bits of BLAKE2b, never zero."""
    return _hashed(8, conversation, leaf_id, *parts)


def _hashed(size: int, *parts: str) -> int:
    digest = hashlib.blake2b(
        "\x1f".join(parts).encode("utf-8", "surrogatepass"), digest_size=size
    ).digest()
    return int.from_bytes(digest, "big") or 1


def path_spans(
    session: Session, leaf_id: str, entries: dict[str, dict[str, Any]]
) -> list[SpanRecord]:
    """The spans of the path root -> ``leaf_id``, the agent span first.

    ``entries`` holds the whole entries by id (read by the caller once for every path it
    exports); the numbers (tokens, cost, times, errors) come from ``session.entries``,
    where hostile values are already missing.
    """
    ids = session.path(leaf_id)
    if not ids:
        return []
    table = session.entries.loc[ids]
    times = _path_times(table["timestamp"])
    return _PathSpans(session, leaf_id, ids, table, times, entries).build()


def _path_times(column: pd.Series) -> list[int]:
    """Each entry's time in nanoseconds; a missing one is the one before it (the first
    known one for the path's start; 0 when none is known)."""
    micros = column.to_numpy(dtype="datetime64[us]").view("int64").tolist()
    known = [_ns(value) for value in micros]
    first = next((t for t in known if t is not None), 0)
    out: list[int] = []
    last = first
    for t in known:
        if t is not None:
            last = t
        out.append(last)
    return out


def _ns(micros: int) -> int | None:
    """Nanoseconds since 1970 of a time in microseconds, or None when OTLP cannot carry
    it (before 1970, or NaT, the smallest int64)."""
    ns = micros * 1000
    return ns if 0 <= ns <= _MAX_NS else None


#: the columns of ``session.entries`` the spans read (validated numbers and names)
_COLUMNS = (
    "model",
    "provider",
    "stop_reason",
    "is_error",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "total_tokens",
    "cost",
)


class _PathSpans:
    """Builds one path's spans in one pass over its entries."""

    def __init__(
        self,
        session: Session,
        leaf_id: str,
        ids: list[str],
        table: pd.DataFrame,
        times: list[int],
        entries: dict[str, dict[str, Any]],
    ) -> None:
        self.session, self.leaf_id, self.ids = session, leaf_id, ids
        self.times, self.entries = times, entries
        self.column = {name: table[name].tolist() for name in _COLUMNS}
        self.conversation = conversation_id(session)
        self.trace_id = trace_id_of(self.conversation, leaf_id)
        self.root_id = span_id_of(self.conversation, leaf_id, "agent")
        self.results = _tool_results(ids, entries)
        self.position = {entry_id: k for k, entry_id in enumerate(ids)}

    def build(self) -> list[SpanRecord]:
        spans: list[SpanRecord] = []
        pending: list[str] = []  # what the model got since its last call
        call_end = self.times[0]  # the end of the previous model call
        first_input = last_output = ""
        for k, entry_id in enumerate(self.ids):
            entry = self.entries[entry_id]
            message = entry.get("message") if entry.get("type") == "message" else None
            if isinstance(message, dict) and entry.get(SPEC_TOOL_CALL) == "toolCall":
                spans.extend(self._tool_calls(k, message))  # a call of the turn before it
            elif isinstance(message, dict) and message.get("role") == "assistant":
                span = self._model_call(k, message, "\n\n".join(pending), call_end)
                spans.append(span)
                spans.extend(self._tool_calls(k, message))
                call_end = self.times[k]
                last_output = span.output
                pending = []
            elif entry.get("type") == "compaction":
                spans.append(self._compaction(k, entry))
            elif entry.get("type") in ("message", "custom_message"):
                text = entry_text(entry, full=True)
                if text:
                    pending.append(text)
                    first_input = first_input or text
        return [self._agent(first_input, last_output), *spans]

    # -- one span each ---------------------------------------------------------------------
    def _span(self, k: int, key: tuple[str, ...], name: str, kind: str, start: int) -> SpanRecord:
        """A child of the agent span for entry ``k``, ending at the entry's time."""
        end = self.times[k]
        return self._child(k, key, name, kind, start, end)

    def _child(
        self, k: int, key: tuple[str, ...], name: str, kind: str, start: int, end: int
    ) -> SpanRecord:
        conversation = _clean(self.conversation)
        return SpanRecord(
            name=_clean(name),
            trace_id=self.trace_id,
            span_id=span_id_of(self.conversation, self.leaf_id, *key),
            parent_id=self.root_id,
            start_ns=min(start, end),
            end_ns=end,
            kind="internal",
            key=key,
            attributes={
                "prime_nb.entry_id": _clean(self.ids[k]),
                "session.id": conversation,
                "gen_ai.conversation.id": conversation,
                "openinference.span.kind": kind,
            },
        )

    def _agent(self, first_input: str, last_output: str) -> SpanRecord:
        session, conversation = self.session, _clean(self.conversation)
        attributes: dict[str, AttributeValue] = {
            "prime_nb.entry_id": _clean(self.leaf_id),
            "prime_nb.leaf_id": _clean(self.leaf_id),
            "session.id": conversation,
            "gen_ai.conversation.id": conversation,
            "openinference.span.kind": "AGENT",
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": AGENT_NAME,
            "agent.name": AGENT_NAME,
            "input.value": _shown(first_input),
            "input.mime_type": JSON,
            "output.value": _shown(last_output),
            "output.mime_type": JSON,
        }
        if session.name:
            attributes["prime_nb.session_name"] = _clean(session.name)
        cwd = session.header.get("cwd")
        if isinstance(cwd, str):
            attributes["prime_nb.cwd"] = _clean(cwd)
        costs = [c for c in self.column["cost"] if not pd.isna(c) and math.isfinite(c)]
        if costs:
            attributes["llm.cost.total"] = attributes["prime_nb.cost"] = float(sum(costs))
        return SpanRecord(
            name=f"invoke_agent {AGENT_NAME}",
            trace_id=self.trace_id,
            span_id=self.root_id,
            parent_id=None,
            start_ns=min(self.times),
            end_ns=max(self.times),
            kind="internal",
            attributes=attributes,
        )

    def _model_call(
        self, k: int, message: dict[str, Any], inputs: str, call_end: int
    ) -> SpanRecord:
        column = self.column
        end = self.times[k]
        start = _started(message.get("timestamp"), call_end, end)
        if start is None:
            start = self.times[k - 1] if k else end
        model, provider = _str(column["model"][k]), _str(column["provider"][k])
        name = f"chat {model}" if model else "chat"
        span = self._span(k, ("entry", self.ids[k]), name, "LLM", start)
        span.kind = "client"
        a = span.attributes
        a["gen_ai.operation.name"] = "chat"
        if model:
            a["llm.model_name"] = a["gen_ai.request.model"] = a["gen_ai.response.model"] = model
        if provider:
            a["llm.provider"] = a["gen_ai.provider.name"] = a["gen_ai.system"] = provider
        a.update(_usage({name: column[name][k] for name in _COLUMNS}))
        stop = _str(column["stop_reason"][k])
        if stop:
            a["gen_ai.response.finish_reasons"] = [stop]
            a["prime_nb.stop_reason"] = stop
        if inputs:
            a["input.value"], a["input.mime_type"] = _shown(inputs), JSON
        content = message.get("content")
        text, calls = content_text(content), _call_blocks(content)
        output = text or "\n".join(
            f"{_str(c.get('name'))}({to_json(c.get('arguments'))})" for c in calls
        )
        span.output = _cut(output)
        a["output.value"], a["output.mime_type"] = _shown(output), JSON
        a["llm.output_messages.0.message.role"] = "assistant"
        if text:
            a["llm.output_messages.0.message.content"] = span.output
        for j, call in enumerate(calls):
            prefix = f"llm.output_messages.0.message.tool_calls.{j}.tool_call"
            a[f"{prefix}.id"] = _str(call.get("id"))
            a[f"{prefix}.function.name"] = _str(call.get("name"))
            a[f"{prefix}.function.arguments"] = _cut(to_json(call.get("arguments")))
        thinking = _thinking(content)
        if thinking:
            a["prime_nb.thinking"] = _cut(thinking)
        if column["is_error"][k] is True:
            span.error = _str(message.get("errorMessage")) or stop or "error"
        return span

    def _tool_calls(self, k: int, message: dict[str, Any]) -> list[SpanRecord]:
        spans = []
        for j, call in enumerate(_call_blocks(message.get("content"))):
            call_id = call.get("id")
            result_id = self.results.get(call_id) if isinstance(call_id, str) else None
            if result_id is not None and self.position[result_id] <= k:
                result_id = None  # a result can only answer a call made before it
            end = self.times[self.position[result_id]] if result_id else self.times[k]
            name = _str(call.get("name")) or "tool"
            key = ("tool", self.ids[k], str(j))
            span = self._child(k, key, f"execute_tool {name}", "TOOL", self.times[k], end)
            a = span.attributes
            given = call.get("arguments")
            arguments = _cut(to_json(given))
            a["gen_ai.operation.name"] = "execute_tool"
            a["tool.name"] = a["gen_ai.tool.name"] = name
            a["gen_ai.tool.type"] = "function"
            a["gen_ai.tool.call.arguments"] = arguments
            whole = isinstance(given, (dict, list)) and len(arguments) <= MAX_TEXT_CHARS
            a["input.value"] = arguments if whole else _shown(arguments, "arguments")
            a["input.mime_type"] = JSON
            if isinstance(call_id, str):
                a["tool_call.id"] = a["gen_ai.tool.call.id"] = _clean(call_id)
            if result_id is None:
                a["prime_nb.waiting"] = True
            else:
                text = _cut(entry_text(self.entries[result_id], full=True))
                a["gen_ai.tool.call.result"] = text
                a["output.value"], a["output.mime_type"] = _shown(text), JSON
                a["prime_nb.result_id"] = _clean(result_id)
                if self.column["is_error"][self.position[result_id]] is True:
                    span.error = text[:200] or "the tool failed"
            spans.append(span)
        return spans

    def _compaction(self, k: int, entry: dict[str, Any]) -> SpanRecord:
        start = self.times[k - 1] if k else self.times[k]
        span = self._span(k, ("entry", self.ids[k]), "compaction", "CHAIN", start)
        a = span.attributes
        a["prime_nb.entry_type"] = "compaction"
        a["output.value"], a["output.mime_type"] = _shown(entry_text(entry)), JSON
        kept = entry.get("firstKeptEntryId")
        if isinstance(kept, str):
            a["prime_nb.compaction.first_kept_entry_id"] = _clean(kept)
        for key, name in (("tokensBefore", "tokens_before"), ("tokensAfter", "tokens_after")):
            value = entry.get(key)
            if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**63:
                a[f"prime_nb.compaction.{name}"] = value
        a["prime_nb.compaction.from_hook"] = entry.get("fromHook") is True
        return span


# -- reading entries -----------------------------------------------------------------------
def _tool_results(ids: list[str], entries: dict[str, dict[str, Any]]) -> dict[str, str]:
    """The first tool result on the path for each call id."""
    out: dict[str, str] = {}
    for entry_id in ids:
        entry = entries[entry_id]
        message = entry.get("message")
        if entry.get("type") != "message" or not isinstance(message, dict):
            continue
        call_id = message.get("toolCallId")
        if message.get("role") == "toolResult" and isinstance(call_id, str):
            out.setdefault(call_id, entry_id)
    return out


def _call_blocks(content: Any) -> list[dict[str, Any]]:
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict) and b.get("type") == "toolCall"]


def _thinking(content: Any) -> str:
    if not isinstance(content, list):
        return ""
    parts = [
        b["thinking"]
        for b in content
        if isinstance(b, dict)
        and b.get("type") == "thinking"
        and isinstance(b.get("thinking"), str)
    ]
    return "\n".join(parts)


def _started(value: Any, earliest: int, end: int) -> int | None:
    """A model call's start from its message's ``timestamp`` (milliseconds), when it lies
    between the end of the previous call and the entry's own time."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    if not 0 <= value <= _MAX_NS // 1_000_000:
        return None
    ns = int(value * 1_000_000)
    return ns if earliest <= ns <= end else None


def _usage(row: dict[str, Any]) -> dict[str, AttributeValue]:
    """Tokens in both conventions (the prompt counts the cache's tokens too, so
    prompt + completion is the total), and the cost in dollars."""
    fresh, output = _int(row["input_tokens"]), _int(row["output_tokens"])
    read, written = _int(row["cache_read_tokens"]), _int(row["cache_write_tokens"])
    total = _int(row["total_tokens"])
    out: dict[str, AttributeValue] = {}
    if fresh is not None or read is not None or written is not None:
        prompt = (fresh or 0) + (read or 0) + (written or 0)
        out["llm.token_count.prompt"] = out["gen_ai.usage.input_tokens"] = prompt
    if output is not None:
        out["llm.token_count.completion"] = out["gen_ai.usage.output_tokens"] = output
    if read is not None:
        out["llm.token_count.prompt_details.cache_read"] = read
        out["gen_ai.usage.cache_read.input_tokens"] = read
    if written is not None:
        out["llm.token_count.prompt_details.cache_write"] = written
        out["gen_ai.usage.cache_creation.input_tokens"] = written
    if total is not None:
        out["llm.token_count.total"] = total
    cost = row["cost"]
    if not pd.isna(cost) and math.isfinite(cost):
        # no GenAI convention names a cost: Langfuse reads gen_ai.usage.cost
        out["llm.cost.total"] = out["gen_ai.usage.cost"] = out["prime_nb.cost"] = float(cost)
    # an OTLP integer is a signed 64-bit one; a negative count is kept as the file (and
    # the provider's bill) has it, as the tables keep it
    return {k: v for k, v in out.items() if not isinstance(v, int) or -(2**63) <= v < 2**63}


# -- values --------------------------------------------------------------------------------
def _int(value: Any) -> int | None:
    return None if pd.isna(value) else int(value)


def _str(value: Any) -> str:
    """A text value of the session, cleaned for OTLP; anything else (NaN, None) is ""."""
    return _clean(value) if isinstance(value, str) else ""


def _clean(text: str) -> str:
    """``text`` as valid UTF-8 (OTLP's strings are): a lone surrogate as ``\\udXXX``."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def _shown(text: str, key: str = "text") -> str:
    """``text`` (cut, :func:`_cut`) as the JSON object ``{key: text}``, the form of
    every ``input.value`` and ``output.value`` (mime type ``application/json``).

    Why: Phoenix draws these values, whatever their mime type, as Markdown that passes
    HTML through (a session's turns, the tables' previews) unless they read as a JSON
    object or array, which it draws as code. Session text is untrusted: as Markdown, a
    link in it would be a live link in Phoenix. As JSON it is shown as the text it is.
    """
    return to_json({key: _cut(text)})


def _cut(text: str) -> str:
    """``text`` cleaned, and cut to ``MAX_TEXT_CHARS`` saying how long it was."""
    if len(text) > MAX_TEXT_CHARS:
        text = f"{text[:MAX_TEXT_CHARS]}… [cut: {len(text):,} characters in all]"
    return _clean(text)
