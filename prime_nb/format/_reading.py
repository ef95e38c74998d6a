"""Stream a session file line by line, leniently, never holding the whole file.

Every line becomes either a parsed object or a problem; nothing here raises on
bad content. Byte offsets let callers re-read one entry later (full text on demand)
and resume after the last complete line (incremental refresh).
"""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, NamedTuple

import orjson
from orjson import JSONDecodeError, loads

from ..errors import SessionFormatError
from ._glued import describe_glued, glued_spans
from ._no_header import holds_no_utf8_lines

BOM = b"\xef\xbb\xbf"
#: large reads: few system calls, and lines of many MB need no special case
READ_BUFFER = 1024 * 1024


#: every kind of problem and its severity. An error loses something: a line or an entry
#: not read, or a tree that differs from what the file's links say. A warning does not:
#: the line was read, with an odd value kept as written (or, where a column cannot hold
#: it, missing). docs/format.md describes each kind
KINDS: dict[str, str] = {
    "invalid_json": "error",
    "glued_entries": "error",
    "not_an_object": "error",
    "missing_type": "error",
    "torn_line": "error",
    "extra_header": "error",
    "no_header": "error",
    "missing_id": "error",
    "duplicate_id": "error",
    "bad_parent_id": "error",
    "orphan": "error",
    "self_parent": "error",
    "cycle": "error",
    "blank_line": "warning",
    "bom": "warning",
    "invalid_utf8": "warning",
    "lone_surrogate": "warning",
    "deep_nesting": "warning",
    "bad_value": "warning",
    "bad_version": "warning",
    "dangling_reference": "warning",
}
SEVERITIES = ("error", "warning")


def severity_of(kind: str) -> str:
    """A kind's severity (:data:`KINDS`): ``"error"`` if it loses a line or an entry or
    changes the tree, else ``"warning"``."""
    return KINDS.get(kind, "warning")


class _ProblemFields(NamedTuple):
    line: int
    kind: str
    message: str
    entry_id: str | None
    severity: str


class Problem(_ProblemFields):
    """Something wrong with one line (or one entry) of a session file.

    ``severity``: ``"error"`` (a line or an entry lost, or the tree changed) or
    ``"warning"`` (an odd value, kept as written); by default the kind's
    (:func:`severity_of`), so that every reader of a kind rates it alike.
    """

    __slots__ = ()

    def __new__(
        cls,
        line: int,
        kind: str,
        message: str,
        entry_id: str | None = None,
        severity: str | None = None,
    ) -> Problem:
        return super().__new__(cls, line, kind, message, entry_id, severity or severity_of(kind))


class RawEntry(NamedTuple):
    """A parsed JSON object with where it came from."""

    line: int
    offset: int
    length: int
    entry: dict[str, Any]


@dataclass
class ScanState:
    """Where a scan stopped: resume here to read only what was appended since."""

    offset: int = 0
    line: int = 1
    #: the previous scan consumed a complete entry that lacked its final "\n"
    owes_newline: bool = False
    #: a torn (unterminated, unparseable) last line starts at ``offset``
    torn_tail: bool = False
    #: the last scan found the "\n" that the previous scan's last entry was owed
    newline_paid: bool = False


def not_regular(path: str | Path, mode: int) -> SessionFormatError:
    """The one error for a path that names a folder, FIFO, device or socket."""
    if stat.S_ISDIR(mode):
        return SessionFormatError(path, "is a folder; pass one .jsonl session file")
    return SessionFormatError(
        path,
        "is not a regular file (a FIFO, device or socket), so not a session file; "
        "pass the path of a .jsonl session file",
    )


def _not_opened(path: str | Path, exc: OSError) -> Exception:
    """What a failed open says: a socket (which no open reads) or a symbolic link that
    loops as :func:`not_regular` does, anything else as it was raised."""
    if exc.errno == errno.ELOOP:
        return SessionFormatError(
            path,
            "is a symbolic link that loops (it leads back to itself), so not a session file; "
            "pass the path of a .jsonl session file",
        )
    if exc.errno == errno.ENXIO:
        with contextlib.suppress(OSError):
            return not_regular(path, os.stat(path).st_mode)
    return exc


def first_not_header(path: str | Path, line: int, kind: Any) -> SessionFormatError:
    """The one error of the writers (appends, the upgrade) for a file whose first entry
    is not a header. The loader reads such a file (with a ``no_header`` problem), but
    nothing is written to it: the agent reads nothing of a file without a header (it
    starts the session afresh over it), so entries appended there would reach no one."""
    return SessionFormatError(
        path,
        f"line {line} is a {kind!r} entry, not the session header (type 'session' or "
        "'header'), so the agent reads nothing of this file and prime_nb writes nothing to "
        "it; load() reads it, and fork_to_file() writes a branch of it to a new session",
    )


#: what a path is, by its mode, for a message about a path that is no regular file
_PATH_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def path_kind(path: str | Path) -> str | None:
    """What ``path`` is when it is no regular file ("a folder", "a FIFO", "a character
    device"...), for a message that says so; None for a regular file, or a path that
    cannot be looked at (the caller's own read says why). A stat, never an open: a FIFO
    is not waited on."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _PATH_KINDS if test(mode)), "not a regular file")


def open_regular(path: str | Path, buffering: int = -1) -> IO[bytes]:
    """Open a session file for reading, refusing FIFOs and devices without blocking.

    A plain ``open`` of a FIFO waits forever for a writer, and ``/dev/zero`` never
    ends; O_NONBLOCK makes the open return at once, and fstat decides before any read.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise _not_opened(path, exc) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise not_regular(path, st.st_mode)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return open(fd, "rb", buffering=buffering)
    except BaseException:
        os.close(fd)
        raise


def looks_like_session(path: str | Path) -> bool:
    """Does this existing file look like a session (a .jsonl name, or a header first)?

    For commands that write files: what might be someone's only copy of a session is
    never overwritten. Something that cannot be read as a regular file counts too.
    """
    if str(path).endswith(".jsonl"):
        return True
    try:
        return header_object(path, lines=1) is not None
    except SessionFormatError:
        return True


def header_object(path: str | Path, lines: int = 8) -> dict[str, Any] | None:
    """The header, if the first parseable one of the file's first ``lines`` lines is one
    (blank and bad lines skipped, as the loader skips them); else None.

    Why a bound: a header is a short line, and finding a folder's families or telling a
    session from another file must not read whole files, so each line is read up to
    1 MB. Opened as the loader opens it: a FIFO or a device is refused, never waited on.
    """
    with open_regular(path) as fh:
        for line in range(1, lines + 1):
            raw = fh.readline(1024 * 1024)
            if not raw:
                return None
            obj, _ = parse_line(raw.rstrip(b"\n"), line)
            if obj is not None:
                return obj if obj.get("type") in ("session", "header") else None
    return None


def parse_line(raw: bytes, line: int) -> tuple[dict[str, Any] | None, Problem | None]:
    """Parse one line (without its newline); return the object or a problem.

    A problem may come with an object: the line was repaired (BOM, bad UTF-8).
    """
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    notice: Problem | None = None
    if raw.startswith(BOM):
        raw = raw[len(BOM) :]
        notice = Problem(line, "bom", "UTF-8 byte order mark skipped")
    if not raw.strip():
        return None, Problem(line, "blank_line", "blank line skipped")
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as uexc:
            notice = Problem(
                line, "invalid_utf8", f"invalid UTF-8 at byte {uexc.start}; replaced with U+FFFD"
            )
            text = raw.decode("utf-8", errors="replace")
        obj, repair = lenient_loads(text)
        if obj is _INVALID:
            glued = glued_spans(text)
            if glued is not None:
                return None, glued_problem(line, [value for _, _, value in glued])
            what = "invalid UTF-8 and JSON" if notice is not None else "invalid JSON"
            return None, Problem(line, "invalid_json", f"{what}: {_short(exc)}")
        if repair is not None:  # a line with bad UTF-8 reports that; else the repair
            notice = notice or Problem(line, repair[0], repair[1])
    if not isinstance(obj, dict):
        return None, Problem(line, "not_an_object", f"JSON {type(obj).__name__}, not an object")
    if not isinstance(obj.get("type"), str):
        return None, Problem(line, "missing_type", "object without a string 'type'")
    return obj, notice


def glued_problem(line: int, values: list[Any]) -> Problem:
    """The problem of a line that holds entries glued together (``{...}{...}``)."""
    return Problem(
        line,
        "glued_entries",
        f"{len(values)} JSON values on one line, with no newline between them (a writer "
        f"stopped between two writes): {describe_glued(values)}; the line is dropped, as "
        "the agent drops it. prime-nb repair FILE -o NEW writes a copy with them split",
    )


_INVALID: Any = object()
#: deepest nesting kept: values below it become null. orjson reads 1,024 levels (the
#: agent's JSON.parse more) but writes only 254, and the widget and the export write
#: entries inside a few levels of their own
KEEP_DEPTH = 200
_SURROGATE = re.compile("[\ud800-\udfff]")
_STRUCTURE = re.compile(r'[\\"\[\]{}]')


def lenient_loads(text: str) -> tuple[Any, tuple[str, str] | None]:
    """Parse a line orjson refused but the agent's ``JSON.parse`` reads; or ``_INVALID``.

    The slow path, for rare lines: lone UTF-16 surrogates (Node cuts a string inside an
    emoji and writes ``"\\ud83d"``) become U+FFFD; values nested deeper than
    :data:`KEEP_DEPTH` become ``null``. Returns the object and (kind, message) of the repair.
    """
    try:
        obj = json.loads(text, parse_constant=_no_constant, parse_int=_int)
    except RecursionError:
        trimmed, cut = _trim_deep(text, KEEP_DEPTH)
        try:
            obj = orjson.loads(trimmed)
        except orjson.JSONDecodeError:
            try:
                obj = json.loads(trimmed, parse_constant=_no_constant, parse_int=_int)
            except (ValueError, RecursionError):
                return _INVALID, None
        obj, _ = _replace_surrogates(obj)
        message = f"{cut} values nested deeper than {KEEP_DEPTH} levels replaced with null"
        return obj, ("deep_nesting", message)
    except ValueError:
        return _INVALID, None
    obj, fixed = _replace_surrogates(obj)
    if fixed:
        return obj, ("lone_surrogate", f"{fixed} lone UTF-16 surrogates replaced with U+FFFD")
    return obj, None


def _int(text: str) -> int | float:
    """Integers as orjson reads them: past 64 bits they are floats, and past a float's
    range infinite (as ``JSON.parse`` reads ``1e400``)."""
    try:
        value = int(text)
    except ValueError:  # more digits than Python converts (4,300): far past a double
        return -math.inf if text.startswith("-") else math.inf
    if -(2**63) <= value < 2**64:
        return value
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _replace_surrogates(root: Any) -> tuple[Any, int]:
    """``root`` with every lone surrogate in its strings (keys too) turned into U+FFFD."""
    count = 0

    def fix(value: str) -> str:
        nonlocal count
        new, n = _SURROGATE.subn("\ufffd", value)
        count += n
        return new

    if isinstance(root, str):
        return fix(root), count
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key in list(node):
                value = node[key]
                if isinstance(value, str):
                    value = fix(value)
                elif isinstance(value, dict | list):
                    stack.append(value)
                new_key = fix(key)
                if new_key != key:
                    del node[key]
                node[new_key] = value
        elif isinstance(node, list):
            for i, value in enumerate(node):
                if isinstance(value, str):
                    node[i] = fix(value)
                elif isinstance(value, dict | list):
                    stack.append(value)
    return root, count


def deep_enough(raw: bytes | bytearray) -> bool:
    """Whether a line has brackets enough to nest past :data:`KEEP_DEPTH` (a C-speed count,
    so that only such lines pay for :func:`trim_depth`'s walk)."""
    return raw.count(b"[") + raw.count(b"{") > KEEP_DEPTH


def trim_depth(root: Any) -> tuple[Any, int]:
    """``root`` with every list or dict that sits deeper than :data:`KEEP_DEPTH` levels
    replaced by None (in place); returns it and how many values were cut."""
    if not isinstance(root, dict | list):
        return root, 0
    cut = 0
    stack: list[tuple[Any, int]] = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        keys = node.keys() if isinstance(node, dict) else range(len(node))
        for key in list(keys):
            value = node[key]
            if isinstance(value, dict | list):
                if depth >= KEEP_DEPTH:
                    node[key] = None
                    cut += 1
                else:
                    stack.append((value, depth + 1))
    return root, cut


def _trim_deep(text: str, limit: int) -> tuple[str, int]:
    """``text`` with each array/object that opens deeper than ``limit`` replaced by null."""
    out: list[str] = []
    depth = 0
    start = 0  # where the text still to copy begins
    skip_from = -1  # where the value being cut began
    in_string = False
    escaped_at = -1
    cut = 0
    for match in _STRUCTURE.finditer(text):
        char, at = match.group(), match.start()
        if in_string:
            if char == "\\" and escaped_at != at:
                escaped_at = at + 1
            elif char == '"' and escaped_at != at:
                in_string = False
            continue
        if char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth == limit + 1:
                out.append(text[start:at])
                skip_from = at
        elif char in "]}":
            if depth == limit + 1 and skip_from >= 0:
                out.append("null")
                start = at + 1
                skip_from = -1
                cut += 1
            depth -= 1
    if skip_from >= 0:
        return text, 0  # unbalanced: leave it to the parser to refuse
    out.append(text[start:])
    return "".join(out), cut


def _short(exc: Exception) -> str:
    text = str(exc)
    return text if len(text) <= 200 else text[:200] + "…"


def _parse_span(raw: bytes, line: int, offset: int, length: int) -> Iterator[RawEntry | Problem]:
    obj, problem = parse_line(raw, line)
    if problem is not None:
        yield problem
    if obj is not None:
        yield RawEntry(line, offset, length, obj)


def scan(
    path: str | Path, state: ScanState | None = None, end: int | None = None
) -> Iterator[RawEntry | Problem]:
    """Yield every complete line after ``state`` as a RawEntry or a Problem.

    ``state`` is updated in place so that a later call reads only new bytes. A last
    line without "\\n" is consumed if it parses (the agent writes whole lines, so it
    is complete); otherwise it is reported as ``torn_line`` and left for next time.
    ``end``: stop at this byte offset, which must be the start of a line (a run of
    whole lines of the file).
    """
    with open_regular(path, READ_BUFFER) as fh:
        yield from scan_file(fh, state, end)


#: what a scan hands a clean entry line in sink mode: line, offset, length, the parsed
#: object, and the ``problems`` list it was given
Sink = Callable[[int, int, int, dict[str, Any], list[Problem]], None]


def scan_file(
    fh: IO[bytes],
    state: ScanState | None = None,
    end: int | None = None,
    sink: Sink | None = None,
    problems: list[Problem] | None = None,
) -> Iterator[RawEntry | Problem]:
    """:func:`scan` of a file already open (for reading, with a large buffer): a reader
    that holds the file open reads it through the same descriptor, with no second open.

    ``sink``: the loader's hot path. Each clean line holding an entry that is no header
    is handed to ``sink(line, offset, length, entry, problems)`` as soon as it is parsed
    instead of being yielded; only the rest (problems, headers, lines that needed the
    careful parse) is yielded, in file order between the sink's calls. The loader's hot
    loop then pays for no yield and no ``RawEntry`` per line, and an entry used at once
    is still in the CPU's caches. ``state`` moves past each line before the line is
    handed on, so a consumer may stop after any entry (the loader stops after the header)
    and scan on from ``state``; a line's problems come before its entry.
    """
    st = state if state is not None else ScanState()
    if st.offset == 0 and holds_no_utf8_lines(fh.read(4096)):
        return  # no line at all: the reader's no-header error names what it holds
    fh.seek(st.offset)
    st.newline_paid = False
    if st.owes_newline:
        first = fh.read(1)
        if not first:
            return
        st.owes_newline = False
        if first == b"\n":
            st.offset += 1
            st.newline_paid = True
        else:
            fh.seek(st.offset)
    st.torn_tail = False
    offset = st.offset
    line = st.line
    given = problems if problems is not None else []
    for raw in fh:
        length = len(raw)
        if raw[-1] != 10:  # no "\n": the last line, perhaps still being written
            yield from _tail(raw, st, offset, line)
            return
        at, number = offset, line
        offset += length
        line += 1
        st.offset = offset
        st.line = line
        try:  # fast path: a clean line holding an object with a string type
            obj = loads(raw)
        except JSONDecodeError:
            obj = None
        kind = obj.get("type") if obj.__class__ is dict else None
        if kind.__class__ is not str:
            yield from _parse_span(raw[:-1], number, at, length)
        elif sink is None or kind == "session" or kind == "header":
            yield RawEntry(number, at, length, obj)
        else:
            sink(number, at, length, obj, given)
        if end is not None and offset >= end:
            return


def _tail(raw: bytes, st: ScanState, offset: int, line: int) -> Iterator[RawEntry | Problem]:
    """The last line, without its newline: complete if it parses, else torn."""
    obj, problem = parse_line(raw, line)
    if obj is None and not raw.rstrip(b"\r").strip():
        return  # trailing spaces with no newline: wait for more
    if obj is not None:
        # past the line before handing it on, as for every other line: a consumer that
        # stops after it (the loader stops after the header) scans on from the next one
        st.line = line + 1
        st.offset = offset + len(raw)
        st.owes_newline = True
        if problem is not None:
            yield problem
        yield RawEntry(line, offset, len(raw), obj)
    else:
        st.torn_tail = True
        yield Problem(
            line,
            "torn_line",
            f"last line is incomplete ({len(raw)} bytes, no newline); "
            "ignored until its writer finishes it",
        )


def iter_entries(path: str | Path, problems: list[Problem] | None = None) -> Iterator[RawEntry]:
    """Stream the parsed objects of a file with line number and byte offset.

    Problems (bad lines) are appended to ``problems`` when given, else dropped.
    """
    for item in scan(path):
        if isinstance(item, RawEntry):
            yield item
        elif problems is not None:
            problems.append(item)
