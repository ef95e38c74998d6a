"""Search the texts of many sessions: where did the agent run ``rm -rf``, which sessions
hit this error?

One row per (entry, field) whose text matches the query, in the order the files are
listed, then by line, then by field. The texts are those of each entry as
``prime_nb.load(path).entry(id)`` gives it (canonical: migrated, ids as load() names
them), cut into fields (:func:`entry_fields`) so that a hit says where it was found.

Reading is the corpus's: one file per task in the process pool of ``_runner`` (a small
corpus in this process). A file is first read as raw bytes; for a plain, case-sensitive
query that no JSON escape can hide (:class:`Query.raw_filter`) a file, and then a line,
whose bytes lack the needle is not parsed at all. The rest goes through
``read_columns`` (ids, lines, the tree) and ``Session.read_entries`` (the whole entries
of the candidate lines). ``cache=`` keeps the texts in an SQLite full-text index instead
(``_search_index``).
"""

from __future__ import annotations

import math
import os
import re
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from ..session import Session, read_columns
from ._listing import corpus_root, listed
from ._runner import run

#: the fields an entry's text is cut into, in the order a hit's rows come
FIELDS = (
    "text",
    "thinking",
    "tool_args",
    "tool_output",
    "summary",
    "bash_command",
    "bash_output",
    "error",
    "label",
    "custom",
)
#: the result's columns and their dtypes (the same for an empty result)
COLUMNS = {
    "file": "object",
    "session_id": "object",
    "entry_id": "object",
    "line": "int64",
    "role": "object",
    "type": "object",
    "field": "object",
    "on_active_path": "bool",
    "timestamp": "datetime64[us, UTC]",
    "snippet": "object",
}
#: characters of context either side of a hit in its snippet
SNIPPET_BEFORE = 40
SNIPPET_AFTER = 80
#: what JSON may write as an escape (besides ``\\uXXXX``, which can spell any character)
#: and U+FFFD, which the reader puts for bytes that are not UTF-8
_ESCAPABLE = re.compile(r'["\\\x00-\x1f\ufffd]')
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


# -- fields --------------------------------------------------------------------------------


def _strings(value: Any, out: list[str]) -> None:
    """Every string inside a JSON value (keys left out), in order."""
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for item in value.values():
            _strings(item, out)
    elif isinstance(value, list):
        for item in value:
            _strings(item, out)


def _block_texts(content: Any) -> str:
    """The ``text`` blocks of a content (or the content itself, a string), one a line."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = [
        block["text"]
        for block in content
        if isinstance(block, dict)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
    ]
    return "\n".join(parts)


def entry_fields(entry: dict[str, Any]) -> list[tuple[str, str]]:
    """The searchable texts of one canonical entry, as ``(field, text)`` pairs (empty
    texts left out), in :data:`FIELDS` order.

    - ``text``: the ``text`` blocks of a user, assistant or custom message's content
      (or the content string), and a ``custom_message`` entry's;
    - ``thinking``: an assistant message's ``thinking`` blocks;
    - ``tool_args``: an assistant message's tool calls, each its name and then every
      string in its arguments (keys left out), one a line;
    - ``tool_output``: a ``toolResult`` message's text blocks;
    - ``summary``: a compaction's or branch summary's ``summary``, an agent status's;
    - ``bash_command`` / ``bash_output``: a ``bashExecution`` message's command, output;
    - ``error``: an assistant message's ``errorMessage``;
    - ``label``: a label entry's label, a session_info entry's name;
    - ``custom``: a ``custom`` entry's ``customType`` and every string in its ``data``.

    Parts of several blocks are joined by a newline. Images, usage, ids, models and the
    other bookkeeping are not searched.
    """
    kind = entry.get("type")
    found: dict[str, str] = {}
    if kind == "message":
        message = entry.get("message")
        if isinstance(message, dict):
            _message_fields(message, found)
    elif kind == "custom_message":
        found["text"] = _block_texts(entry.get("content"))
    elif kind in ("compaction", "branch_summary"):
        summary = entry.get("summary")
        found["summary"] = summary if isinstance(summary, str) else ""
    elif kind == "agent_status":
        status = entry.get("status")
        summary = status.get("summary") if isinstance(status, dict) else None
        found["summary"] = summary if isinstance(summary, str) else ""
    elif kind in ("label", "session_info"):
        value = entry.get("label" if kind == "label" else "name")
        found["label"] = value if isinstance(value, str) else ""
    elif kind == "custom":
        parts: list[str] = []
        _strings([entry.get("customType"), entry.get("data")], parts)
        found["custom"] = "\n".join(parts)
    return [(name, found[name]) for name in FIELDS if found.get(name)]


def _message_fields(message: dict[str, Any], found: dict[str, str]) -> None:
    role = message.get("role")
    content = message.get("content")
    if role == "bashExecution":
        for name, key in (("bash_command", "command"), ("bash_output", "output")):
            value = message.get(key)
            found[name] = value if isinstance(value, str) else ""
        return
    if role == "toolResult":
        found["tool_output"] = _block_texts(content)
        return
    found["text"] = _block_texts(content)
    if role == "assistant" and isinstance(content, list):
        thinking: list[str] = []
        calls: list[str] = []
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "thinking" and isinstance(block.get("thinking"), str):
                thinking.append(block["thinking"])
            elif block.get("type") == "toolCall":
                _strings([block.get("name"), block.get("arguments")], calls)
        found["thinking"] = "\n".join(thinking)
        found["tool_args"] = "\n".join(calls)
    error = message.get("errorMessage")
    if role == "assistant" and isinstance(error, str):
        found["error"] = error


# -- the query -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Query:
    """What to find and where: picklable, so the workers get it with their files."""

    text: str
    regex: bool = False
    case: bool = False
    roles: frozenset[str] | None = None
    types: frozenset[str] | None = None
    fields: frozenset[str] | None = None
    active_only: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.text, str) or not self.text:
            raise ValueError(f"query={self.text!r}: give the text (or regex) to search for")
        if self.fields is not None and (unknown := self.fields - set(FIELDS)):
            raise ValueError(f"fields: unknown {sorted(unknown)}; choose among {', '.join(FIELDS)}")
        try:
            self.pattern  # noqa: B018 - a bad regex says so before any file is read
        except re.error as exc:
            raise ValueError(
                f"query={self.text!r} is no valid regex ({exc}); "
                "pass regex=False to search for it as plain text"
            ) from None

    @property
    def pattern(self) -> re.Pattern[str]:
        source = self.text if self.regex else re.escape(self.text)
        return re.compile(source, 0 if self.case else re.IGNORECASE)

    @property
    def raw_filter(self) -> bytes | None:
        """The needle as raw bytes when a line without them cannot hold a hit (a plain,
        case-sensitive query with no character JSON escapes; lines with ``\\u`` or, for
        a needle with ``/``, ``\\/`` escapes are read anyway), else None."""
        if self.regex or not self.case or _ESCAPABLE.search(self.text):
            return None
        return self.text.encode("utf-8", "surrogatepass")

    def first_match(self, text: str) -> tuple[int, int] | None:
        """Where the query first matches ``text``: (start, end), or None."""
        if self.case and not self.regex:
            at = text.find(self.text)
            return None if at < 0 else (at, at + len(self.text))
        found = self.pattern.search(text)
        return None if found is None else found.span()

    def wants(self, role: str | None, kind: str | None, field: str) -> bool:
        return (
            (self.roles is None or role in self.roles)
            and (self.types is None or kind in self.types)
            and (self.fields is None or field in self.fields)
        )


def _raw_may_hold(raw: bytes, needle: bytes, slash: bool) -> bool:
    """Can a line (or file) whose bytes are ``raw`` hold the needle in a parsed string?"""
    return needle in raw or b"\\u" in raw or (slash and b"\\/" in raw)


def snippet(text: str, start: int, end: int) -> str:
    """The hit with some context either side, on one line, control characters shown as
    spaces (a session's text must not steer the terminal or notebook that shows it)."""
    left = max(0, start - SNIPPET_BEFORE)
    right = min(len(text), end + SNIPPET_AFTER)
    shown = text[left:right]
    shown = _CONTROLS.sub(" ", shown.encode("utf-8", "replace").decode("utf-8"))
    return ("..." if left else "") + shown + ("..." if right < len(text) else "")


# -- one file ------------------------------------------------------------------------------


class Hit(NamedTuple):
    file: str
    session_id: str | None
    entry_id: str
    line: int
    role: str | None
    type: str
    field: str
    on_active_path: bool
    time_ms: float
    snippet: str


class FileHits(NamedTuple):
    hits: list[Hit]
    error: str | None = None


class Row(NamedTuple):
    """One (entry, field) text of a file, as the index stores it."""

    entry_id: str
    line: int
    role: str | None
    type: str
    field: str
    on_active_path: bool
    time_ms: float
    text: str


class FileTexts(NamedTuple):
    """Every searchable text of one file, or why it could not be read."""

    session_id: str | None
    rows: list[Row]
    error: str | None = None


def file_rows(path: str, candidate: Any = None) -> FileTexts:
    """Every (entry, field) text of the file at ``path`` (only of the rows for which
    ``candidate(raw_line_bytes)`` holds, when given, and the file's bytes are at hand)."""
    read = read_columns(path, columns="summary")
    session = Session.from_read(read)
    cols = read.columns
    rows = range(len(cols.ids))
    if candidate is not None:
        with open(path, "rb") as fh:
            data = fh.read()
        offsets, lengths = cols.offsets, cols.lengths
        rows = [  # type: ignore[assignment]
            r
            for r in rows
            if offsets[r] + lengths[r] > len(data)
            or candidate(data[offsets[r] : offsets[r] + lengths[r]])
        ]
    if not rows:
        return FileTexts(session.id, [])
    active = set(session.path()) if len(cols.ids) else set()
    out: list[Row] = []
    ids = [cols.ids[r] for r in rows]
    for r, entry_id, entry in zip(rows, ids, session.read_entries(ids), strict=True):
        message = entry.get("message")
        role = (
            message.get("role")
            if entry.get("type") == "message" and isinstance(message, dict)
            else None
        )
        role = role if isinstance(role, str) else None
        kind = str(entry.get("type"))
        for name, text in entry_fields(entry):
            out.append(
                Row(
                    entry_id,
                    int(cols.lines[r]),
                    role,
                    kind,
                    name,
                    entry_id in active,
                    float(cols.time_ms[r]),
                    text,
                )
            )
    return FileTexts(session.id, out)


def search_file(path: str, query: Query, limit: int | None = None) -> FileHits:
    """The hits of one file (at most ``limit``); an error says why it could not be read."""
    try:
        needle = query.raw_filter
        candidate = None
        if needle is not None:
            with open(path, "rb") as fh:
                data = fh.read()
            slash = "/" in query.text
            if not _raw_may_hold(data, needle, slash):
                return FileHits([])  # no parse: the needle cannot be in this file
            candidate = partial(_raw_may_hold, needle=needle, slash=slash)
        texts = file_rows(path, candidate)
    except Exception as exc:  # a file that is no session, unreadable...: no hits
        return FileHits([], f"{type(exc).__name__}: {exc}")
    return FileHits(hits_of(path, texts, query, limit))


def hits_of(path: str, texts: FileTexts, query: Query, limit: int | None) -> list[Hit]:
    hits: list[Hit] = []
    for row in texts.rows:
        if limit is not None and len(hits) >= limit:
            break
        if query.active_only and not row.on_active_path:
            continue
        if not query.wants(row.role, row.type, row.field):
            continue
        span = query.first_match(row.text)
        if span is not None:
            hits.append(
                Hit(
                    path,
                    texts.session_id,
                    row.entry_id,
                    row.line,
                    row.role,
                    row.type,
                    row.field,
                    row.on_active_path,
                    row.time_ms,
                    snippet(row.text, *span),
                )
            )
    return hits


# -- the corpus ----------------------------------------------------------------------------


def _names(value: str | Iterable[str] | None, what: str) -> frozenset[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return frozenset([value])
    try:
        return frozenset(str(item) for item in value)
    except TypeError:
        raise TypeError(f"{what}={value!r}: pass a name or a list of names") from None


def search(
    folder_or_files: str | Path | Iterable[str | Path] | None,
    query: str,
    *,
    regex: bool = False,
    case: bool = False,
    roles: str | Iterable[str] | None = None,
    types: str | Iterable[str] | None = None,
    fields: str | Iterable[str] | None = None,
    active_only: bool = False,
    limit: int | None = None,
    cache: bool | str | os.PathLike[str] = False,
    pattern: str = "**/*.jsonl",
    workers: int | None = None,
    progress: bool | None = False,
) -> pd.DataFrame:
    """Find ``query`` in the texts of every session below a folder (``None``: the agent's
    sessions folder), or of a list of files and folders, as the corpus tables list them.

    One row per (entry, field) whose text matches (its first match in the snippet), in
    the order the files are listed, then by line, then by field. Columns: ``file``,
    ``session_id``, ``entry_id`` (as ``prime_nb.load()`` names it: v1 files get derived
    ids, a repeated id is renamed), ``line`` (the file's line, header = 1), ``role``
    (a message's role, else None), ``type`` (the entry type, canonical), ``field`` (see
    :func:`~prime_nb.corpus._search.entry_fields` for which part of an entry each of
    ``text, thinking, tool_args, tool_output, summary, bash_command, bash_output, error,
    label, custom`` covers), ``on_active_path``, ``timestamp`` (UTC) and ``snippet``
    (the hit with context, control characters as spaces).

    ``query`` is plain text, or a Python regex with ``regex=True``; ``case=False``
    ignores case (as ``re.IGNORECASE``). ``roles``, ``types``, ``fields``: keep only
    hits of those (a name or a list); ``active_only``: only entries on the active path;
    ``limit``: the first that many rows. ``cache=True`` (or a folder) keeps the texts in
    a full-text index in the user's cache folder, one per corpus folder as the corpus
    cache: a later search reads only the files that changed (``_search_index``). The
    result is the same with or without it.

    A file that cannot be read as a session gives no hits, and one warning names the
    files and why (the corpus tables give such a file an error row; a hit table has no
    row to give it).
    """
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 0):
        raise ValueError(f"limit={limit!r}: pass a whole number of rows, 0 or more, or None")
    spec = Query(
        query,
        regex=bool(regex),
        case=bool(case),
        roles=_names(roles, "roles"),
        types=_names(types, "types"),
        fields=_names(fields, "fields"),
        active_only=bool(active_only),
    )
    paths, folders = listed(folder_or_files, pattern, None)
    if cache is not False and cache is not None:
        from ._search_index import indexed_search

        results = indexed_search(paths, corpus_root(folders), cache, spec, limit, workers, progress)
    else:
        results = run(
            partial(search_file, query=spec, limit=limit),
            paths,
            workers,
            "search",
            progress,
            lambda path, exc: FileHits([], f"{type(exc).__name__}: {exc}"),
        )
    return hits_frame(paths, results, limit)


def hits_frame(
    paths: Sequence[str], results: Sequence[FileHits], limit: int | None
) -> pd.DataFrame:
    """The hit table of per-file results (a warning for the files that failed)."""
    failed = [(path, r.error) for path, r in zip(paths, results, strict=True) if r.error]
    if failed:
        shown = "; ".join(f"{path}: {error}" for path, error in failed[:3])
        more = f" (and {len(failed) - 3} more)" if len(failed) > 3 else ""
        warnings.warn(
            f"search: {len(failed)} file(s) could not be read as sessions and gave no hits: "
            f"{shown}{more}; check them with `prime-nb validate`",
            stacklevel=3,
        )
    hits = [hit for r in results for hit in r.hits]
    if limit is not None:
        hits = hits[:limit]
    return _frame(hits)


def _frame(hits: list[Hit]) -> pd.DataFrame:
    columns: dict[str, Any] = {
        name: [getattr(hit, name) for hit in hits]
        for name in ("file", "session_id", "entry_id", "role", "type", "field", "snippet")
    }
    columns["line"] = np.array([hit.line for hit in hits], dtype=np.int64)
    columns["on_active_path"] = np.array([hit.on_active_path for hit in hits], dtype=bool)
    ms = np.array([hit.time_ms for hit in hits], dtype=np.float64)
    columns["timestamp"] = pd.to_datetime(
        np.where(np.isfinite(ms), ms, math.nan), unit="ms", utc=True
    )
    frame = pd.DataFrame(columns, columns=list(COLUMNS))
    for name in ("file", "session_id", "entry_id", "role", "type", "field", "snippet"):
        frame[name] = frame[name].astype(object)
    return frame
