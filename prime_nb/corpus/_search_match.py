"""What a search matches in one file: the fields an entry's text is cut into, the
query, and the hits of one file (read raw first, then parsed where the needle may be).

Apart from ``_search`` so that the index (``_search_index``) and the search both build
on it without importing each other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from itertools import groupby
from re import _constants, _parser  # type: ignore[attr-defined,unused-ignore]
from typing import Any, NamedTuple

import numpy as np

from ..format import deep_enough, open_regular, parse_line, to_current, trim_depth
from ..session import Session, content_text, read_columns

#: the fields an entry's text is cut into, in the order a hit's rows come
FIELDS: tuple[str, ...] = (
    "text",
    "thinking",
    "tool_args",
    "tool_output",
    "summary",
    "bash_command",
)
FIELDS += ("bash_output", "error", "label", "custom")
#: characters of context either side of a hit in its snippet
SNIPPET_BEFORE = 40
SNIPPET_AFTER = 80
#: what JSON may write as an escape (besides ``\\uXXXX``, which can spell any character)
#: and U+FFFD, which the reader puts for bytes that are not UTF-8
_ESCAPABLE = re.compile(r'["\\\x00-\x1f\ufffd]')
_ESCAPABLE_FOLDED = re.compile(r'[^\x20-\x7e]|["\\]')
#: what Arrow's kernels cannot take or fold as Python does (surrogates, NUL; an i folded)
NOT_KERNEL = re.compile(r"[\x00\ud800-\udfff]")
_NOT_KERNEL_FOLDED = re.compile(r"[^\x01-\x7f]")
_LITERAL = _constants.LITERAL
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
        found["text"] = content_text(entry.get("content"), images=False)
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
        found["tool_output"] = content_text(content, images=False)
        return
    found["text"] = content_text(content, images=False)
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

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        source = self.text if self.regex else re.escape(self.text)
        return re.compile(source, 0 if self.case else re.IGNORECASE)

    @cached_property
    def literal(self) -> tuple[str, bool]:
        """Text every match holds, and whether it matches with case folded: the query
        itself, or a regex's longest run of literal characters at its top level (a
        branch, group or repeat may be left out, so only those count; "" when none)."""
        if not self.regex:
            return self.text, not self.case
        parsed = _parser.parse(self.text, 0 if self.case else re.IGNORECASE)
        runs = groupby(parsed, lambda item: item[0] is _LITERAL)
        found = ["".join(chr(arg) for _, arg in run) for literal, run in runs if literal]
        return max(found, key=len, default=""), bool(parsed.state.flags & re.IGNORECASE)

    def longest(self, unsafe: re.Pattern[str]) -> str:
        """The longest part of :attr:`literal` free of ``unsafe`` characters."""
        return max(unsafe.split(self.literal[0]), key=len)

    @property
    def raw_filter(self) -> RawFilter | None:
        """What a line's raw bytes must hold to hold a hit, or None when any line may.

        The longest part of :attr:`literal` with no character JSON escapes (and, with
        case folded, ASCII only): its UTF-8 bytes, or its bytes with ASCII case folded.
        A line with a ``\\u`` escape (or ``\\/``, for a needle with ``/``) may spell the
        needle in escapes, so it is always read; with case folded so is a line with any
        non-ASCII byte when the needle has an i, k or s (Python matches them to dotted
        and dotless I, the Kelvin sign, the long s).
        """
        fold = self.literal[1]
        needle = self.longest(_ESCAPABLE_FOLDED if fold else _ESCAPABLE)
        if not needle:
            return None
        if not fold:
            return RawFilter(needle.encode("utf-8", "surrogatepass"), False, "/" in needle)
        folded = needle.lower()
        return RawFilter(folded.encode(), True, "/" in needle, any(c in folded for c in "iks"))

    @property
    def kernel_exact(self) -> bool:
        """Does Arrow's RE2 find exactly Python's first match (:func:`kernel_pattern`) in
        valid UTF-8 texts? For plain text (ASCII when folded) with no NUL or surrogate."""
        return (
            not self.regex
            and not NOT_KERNEL.search(self.text)
            and (self.case or self.text.isascii())
        )

    @property
    def kernel_literal(self) -> str:
        """RE2's pattern for the longest part of :attr:`literal` it finds as Python would
        ("" when none): then it proposes the texts Python matches."""
        fold = self.literal[1]
        return kernel_pattern(self.longest(_NOT_KERNEL_FOLDED if fold else NOT_KERNEL), fold)

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


def kernel_pattern(text: str, fold: bool) -> str:
    """``text`` as an RE2 literal. RE2 folds ASCII letters as Python does (k with the
    Kelvin sign, s with the long s) except i, which Python also matches to dotted and
    dotless I: a class of the four holds it."""
    escaped = (c if c.isascii() and c.isalnum() else f"\\x{{{ord(c):x}}}" for c in text)
    return "".join("[iI\\x{130}\\x{131}]" if fold and c in "iI" else c for c in escaped)


class RawFilter(NamedTuple):
    """A needle sought in raw bytes before anything is parsed (:attr:`Query.raw_filter`)."""

    needle: bytes
    fold: bool
    slash: bool
    wide: bool = False

    def marks(self, data: bytes) -> Any:
        """Where in a file's ``data`` the needle (not where it ends a key, a string with a
        ``:`` next), or an escape that may spell it (with :attr:`wide`, a non-ASCII byte),
        is: one pass per needle through the whole file, not line by line, and at most a
        mark per line and needle (a text of non-ASCII bytes is no array of each). No
        mark: the file cannot hold the needle."""
        hay = data.lower() if self.fold else data
        seek = [(re.escape(self.needle) + b'(?!":)', hay), (rb"\\u", data), (rb"\\/", data)]
        seek = seek[: 2 + self.slash] + [(rb"[\x80-\xff]", data)] * self.wide
        found = [at for pattern, seen in seek for at in _per_line(pattern, seen)]
        return np.array(found, np.int64)


def _per_line(pattern: bytes, data: bytes) -> list[int]:
    """Where ``pattern`` first matches in each line of ``data`` that holds it: a mark
    says which line to parse, so after one the search goes on from the next line (a
    100 MB text of the needle costs one match, not a hundred million)."""
    seek = re.compile(pattern)
    found: list[int] = []
    at = 0
    while (match := seek.search(data, at)) is not None:
        found.append(match.start())
        at = data.find(b"\n", match.start()) + 1
        if at == 0:
            break
    return found


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


def file_rows(path: str, marks: Any = None, data: bytes | None = None) -> FileTexts:
    """Every (entry, field) text of the file at ``path``; with ``marks``, only of the rows
    that hold one of these byte offsets (:meth:`RawFilter.marks`). Lines are taken from ``data``
    (the file's bytes, when the caller read them already) and parsed as
    ``Session.read_entries`` parses them (why: no second read of the file, no identity
    check per file); a line past the end of those bytes (appended since) is read by it."""
    if data is None:
        with open_regular(path) as fh:  # a FIFO or device: refused, never read
            data = fh.read()
    read = read_columns(path, columns="summary")
    session = Session.from_read(read)
    cols = read.columns
    offsets, lengths, size = cols.offsets, cols.lengths, len(data)
    late = [r for r in range(len(cols.ids)) if offsets[r] + lengths[r] > size]
    rows: Any = range(len(cols.ids))
    if marks is not None:
        found = np.searchsorted(np.asarray(offsets, np.int64), marks, "right") - 1
        rows = sorted(set(np.unique(found[found >= 0]).tolist()) | set(late))
    if not rows:
        return FileTexts(session.id, [])
    active = set(session.path())
    entries = dict(zip(late, session.read_entries([cols.ids[r] for r in late]), strict=True))
    dialect, version = session.dialect, session.version
    out: list[Row] = []
    for r in rows:
        entry = entries.get(r)
        if entry is None:
            raw = data[offsets[r] : offsets[r] + lengths[r]].rstrip(b"\n")
            obj, _ = parse_line(raw, cols.lines[r])
            if obj is not None and deep_enough(raw):
                obj, _ = trim_depth(obj)  # nesting orjson reads but cannot write
            entry = to_current(obj or {"type": cols.types[r]}, dialect, version)
        kind, message, entry_id = str(entry.get("type")), entry.get("message"), cols.ids[r]
        role = message.get("role") if kind == "message" and isinstance(message, dict) else None
        role = role if isinstance(role, str) else None
        line, ms, on = int(cols.lines[r]), float(cols.time_ms[r]), entry_id in active
        out.extend(
            Row(entry_id, line, role, kind, name, on, ms, text)
            for name, text in entry_fields(entry)
        )
    return FileTexts(session.id, out)


def search_file(path: str, query: Query, limit: int | None = None) -> FileHits:
    """The hits of one file (at most ``limit``); an error says why it could not be read."""
    try:
        raw, data, marks = query.raw_filter, None, None
        if raw is not None:
            with open_regular(path) as fh:  # a FIFO or device: refused, never read
                data = fh.read()
            marks = raw.marks(data)
            if not len(marks):
                return FileHits([])  # no parse: the needle cannot be in this file
        texts = file_rows(path, marks, data)
    except Exception as exc:  # a file that is no session, unreadable...: no hits
        return FileHits([], f"{type(exc).__name__}: {exc}")
    hits: list[Hit] = []
    for row in texts.rows:
        if limit is not None and len(hits) >= limit:
            break
        if query.active_only and not row.on_active_path:
            continue
        if query.wants(row.role, row.type, row.field) and (span := query.first_match(row.text)):
            hits.append(Hit(path, texts.session_id, *row[:-1], snippet(row.text, *span)))
    return FileHits(hits)
