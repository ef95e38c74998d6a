"""A Session as the widget sees it: compact binary columns up front, details on request.

Up front only a few bytes per entry travel (ids, parent index, kind and flag codes, tokens,
time); the JS asks for everything else when it needs it ("entry", "entries" for the
Transcript's rows on screen, "preview", "lines", "search", "context"). The same answers,
computed for every entry, are what the HTML export inlines.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
import orjson
import pandas as pd

from ..session import entry_text
from ._labels import entry_labels
from ._search import SearchIndex

if TYPE_CHECKING:
    from ..session import Session

# Entry kind codes (must match js/src/model/constants.ts).
USER, ASSISTANT, TOOL_RESULT, BASH, CUSTOM_MESSAGE, COMPACTION, BRANCH_SUMMARY = range(7)
MODEL_CHANGE, THINKING_CHANGE, LABEL, SESSION_INFO, CUSTOM, SERVICE_TIER = range(7, 13)
CHILD_USAGE, OTHER = 13, 14

# Flag bits.
FLAG_ERROR, FLAG_TOOL_ONLY, FLAG_THINKING, FLAG_IMAGE, FLAG_TOOL_CALLS = 1, 2, 4, 8, 16

ROLE_KINDS = {
    "user": USER,
    "assistant": ASSISTANT,
    "toolResult": TOOL_RESULT,
    "bashExecution": BASH,
    "custom": CUSTOM_MESSAGE,
    "hookMessage": CUSTOM_MESSAGE,
}
TYPE_KINDS = {
    "custom_message": CUSTOM_MESSAGE,
    "compaction": COMPACTION,
    "branch_summary": BRANCH_SUMMARY,
    "model_change": MODEL_CHANGE,
    "thinking_level_change": THINKING_CHANGE,
    "label": LABEL,
    "session_info": SESSION_INFO,
    "custom": CUSTOM,
    "service_tier_change": SERVICE_TIER,
    "child_usage_attributed": CHILD_USAGE,
}
KIND_NAMES = (
    "user",
    "assistant",
    "tool result",
    "bash",
    "custom message",
    "compaction",
    "branch summary",
    "model change",
    "thinking level",
    "label",
    "session info",
    "extension state",
    "service tier",
    "child usage",
    "other",
)

MAX_PROBLEMS = 2_000
PROBLEM_CHARS = 300
LABEL_CHARS = 80
CONTEXT_TEXT_CHARS = 240
LINES_PER_REQUEST = 500
ENTRIES_PER_REQUEST = 50
COLUMN_NAMES = ("ids", "parent", "kind", "flags", "tokens", "time")


def _strings(series: pd.Series) -> list[str | None]:
    return [v if isinstance(v, str) else None for v in series.tolist()]


def kind_code(kind: Any, role: Any) -> int:
    """Kind code of one entry from its type and role (see the module constants)."""
    if kind == "message":
        return ROLE_KINDS.get(role if isinstance(role, str) else "", OTHER)
    return TYPE_KINDS.get(kind, OTHER) if isinstance(kind, str) else OTHER


def kind_codes(entries: pd.DataFrame) -> np.ndarray:
    """Kind code per row."""
    return np.fromiter(
        map(kind_code, _strings(entries["type"]), _strings(entries["role"])),
        dtype=np.uint8,
        count=len(entries),
    )


def _bools(entries: pd.DataFrame, name: str) -> np.ndarray:
    if name not in entries:
        return np.zeros(len(entries), dtype=bool)
    return np.asarray(entries[name].fillna(False), dtype=bool)


def flag_codes(entries: pd.DataFrame, kinds: np.ndarray) -> np.ndarray:
    """Flag bits per row: error, tool-only assistant, thinking, image, tool calls."""
    assistant = kinds == ASSISTANT
    stop = entries["stop_reason"].astype(object).isin(["error", "aborted"]).to_numpy(bool)
    error = (_bools(entries, "is_error") & (kinds == TOOL_RESULT)) | (assistant & stop)
    calls = np.asarray(entries["n_tool_calls"].fillna(0), dtype=np.int64) > 0
    tool_only = assistant & calls & ~_bools(entries, "has_text")
    flags = np.zeros(len(entries), dtype=np.uint8)
    flags |= np.where(error, FLAG_ERROR, 0).astype(np.uint8)
    flags |= np.where(tool_only, FLAG_TOOL_ONLY, 0).astype(np.uint8)
    flags |= np.where(_bools(entries, "has_thinking"), FLAG_THINKING, 0).astype(np.uint8)
    flags |= np.where(_bools(entries, "has_image"), FLAG_IMAGE, 0).astype(np.uint8)
    flags |= np.where(calls, FLAG_TOOL_CALLS, 0).astype(np.uint8)
    return flags


def _seconds(entries: pd.DataFrame, origin: pd.Timestamp | None) -> np.ndarray:
    stamps = pd.to_datetime(entries["timestamp"], utc=True)
    if origin is None or len(stamps) == 0:
        return np.zeros(len(stamps), dtype=np.float32)
    secs = (stamps - origin).dt.total_seconds().to_numpy(dtype=np.float64, na_value=np.nan)
    return np.nan_to_num(secs, nan=0.0).astype("<f4")


def _ids_column(ids: list[str]) -> dict[str, Any]:
    """Ids as n*8 ASCII bytes when they all are 8 ASCII chars, else as a JSON list."""
    if all(len(i) == 8 and i.isascii() for i in ids):
        return {"ids": "".join(ids).encode("ascii"), "id_list": None}
    return {"ids": None, "id_list": ids}


def _short(text: str, limit: int) -> str:
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 1] + "…"


def _iso(value: Any) -> str | None:
    if value is None or value is pd.NaT or (isinstance(value, float) and math.isnan(value)):
        return None
    try:
        return str(pd.Timestamp(value).isoformat())
    except (TypeError, ValueError):
        return None


def _int(value: Any) -> int:
    try:
        return 0 if value is None or pd.isna(value) else int(value)
    except (TypeError, ValueError):
        return 0


def estimate_tokens(message: dict[str, Any]) -> int:
    """Rough token count of a context message (characters / 4, images 1200)."""
    chars = 0
    images = 0
    for key in ("content", "summary", "command", "output"):
        value = message.get(key)
        if isinstance(value, str):
            chars += len(value)
        elif isinstance(value, list):
            for block in value:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "image":
                    images += 1
                elif block.get("type") == "toolCall":
                    chars += len(orjson.dumps(block.get("arguments"))) + len(str(block.get("name")))
                else:
                    chars += len(str(block.get("text") or block.get("thinking") or ""))
    return math.ceil(chars / 4) + 1200 * images


def context_text(message: dict[str, Any]) -> str:
    """A short text for one context message."""
    role = message.get("role")
    if role in ("compactionSummary", "branchSummary"):
        text = str(message.get("summary") or "")
    else:
        text = entry_text({"type": "message", "message": message}, full=False)
    return _short(text, CONTEXT_TEXT_CHARS)


class SessionData:
    """Columns and on-demand answers for one Session; tracks rows already sent."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._search = SearchIndex(self._build_search_texts)
        self._node_lines: list[str] | None = None
        self._calls_by_assistant: dict[str, list[dict[str, Any]]] | None = None
        self._call_by_result: dict[str, dict[str, Any]] | None = None
        self._sync()

    # -- columns ---------------------------------------------------------------------------
    def _sync(self) -> None:
        entries = self.session.entries
        self.ids: list[str] = [str(i) for i in entries.index]
        self.row_of: dict[str, int] = {i: r for r, i in enumerate(self.ids)}
        stamps = pd.to_datetime(entries["timestamp"], utc=True)
        first = stamps.iloc[0] if len(stamps) else None
        self.origin: pd.Timestamp | None = (
            first if first is not None and not pd.isna(first) else None
        )
        self._calls_by_assistant = None
        self._call_by_result = None
        self._lists: dict[str, list[Any]] = {}

    def _column(self, name: str) -> list[Any]:
        """One column of the entries table as a plain list, kept until the rows change.

        Answers read a few fields of one row; ``entries.iloc[i]`` builds a whole row
        Series for that, which for every row of an export dominated it.
        """
        values = self._lists.get(name)
        if values is None:
            entries = self.session.entries
            values = entries[name].astype(object).tolist() if name in entries else [None] * self.n
            self._lists[name] = values
        return values

    def _value(self, name: str, index: int) -> Any:
        value = self._column(name)[index]
        return None if value is None or (isinstance(value, float) and math.isnan(value)) else value

    @property
    def n(self) -> int:
        return len(self.ids)

    def columns(self, start: int = 0) -> dict[str, Any]:
        """Binary columns (bytes) for rows ``start:``; parents index the whole table."""
        entries = self.session.entries.iloc[start:]
        parent_ids = _strings(entries["parent_id"])
        parent = np.fromiter(
            (self.row_of.get(p, -1) if p is not None else -1 for p in parent_ids),
            dtype="<i4",
            count=len(parent_ids),
        )
        kinds = kind_codes(entries)
        flags = flag_codes(entries, kinds)
        tokens = np.asarray(entries["total_tokens"].fillna(0), dtype=np.int64)
        tokens = np.where(kinds == ASSISTANT, np.clip(tokens, 0, 2**32 - 1), 0).astype("<u4")
        return {
            "n": len(entries),
            **_ids_column(self.ids[start:]),
            "parent": parent.tobytes(),
            "kind": kinds.tobytes(),
            "flags": flags.tobytes(),
            "tokens": tokens.tobytes(),
            "time": _seconds(entries, self.origin).tobytes(),
        }

    def sparse(self) -> dict[str, Any]:
        """Labels, compactions, active leaf, name and cwd (small, always sent whole)."""
        labels = [
            [self.row_of[i], _short(text, LABEL_CHARS)]
            for i, text in self.session.labels.items()
            if i in self.row_of
        ]
        compactions = [
            [
                self.row_of[cid],
                self.row_of.get(kept, -1) if isinstance(kept, str) else -1,
                _int(tokens),
            ]
            for cid, kept, tokens in zip(
                self.session.compactions.index,
                self.session.compactions["first_kept_entry_id"],
                self.session.compactions["tokens_before"],
                strict=True,
            )
        ]
        leaf = self.session.leaf_id
        cwd = self.session.header.get("cwd")
        return {
            "active_leaf": self.row_of.get(leaf, self.n - 1) if leaf else self.n - 1,
            "labels": labels,
            "compactions": compactions,
            "name": self.session.name,
            "cwd": cwd if isinstance(cwd, str) else None,
            **self.problems(),
        }

    def problems(self) -> dict[str, Any]:
        """``problems``: ``[line, kind, message, row]`` (row -1 when no entry holds it, e.g.
        a malformed line), at most ``MAX_PROBLEMS`` of them; ``problem_count``: all."""
        table = self.session.problems
        rows = self._row_of_line()
        out = [
            [int(line), str(kind), _short(str(message), PROBLEM_CHARS), rows.get(int(line), -1)]
            for line, kind, message in zip(
                table["line"].tolist()[:MAX_PROBLEMS],
                table["kind"].tolist()[:MAX_PROBLEMS],
                table["message"].tolist()[:MAX_PROBLEMS],
                strict=True,
            )
        ]
        return {"problems": out, "problem_count": len(table)}

    def _row_of_line(self) -> dict[int, int]:
        """Row of the entry read from each line (a renamed duplicate id keeps its line)."""
        lines = self.session.entries["line"].tolist()
        return {int(line): row for row, line in enumerate(lines)}

    def tree(self) -> dict[str, Any]:
        """The whole `_tree` trait value."""
        return {**self.columns(0), **self.sparse()}

    def refresh(self) -> tuple[str, dict[str, Any] | None]:
        """Read new entries: ("none", None), ("append", message) or ("reset", tree)."""
        old_ids = self.ids
        self.session.refresh()
        entries = self.session.entries
        n_old = len(old_ids)
        new_ids = [str(i) for i in entries.index]
        if new_ids == old_ids:
            return "none", None
        self._search.invalidate()
        self._node_lines = None
        if len(new_ids) < n_old or new_ids[:n_old] != old_ids:
            self._sync()
            return "reset", self.tree()
        self._sync()
        message = {"type": "append", **self.columns(n_old), **self.sparse()}
        return "append", message

    # -- answers ---------------------------------------------------------------------------
    def answer(self, message: dict[str, Any]) -> Any:
        """Answer a request from the JS (`what` = entry, entries, preview, search, lines or
        context)."""
        what = message.get("what")
        if what == "search":
            return {"indices": self.search(str(message.get("query") or ""))}
        if what == "lines":
            indices = message.get("indices")
            if not isinstance(indices, list):
                raise ValueError("lines needs a list of indices")
            return {"lines": self.lines([i for i in indices[:LINES_PER_REQUEST]])}
        if what == "entries":
            return {"entries": self.entries(message.get("indices"))}
        index = message.get("index")
        if not isinstance(index, int) or not 0 <= index < self.n:
            raise ValueError(f"no entry at index {index!r}")
        if what == "entry":
            return self.entry(index)
        if what == "preview":
            return self.preview(index)
        if what == "context":
            return self.context(index)
        raise ValueError(f"unknown request {what!r}")

    def _tool_maps(self) -> tuple[dict[str, list[dict[str, Any]]], dict[str, dict[str, Any]]]:
        if self._calls_by_assistant is None or self._call_by_result is None:
            by_assistant: dict[str, list[dict[str, Any]]] = {}
            by_result: dict[str, dict[str, Any]] = {}
            records: list[dict[str, Any]] = [
                {str(k): v for k, v in rec.items()}
                for rec in self.session.tool_calls.to_dict("records")
            ]
            for call in records:
                by_assistant.setdefault(str(call["assistant_id"]), []).append(call)
                if isinstance(call.get("result_id"), str):
                    by_result[call["result_id"]] = call
            self._calls_by_assistant, self._call_by_result = by_assistant, by_result
        return self._calls_by_assistant, self._call_by_result

    def result_ids(self, index: int) -> list[str]:
        """Ids of the tool results answering the calls of the entry at ``index``."""
        by_assistant, _ = self._tool_maps()
        return [
            call["result_id"]
            for call in by_assistant.get(self.ids[index], [])
            if isinstance(call.get("result_id"), str) and call["result_id"] in self.row_of
        ]

    def entry(
        self,
        index: int,
        full: dict[str, Any] | None = None,
        known: dict[str, dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """The whole entry, its label, usage and cost, and its paired tool call or results.

        ``full``: the entry, already read; ``known``: entries already read, by id (the
        export reads many at once rather than opening the file for each entry's results).
        """
        entry_id = self.ids[index]
        entry = full if full is not None else self.session.entry(entry_id)
        kind = kind_code(self._value("type", index), self._value("role", index))
        message = entry.get("message") if isinstance(entry.get("message"), dict) else None
        by_assistant, by_result = self._tool_maps()
        results: dict[str, dict[str, Any]] = {}
        answered = [
            call
            for call in by_assistant.get(entry_id, [])
            if isinstance(call.get("result_id"), str) and call["result_id"] in self.row_of
        ]
        known = known or {}
        missing = [c["result_id"] for c in answered if c["result_id"] not in known]
        fetched: dict[str, dict[str, Any]] = {}
        if missing:
            fetched = dict(zip(missing, self.session.read_entries(missing), strict=True))
        read = [known.get(c["result_id"]) or fetched[c["result_id"]] for c in answered]
        for call, result in zip(answered, read, strict=True):
            result_id = call["result_id"]
            inner = result.get("message")
            msg: dict[str, Any] = inner if isinstance(inner, dict) else result
            results[str(call["call_id"])] = {
                "index": self.row_of[result_id],
                "id": result_id,
                "tool_name": msg.get("toolName"),
                "is_error": bool(msg.get("isError")),
                "content": msg.get("content"),
            }
        paired = by_result.get(entry_id)
        tool_call = None
        if paired is not None and str(paired["assistant_id"]) in self.row_of:
            tool_call = {
                "call_id": paired["call_id"],
                "name": paired["name"],
                "arguments": paired["arguments"],
                "assistant_id": str(paired["assistant_id"]),
                "assistant_index": self.row_of[str(paired["assistant_id"])],
            }
        usage = message.get("usage") if message else None
        cost = self._value("cost", index)
        return {
            "index": index,
            "id": entry_id,
            "kind": kind,
            "entry": entry,
            "label": self.session.labels.get(entry_id),
            "tool_results": results,
            "tool_call": tool_call,
            "usage": usage if isinstance(usage, dict) else None,
            "cost": float(cost) if cost is not None and not pd.isna(cost) else None,
            "model": message.get("model") if message else None,
        }

    def entries(self, indices: Any) -> list[dict[str, Any]]:
        """``entry`` for many rows at once (the Transcript's rows on screen): the entries
        and their tool results are read in one pass over the file, not one per entry.
        An index out of range gets ``{"index": i, "error": ...}`` in its place."""
        if not isinstance(indices, list):
            raise ValueError("entries needs a list of indices")
        rows = [i for i in indices[:ENTRIES_PER_REQUEST]]
        good = [i for i in rows if isinstance(i, int) and 0 <= i < self.n]
        by_assistant, _ = self._tool_maps()
        wanted = {self.ids[i] for i in good}
        for i in good:
            for call in by_assistant.get(self.ids[i], []):
                if isinstance(call.get("result_id"), str) and call["result_id"] in self.row_of:
                    wanted.add(call["result_id"])
        order = sorted(wanted, key=self.row_of.__getitem__)
        known = dict(zip(order, self.session.read_entries(order), strict=True))
        return [
            self.entry(i, known[self.ids[i]], known)
            if i in good
            else {"index": i, "error": f"no entry at index {i!r}"}
            for i in rows
        ]

    def preview(self, index: int) -> dict[str, Any]:
        """Role, time, first line and tokens, for the tooltip."""
        tool = self._value("tool_name", index)
        role = self._value("role", index)
        return {
            "role": role if isinstance(role, str) else None,
            "type": self._value("type", index),
            "time": _iso(self._value("timestamp", index)),
            "first_line": self.node_lines[index] if 0 <= index < self.n else "",
            "tokens": _int(self._value("total_tokens", index)),
            "tool_name": tool if isinstance(tool, str) else None,
        }

    @property
    def node_lines(self) -> list[str]:
        """The line that says what each entry is (see ``_labels``); built once."""
        if self._node_lines is None:
            self._node_lines = entry_labels(self.session)
        return self._node_lines

    def lines(self, indices: list[Any]) -> list[str]:
        """The node lines of several entries (the tree view's text column)."""
        known = self.node_lines
        return [known[i] if isinstance(i, int) and 0 <= i < self.n else "" for i in indices]

    def search_text(self, index: int, entry: dict[str, Any]) -> str:
        """What search looks in for one entry: its full text, label and tool name, lowered."""
        tool = self._value("tool_name", index)
        label = self.session.labels.get(self.ids[index])
        text = entry_text(entry, full=True)
        name = tool if isinstance(tool, str) else None
        return " ".join(filter(None, (text, label, name))).lower()

    def _build_search_texts(self) -> list[str]:
        """Lower-cased full text of every entry (label and tool name included)."""
        ids = list(self.ids)
        return [self.search_text(i, e) for i, e in enumerate(self.session.read_entries(ids))]

    def search_texts(self) -> list[str]:
        """Lower-cased full text of every entry; built once (see ``_search``)."""
        return self._search.texts()

    def warm_search(self) -> None:
        """Build the search index in the background now (big sessions: see ``_search``)."""
        self._search.warm()

    def search(self, query: str) -> list[int]:
        """Rows whose text holds every word of the query (the agent's rule)."""
        return self._search.search(query)

    def context(self, index: int) -> dict[str, Any]:
        """What the model saw at an entry: short messages, model and thinking level."""
        ctx = self.session.context(self.ids[index])
        messages = []
        for m in ctx:
            entry_id = m.get("entry_id")
            messages.append(
                {
                    "role": str(m.get("role")),
                    "entry_id": entry_id if isinstance(entry_id, str) else None,
                    "index": self.row_of.get(entry_id, -1) if isinstance(entry_id, str) else -1,
                    "text": context_text(m),
                    "tokens": estimate_tokens(m),
                }
            )
        return {
            "index": index,
            "model": ctx.model,
            "provider": ctx.provider,
            "thinking_level": ctx.thinking_level,
            "messages": messages,
            "total_tokens": sum(m["tokens"] for m in messages),
        }
