"""A Session as the widget sees it: compact binary columns up front, details on request.

Up front only a few bytes per entry travel (ids, parent index, kind and flag codes, tokens,
time); the JS asks for everything else when it needs it ("entry", "entries" for the
Transcript's rows on screen, "preview", "lines", "search", "context"). The same answers,
computed for every entry, are what the HTML export inlines.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..analysis import estimate_tokens
from ..session import context_message_text, entry_text, one_line
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
COLUMN_NAMES = ("ids", "parent", "kind", "flags", "tokens", "output", "time")


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


def _iso_times(stamps: pd.Series) -> list[str | None]:
    """``Timestamp.isoformat()`` of each UTC time, at numpy's speed: whole seconds drop
    the fraction, as isoformat does."""
    text = np.datetime_as_string(stamps.to_numpy(dtype="datetime64[us]"), unit="us").tolist()
    return [
        None if t == "NaT" else (t[:-7] if t.endswith(".000000") else t) + "+00:00" for t in text
    ]


def context_text(message: dict[str, Any]) -> str:
    """A short text for one context message."""
    return one_line(context_message_text(message), CONTEXT_TEXT_CHARS)


class SessionData:
    """Columns and on-demand answers for one Session; tracks rows already sent."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._search = SearchIndex(self.search_texts)
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
        #: what the answers are made from, built on first use until the rows change
        self._built: dict[str, Any] = {}
        #: the file's (size, mtime) when these rows were read: see ``refresh``
        self._stamp = _stamp(self.session)

    def _once(self, name: str, build: Callable[[], Any]) -> Any:
        if name not in self._built:
            self._built[name] = build()
        return self._built[name]

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
        # What each turn wrote: folded rows and boxes add these up (unlike the totals,
        # which each count the whole context read again).
        output = np.asarray(entries["output_tokens"].fillna(0), dtype=np.int64)
        output = np.clip(output, 0, 2**32 - 1).astype("<u4")
        return {
            "n": len(entries),
            **_ids_column(self.ids[start:]),
            "parent": parent.tobytes(),
            "kind": kinds.tobytes(),
            "flags": flags.tobytes(),
            "tokens": tokens.tobytes(),
            "output": output.tobytes(),
            "time": _seconds(entries, self.origin).tobytes(),
        }

    def sparse(self) -> dict[str, Any]:
        """Labels, compactions, active leaf, name and cwd (small, always sent whole)."""
        labels = [
            [self.row_of[i], one_line(text, LABEL_CHARS)]
            for i, text in self.session.labels.items()
            if i in self.row_of
        ]
        compactions = [
            [
                self.row_of[cid],
                self.row_of.get(kept, -1) if isinstance(kept, str) else -1,
                0 if pd.isna(tokens) else int(tokens),
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
        a malformed line; a renamed duplicate id keeps its line), at most ``MAX_PROBLEMS``
        of them; ``problem_count``: all."""
        table = self.session.problems
        rows = {int(line): row for row, line in enumerate(self.session.entries["line"].tolist())}
        out = [
            [int(line), str(kind), one_line(str(message), PROBLEM_CHARS), rows.get(int(line), -1)]
            for line, kind, message in zip(
                table["line"].tolist()[:MAX_PROBLEMS],
                table["kind"].tolist()[:MAX_PROBLEMS],
                table["message"].tolist()[:MAX_PROBLEMS],
                strict=True,
            )
        ]
        return {"problems": out, "problem_count": len(table)}

    def tree(self) -> dict[str, Any]:
        """The whole `_tree` trait value."""
        return {**self.columns(0), **self.sparse()}

    def refresh(self) -> tuple[str, dict[str, Any] | None]:
        """Read new entries: ("none", None), ("append", message) or ("reset", tree)."""
        old_ids, old_stamp = self.ids, self._stamp
        self.session.refresh()
        new_ids = [str(i) for i in self.session.entries.index]
        # the same size and a new mtime: written in place (appends always grow a file),
        # and read again by the session, so texts may have changed under the same ids
        stamp = _stamp(self.session)
        rewritten = (
            stamp is not None
            and old_stamp is not None
            and stamp != old_stamp
            and stamp[0] == old_stamp[0]
        )
        if new_ids == old_ids and not rewritten:
            return "none", None
        self._search.invalidate()
        self._sync()
        n_old = len(old_ids)
        if len(new_ids) <= n_old or new_ids[:n_old] != old_ids:
            return "reset", self.tree()
        return "append", {"type": "append", **self.columns(n_old), **self.sparse()}

    # -- answers ---------------------------------------------------------------------------
    def is_index(self, value: Any) -> bool:
        """Is ``value`` a row's index? An int in range; not a bool (``True`` is an int
        that JSON's ``true`` becomes, and would stand for row 1)."""
        return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < self.n

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
            return {"lines": self.lines(indices[:LINES_PER_REQUEST])}
        if what == "entries":
            return {"entries": self.entries(message.get("indices"))}
        index = message.get("index")
        if not self.is_index(index):
            raise ValueError(f"no entry at index {_shown(index)}")
        assert isinstance(index, int)
        if what == "entry":
            return self.entry(index)
        if what == "preview":
            return self.preview(index)
        if what == "context":
            return self.context(index)
        raise ValueError(f"unknown request {what!r}")

    def _tool_maps(self) -> tuple[dict[str, list[Any]], dict[str, Any]]:
        """The tool calls (dicts) by calling entry, and by the result that answers each."""

        def build() -> tuple[dict[str, list[Any]], dict[str, Any]]:
            by_assistant: dict[str, list[Any]] = {}
            by_result: dict[str, Any] = {}
            for call in self.session.tool_calls.to_dict("records"):
                by_assistant.setdefault(str(call["assistant_id"]), []).append(call)
                if isinstance(call.get("result_id"), str):
                    by_result[call["result_id"]] = call
            return by_assistant, by_result

        return self._once("tool_maps", build)  # type: ignore[no-any-return]

    def _answered(self, entry_id: str) -> list[dict[str, Any]]:
        """The tool calls of an entry whose result is in the session."""
        return [
            call
            for call in self._tool_maps()[0].get(entry_id, [])
            if isinstance(call.get("result_id"), str) and call["result_id"] in self.row_of
        ]

    def entry(self, index: int) -> dict[str, Any]:
        """The whole entry, its label, usage and cost, and its paired tool call or results."""
        return self.entries([index])[0]

    def entries(self, indices: Any) -> list[dict[str, Any]]:
        """``entry`` for many rows at once (the Transcript's rows on screen): the entries
        and their tool results are read in one pass over the file, not one per entry.
        An index out of range gets ``{"index": i, "error": ...}`` in its place."""
        if not isinstance(indices, list):
            raise ValueError("entries needs a list of indices")
        rows = indices[:ENTRIES_PER_REQUEST]
        good = [i for i in rows if self.is_index(i)]
        wanted = {self.ids[i] for i in good}
        wanted.update(call["result_id"] for i in good for call in self._answered(self.ids[i]))
        order = sorted(wanted, key=self.row_of.__getitem__)
        known = dict(zip(order, self.session.read_entries(order), strict=True))
        return [
            self._entry(i, known)
            if i in good
            else {"index": i, "error": f"no entry at index {_shown(i)}"}
            for i in rows
        ]

    def _entry(self, index: int, known: dict[str, dict[str, Any]]) -> dict[str, Any]:
        entry_id = self.ids[index]
        entry = known[entry_id]
        previews = self.previews()
        message = entry.get("message") if isinstance(entry.get("message"), dict) else None
        results: dict[str, dict[str, Any]] = {}
        for call in self._answered(entry_id):
            result_id = call["result_id"]
            inner = known[result_id].get("message")
            msg: dict[str, Any] = inner if isinstance(inner, dict) else known[result_id]
            results[str(call["call_id"])] = {
                "index": self.row_of[result_id],
                "id": result_id,
                "tool_name": msg.get("toolName"),
                "is_error": bool(msg.get("isError")),
                "content": msg.get("content"),
            }
        paired = self._tool_maps()[1].get(entry_id)
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
        return {
            "index": index,
            "id": entry_id,
            "kind": kind_code(previews["type"][index], previews["role"][index]),
            "entry": entry,
            "label": self.session.labels.get(entry_id),
            "tool_results": results,
            "tool_call": tool_call,
            "usage": usage if isinstance(usage, dict) else None,
            "cost": self.costs()[index],
            "model": message.get("model") if message else None,
        }

    def previews(self) -> dict[str, list[Any]]:
        """Every row's preview but its first line, as columns: role, type, time (ISO),
        tokens, tool_name (what an exported page carries for its tooltips)."""

        def build() -> dict[str, list[Any]]:
            entries = self.session.entries
            return {
                "role": _strings(entries["role"]),
                "type": _strings(entries["type"]),
                "time": _iso_times(entries["timestamp"]),
                "tokens": entries["total_tokens"].fillna(0).to_numpy(dtype=np.int64).tolist(),
                "tool_name": _strings(entries["tool_name"]),
            }

        return self._once("previews", build)  # type: ignore[no-any-return]

    def preview(self, index: int) -> dict[str, Any]:
        """Role, time, first line and tokens, for the tooltip."""
        return {
            **{name: values[index] for name, values in self.previews().items()},
            "first_line": self.node_lines[index] if 0 <= index < self.n else "",
        }

    def costs(self) -> list[float | None]:
        """The cost of every row (None where unknown)."""
        return self._once(  # type: ignore[no-any-return]
            "costs",
            lambda: [
                None if v is None or v != v else float(v)
                for v in self.session.entries["cost"].astype(object).tolist()
            ],
        )

    @property
    def node_lines(self) -> list[str]:
        """The line that says what each entry is (see ``_labels``)."""
        return self._once("lines", lambda: entry_labels(self.session))  # type: ignore[no-any-return]

    def lines(self, indices: list[Any]) -> list[str]:
        """The node lines of several entries (the tree view's text column)."""
        known = self.node_lines
        return [known[i] if self.is_index(i) else "" for i in indices]

    def search_text(self, index: int, entry: dict[str, Any]) -> str:
        """What search looks in for one entry: its full text, label and tool name, lowered."""
        label = self.session.labels.get(self.ids[index])
        text = entry_text(entry, full=True)
        return " ".join(filter(None, (text, label, self.previews()["tool_name"][index]))).lower()

    def search_texts(self) -> list[str]:
        """Lower-cased full text of every entry (label and tool name included), read back
        from the file: what the search index is built from (see ``_search``)."""
        ids = list(self.ids)
        return [self.search_text(i, e) for i, e in enumerate(self.session.read_entries(ids))]

    def warm_search(self) -> None:
        """Build the search index in the background now (big sessions: see ``_search``)."""
        self._search.warm()

    def search(self, query: str) -> list[int]:
        """Rows whose text holds every word of the query (the agent's rule)."""
        return self._search.search(query)

    def context(self, index: int) -> dict[str, Any]:
        """What the model saw at an entry: short messages, model and thinking level."""
        ctx = self.session.context(self.ids[index])
        ids = [m.get("entry_id") if isinstance(m.get("entry_id"), str) else None for m in ctx]
        messages = [
            {
                "role": str(m.get("role")),
                "entry_id": entry_id,
                "index": self.row_of.get(entry_id, -1) if entry_id is not None else -1,
                "text": context_text(m),
                "tokens": estimate_tokens(m),
            }
            for m, entry_id in zip(ctx, ids, strict=True)
        ]
        return {
            "index": index,
            "model": ctx.model,
            "provider": ctx.provider,
            "thinking_level": ctx.thinking_level,
            "messages": messages,
            "total_tokens": sum(m["tokens"] for m in messages),
        }


def _shown(value: Any) -> str:
    """A value the browser sent, short enough to say back (a request may hold anything)."""
    text = (
        repr(value) if isinstance(value, int | float | str | bool | None) else type(value).__name__
    )
    return text if len(text) <= 40 else text[:39] + "…"


def _stamp(session: Session) -> tuple[int, int] | None:
    """The session file's size and modification time (None when it cannot be seen)."""
    try:
        stat = os.stat(session.file)
    except OSError:
        return None
    return stat.st_size, stat.st_mtime_ns
