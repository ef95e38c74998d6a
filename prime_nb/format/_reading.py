"""Stream a session file line by line, leniently, never holding the whole file.

Every line becomes either a parsed object or a problem; nothing here raises on
bad content. Byte offsets let callers re-read one entry later (full text on demand)
and resume after the last complete line (incremental refresh).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, NamedTuple

import orjson
from orjson import JSONDecodeError, loads

from ..errors import SessionFormatError

BOM = b"\xef\xbb\xbf"
#: large reads: few system calls, and lines of many MB need no special case
READ_BUFFER = 1024 * 1024


class Problem(NamedTuple):
    """Something wrong with one line (or one entry) of a session file."""

    line: int
    kind: str
    message: str
    entry_id: str | None = None


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


def open_regular(path: str | Path, buffering: int = -1) -> IO[bytes]:
    """Open a session file for reading, refusing FIFOs and devices without blocking.

    A plain ``open`` of a FIFO waits forever for a writer, and ``/dev/zero`` never
    ends; O_NONBLOCK makes the open return at once, and fstat decides before any read.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
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
        with open_regular(path) as fh:
            first = fh.readline(1024 * 1024).rstrip(b"\n")
    except SessionFormatError:
        return True
    obj, _ = parse_line(first, 1)
    return obj is not None and obj.get("type") in ("session", "header")


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
            raw.decode("utf-8")
        except UnicodeDecodeError as uexc:
            notice = Problem(
                line, "invalid_utf8", f"invalid UTF-8 at byte {uexc.start}; replaced with U+FFFD"
            )
            try:
                obj = orjson.loads(raw.decode("utf-8", errors="replace"))
            except orjson.JSONDecodeError:
                return None, Problem(line, "invalid_json", f"invalid UTF-8 and JSON: {_short(exc)}")
        else:
            return None, Problem(line, "invalid_json", f"invalid JSON: {_short(exc)}")
    if not isinstance(obj, dict):
        return None, Problem(line, "not_an_object", f"JSON {type(obj).__name__}, not an object")
    if not isinstance(obj.get("type"), str):
        return None, Problem(line, "missing_type", "object without a string 'type'")
    return obj, notice


def _short(exc: Exception) -> str:
    text = str(exc)
    return text if len(text) <= 200 else text[:200] + "…"


def _parse_span(raw: bytes, line: int, offset: int, length: int) -> Iterator[RawEntry | Problem]:
    obj, problem = parse_line(raw, line)
    if problem is not None:
        yield problem
    if obj is not None:
        yield RawEntry(line, offset, length, obj)


def scan(path: str | Path, state: ScanState | None = None) -> Iterator[RawEntry | Problem]:
    """Yield every complete line after ``state`` as a RawEntry or a Problem.

    ``state`` is updated in place so that a later call reads only new bytes. A last
    line without "\\n" is consumed if it parses (the agent writes whole lines, so it
    is complete); otherwise it is reported as ``torn_line`` and left for next time.
    """
    st = state if state is not None else ScanState()
    with open_regular(path, READ_BUFFER) as fh:
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
        for raw in fh:
            length = len(raw)
            if raw[-1] != 10:  # no "\n": the last line, perhaps still being written
                yield from _tail(raw, st, offset, line)
                return
            try:  # fast path: a clean line holding an object with a string type
                obj = loads(raw)
            except JSONDecodeError:
                obj = None
            if obj.__class__ is dict and obj.get("type").__class__ is str:
                yield RawEntry(line, offset, length, obj)
            else:
                yield from _parse_span(raw[:-1], line, offset, length)
            offset += length
            line += 1
            st.offset = offset
            st.line = line


def _tail(raw: bytes, st: ScanState, offset: int, line: int) -> Iterator[RawEntry | Problem]:
    """The last line, without its newline: complete if it parses, else torn."""
    obj, problem = parse_line(raw, line)
    if obj is None and not raw.rstrip(b"\r").strip():
        return  # trailing spaces with no newline: wait for more
    if obj is not None:
        if problem is not None:
            yield problem
        yield RawEntry(line, offset, len(raw), obj)
        st.line = line + 1
        st.offset = offset + len(raw)
        st.owes_newline = True
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
