"""``read_columns``: the one way a session file is read into columns, and resumed.

Why one way: ``load()``, ``refresh()``, the corpus's summary pass, its cache and its
Dask tables all read the same files by the same rules (header first, migration of old
versions, duplicate ids renamed, torn last lines, a replaced file told from a grown
one). Each asks :func:`read_columns` for a :class:`ColumnsRead` and, to catch up with
appended lines, hands that read back as ``state=``.

Reading goes through one descriptor: identity, entries and the marks that later tell a
replaced file from a grown one all come from the same file, even if another is renamed
over the path.
"""

from __future__ import annotations

import gc
import math
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import fields, replace
from pathlib import Path
from typing import IO, Any

import orjson

from .._names import shown_text
from .._paths import is_url
from ..format import (
    CURRENT_VERSION,
    READ_BUFFER,
    Migrator,
    Problem,
    RawEntry,
    ScanState,
    Sink,
    by_descriptor,
    ends,
    no_header,
    open_regular,
    scan,
    scan_file,
    trim_depth,
    written_while_read,
)
from ._columns import EntryColumns, OddUsage
from ._references import reference_problems
from ._store import UsageColumn
from ._tree import Tree

#: bytes compared at each end of what was read, to tell a replaced file from a grown one
MARK = 16 * 1024
#: the column sets a read can fill
COLUMN_SETS = ("full", "summary")


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cycle collector while building many small objects that all stay alive
    (nothing built here forms reference cycles: collections would only cost)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class ColumnsRead:
    """What reading a session file gave, and where it stopped.

    ``columns`` (per-entry columns, file order), ``tree`` (parents, children, depths,
    the tree's own problems), ``header`` (line 1 as written), ``problems`` (of the
    lines: bad JSON, torn lines, odd values), ``end`` (the byte offset read up to).
    ``added``: rows this read added; ``fresh``: it read from the start (no state given,
    or the file was replaced); ``changed``: it found anything at all; ``rows_kept``: the
    rows before ``added`` are as they were (a table built on them may be extended).

    A read is its own state: pass it as ``read_columns(..., state=read)`` to read only
    what was appended. It pickles, and a summary read also turns into bytes and back
    (:meth:`to_bytes`, :meth:`from_bytes`), for a cache that must not run pickle.
    """

    def __init__(self, file: Path, kind: str, arguments: Iterable[str] = ()) -> None:
        self.file = file
        self.kind = kind
        self.columns = EntryColumns(previews=kind != "summary", arguments=frozenset(arguments))
        self.tree = Tree()
        self.header: dict[str, Any] | None = None
        self.problems: list[Problem] = []
        #: how the entries are migrated to version 3 (set by the header)
        self.migrator: Migrator | None = None
        #: a file without a header: the version its entries are read as (else None)
        self.read_as: int | None = None
        #: where the scan stopped
        self.scan = ScanState()
        #: (device, inode) of the file read
        self.identity: tuple[int, int] = (0, 0)
        #: the first and last bytes read: see :func:`replaced`
        self.marks = b""
        #: (size, mtime in ns) of the file when last read: see :func:`rewritten`
        self.stamp: tuple[int, int] | None = None
        self.added = 0
        self.fresh = True
        self.changed = True
        self.rows_kept = False

    @property
    def end(self) -> int:
        """The byte offset read up to: a later read resumes there."""
        return self.scan.offset

    def all_problems(self) -> list[Problem]:
        """Problems of the lines, of the tree (orphans included) and of the links besides
        the parent that name no entry (``_references``: they change as the file grows)."""
        return [*self.problems, *self.tree.problems, *reference_problems(self.columns, self.tree)]

    @property
    def problem_count(self) -> int:
        """How many :meth:`all_problems` there are."""
        return len(self.all_problems())

    def __len__(self) -> int:
        return len(self.columns)

    def __repr__(self) -> str:
        return (
            f"<ColumnsRead {self.kind} of {shown_text(self.file.name)}: {len(self)} entries, "
            f"up to byte {self.end}>"
        )

    # -- reading -------------------------------------------------------------------------
    def _consume(self, items: Any, fh: IO[bytes] | None = None, end: int | None = None) -> int:
        """Read scanned lines into the columns, the header first (it sets the migration);
        returns how many entries were added. With ``fh``, the scan after the header hands
        clean entry lines to the columns itself (``scan_file``'s sink: no yield per line),
        up to the line that holds byte ``end``."""
        problems = self.problems
        cols = self.columns
        iterator = iter(items)
        first: RawEntry | None = None  # of a file without a header: its first entry
        if self.migrator is None:
            for item in iterator:
                if item.__class__ is not RawEntry:
                    problems.append(item)
                    continue
                obj = item.entry
                if obj["type"] not in ("session", "header"):
                    self._read_without_header(item)
                    first = item
                    break
                self.header = obj
                self.migrator = Migrator(obj)
                cols.spec_times = self.migrator.dialect == "spec"
                if self.migrator.problem is not None:
                    problems.append(Problem(item.line, "bad_version", self.migrator.problem))
                break
        migrator = self.migrator
        if migrator is None:
            return 0
        apply, iso_times = migrator.apply, not cols.spec_times
        add: Sink = cols.add
        if migrator.version < 2:
            add = _v1_adder(cols.add, migrator, iso_times, problems)
        elif not migrator.is_identity:

            def add(line: int, at: int, size: int, obj: Any, found: list[Problem]) -> None:
                cols.add(line, at, size, apply(obj, iso_times), found)

        added = 0
        if first is not None:
            add(first.line, first.offset, first.length, first.entry, problems)
            added += 1
        if fh is not None:
            iterator = scan_file(fh, self.scan, end, add, problems)
        for item in iterator:
            if item.__class__ is not RawEntry:
                problems.append(item)
                if item.kind == "missing_type":
                    migrator.skip(typeless=True)
                continue
            line, offset, length, obj = item
            kind = obj["type"]
            if kind == "session" or kind == "header":
                problems.append(Problem(line, "extra_header", "a second header; ignored"))
                migrator.skip(typeless=False)
                continue
            add(line, offset, length, obj, problems)
            added += 1
        return added

    def _read_without_header(self, first: RawEntry) -> None:
        """A file whose first entry is no header (the tail of a session, cut by a tool or
        by hand): read what is there, with an empty header and a ``no_header`` problem.

        Its entries are read as the current version when the first has an id (as any
        v2 or v3 tail does), as version 1 (ids derived, each the child of the one before)
        when it has none. The writers refuse such a file, as the agent reads nothing of it.
        """
        entry_id = first.entry.get("id")
        self.read_as = CURRENT_VERSION if isinstance(entry_id, str) and entry_id else 1
        self.header = {}
        self.migrator = Migrator({"type": "session", "version": self.read_as})
        self.problems.append(
            Problem(
                first.line,
                "no_header",
                f"no session header: line {first.line} is a {first.entry['type']!r} entry "
                "(the tail of a session?); read with an empty header, as version "
                f"{self.read_as}. prime_nb appends nothing to such a file",
            )
        )

    # -- a summary read as bytes ---------------------------------------------------------
    def to_bytes(self) -> bytes:
        """A summary read as JSON (orjson), to resume with :meth:`from_bytes`. JSON keeps
        it readable by any Python, and reading it back runs no code (pickle would);
        NaN is written as null and read back as NaN."""
        cols = self.columns
        if self.kind != "summary" or self.migrator is None:
            raise ValueError(
                shown_text(
                    f"{self.file}: only a finished read with columns='summary' turns into bytes; "
                    "pickle a full read, or keep it"
                )
            )
        migrator, st = self.migrator, self.scan
        state = {
            "identity": list(self.identity),
            "scan": [st.offset, st.line, st.owes_newline, st.torn_tail],
            "header": self.header,
            "read_as": self.read_as,
            "migrator": [migrator.ids_by_index, migrator.previous_id],
            "problems": [list(p) for p in self.problems],
            "arguments": sorted(cols.arguments),
            "cols": {f.name: getattr(cols, f.name) for f in fields(cols) if f.name not in _OWN},
            "usage": [u if u is None else list(u) for u in cols.usage],
            "time_ms": cols.time_ms.tolist(),
            "tool_calls": {name: getattr(cols.tool_calls, name) for name in _CALLS},
            "arguments_kept": [[k, v] for k, v in cols.tool_calls.arguments.items()],
        }
        try:
            return orjson.dumps(state)
        except TypeError:
            # nesting past what orjson writes (a kept tool's arguments, the header,
            # hundreds of levels deep): cut there, in place, as the loader's tables cut it;
            # the summary reads only the top levels (a read's path, the header's fields)
            return orjson.dumps(trim_depth(state)[0])

    @classmethod
    def from_bytes(cls, blob: bytes, file: str | os.PathLike[str]) -> ColumnsRead:
        """A summary read as :meth:`to_bytes` left it, of the file now at ``file``. The
        marks that tell a grown file from a replaced one are read from the file as it is
        now: check first that it only grew (its size, inode and last bytes read)."""
        state = orjson.loads(blob)
        read = cls(Path(file), "summary", state["arguments"])
        device, inode = state["identity"]
        read.identity = (device, inode)
        offset, line, owes, torn = state["scan"]
        read.scan = ScanState(offset, line, owes, torn)
        read.problems = [Problem(*p) for p in state["problems"]]
        read.header = state["header"]
        read.read_as = state.get("read_as")
        migrator = Migrator(
            state["header"]
            if read.read_as is None
            else {"type": "session", "version": read.read_as}
        )
        migrator.ids_by_index, migrator.previous_id = state["migrator"]
        if migrator.version < 2:
            migrator.used = {i for i in migrator.ids_by_index if i is not None}
        read.migrator = migrator
        cols = read.columns
        cols.spec_times = migrator.dialect == "spec"
        for name, value in state["cols"].items():
            setattr(cols, name, value)
        cols.time_ms.extend(map(_nan, state["time_ms"]))
        cols.usage = UsageColumn(_usage(u) for u in state["usage"])
        cols.label_events = [(row, target, label) for row, target, label in cols.label_events]
        cols.names = [(row, name) for row, name in cols.names]
        for name in _CALLS:
            setattr(cols.tool_calls, name, state["tool_calls"][name])
        cols.tool_calls.times = [_nan(t) for t in cols.tool_calls.times]
        cols.tool_calls.arguments = dict(state["arguments_kept"])
        cols.tool_results = {k: (v[0], v[1], _nan(v[2])) for k, v in cols.tool_results.items()}
        cols.index_of = {entry_id: row for row, entry_id in enumerate(cols.ids)}
        with paused_gc():
            read.tree = Tree.build(read.columns)
        with open_regular(read.file) as fh:
            read.marks = marks_of(fh.fileno(), read.end)
        read.added, read.fresh, read.rows_kept = len(cols), True, False
        return read


def read_columns(
    path: str | os.PathLike[str],
    *,
    columns: str = "full",
    state: ColumnsRead | None = None,
    arguments: Iterable[str] = (),
) -> ColumnsRead:
    """Read a session file into columns, or catch up with what was appended to it.

    ``columns``: ``"full"`` (what the Session's tables need) or ``"summary"`` (the same
    rows, ids, usage, tool calls, tree and problems, without text previews: the
    corpus's pass). ``arguments``: tool names whose call arguments a summary keeps (the
    full columns keep none: they stay on disk until a table asks).

    ``state``: an earlier read of this file. Only the bytes after its ``end`` are read,
    into its own columns (the read is advanced and returned), unless the file was
    replaced or rewritten meanwhile, which reads it anew from the start (``fresh``).
    Either way the result equals a read from the start. A read that fails (no header
    yet, an I/O error) raises and leaves ``state`` as it was.

    Raises FileNotFoundError for a missing file and SessionFormatError for a file that
    is no session (a folder, no header line).
    """
    if state is not None:
        return _resume(state)
    if columns not in COLUMN_SETS:
        raise ValueError(f"columns={columns!r}: pass one of {', '.join(COLUMN_SETS)}")
    file = Path(path)
    try:
        fh = open_regular(file, READ_BUFFER)
    except FileNotFoundError:
        raise FileNotFoundError(not_found(os.fspath(path))) from None
    read = ColumnsRead(file, columns, arguments)
    with fh:
        stat = os.fstat(fh.fileno())
        seen = marks_of(fh.fileno(), stat.st_size)
        read.identity = (stat.st_dev, stat.st_ino)
        read.stamp = (stat.st_size, stat.st_mtime_ns)
        with paused_gc():
            # the file as it was opened: one that grows as fast as it is read ends too
            read._consume(scan_file(fh, read.scan, stat.st_size), fh, stat.st_size)
            if read.header is None:
                raise no_header(file, fh.fileno())
            read.tree = Tree.build(read.columns)
        read.marks = marks_of(fh.fileno(), read.end)
        if written_while_read(fh.fileno(), stat, seen, MARK):
            read.marks = b""  # never matches: the next resume reads the file afresh
    read.added = len(read.columns)
    return read


def _v1_adder(add: Sink, migrator: Migrator, iso_times: bool, problems: list[Problem]) -> Sink:
    """``add`` for a version 1 file: each entry migrated, and the first entry that
    carries its own ``id`` and ``parentId`` reported (a header that says version 1 over
    a later version's entries). The agent reads such a file as version 1, replacing
    every id and chaining each entry to the one before, so the loader does the same;
    the report says why the tree is a chain and what to change."""
    # once: a refresh's read has it already, and a header whose version is odd says so
    told = migrator.problem is not None or any(p.message == LIES_V1 for p in problems)

    def add_v1(line: int, at: int, size: int, obj: Any, found: list[Problem]) -> None:
        nonlocal told
        if not told and isinstance(obj.get("id"), str) and "parentId" in obj:
            told = True
            problems.append(Problem(line, "bad_version", LIES_V1))
        add(line, at, size, migrator.apply(obj, iso_times), found)

    return add_v1


#: a version 1 header over entries with ids: what was done, and what to do
LIES_V1 = (
    "the header says version 1 but this entry has an id and a parentId (version 2 or "
    "later); read as version 1, as the agent reads it: ids replaced, each entry the child "
    "of the line before. If the entries are right, set the header's version to 3"
)


def not_found(name: str) -> str:
    """What to say of a session file that is not there: a URL (``Path`` would mangle
    ``s3://b/x`` into ``s3:/b/x``) gets told where URLs are read. The name is shown as
    :func:`shown_text` shows it."""
    if is_url(name):
        return shown_text(
            f"{name}: a URL, and load() reads local files; copy the file here first, or read "
            "it with prime_nb.corpus.sessions_dask(url, storage_options=...), which reads "
            "URLs through fsspec"
        )
    return shown_text(
        f"{name}: no such session file; check the path, or use prime_nb.list_sessions() "
        "to see the sessions that exist"
    )


def _resume(read: ColumnsRead) -> ColumnsRead:
    """``read`` advanced over the lines appended since (see :func:`read_columns`)."""
    try:
        fh = open_regular(read.file, READ_BUFFER)
    except FileNotFoundError:
        raise FileNotFoundError(shown_text(f"{read.file}: the session file is gone")) from None
    with fh:
        stat = os.fstat(fh.fileno())
        if replaced(read, stat, fh):
            return read_columns(read.file, columns=read.kind, arguments=read.columns.arguments)
        if stat.st_size == read.end and not read.scan.owes_newline:
            read.added, read.fresh, read.changed, read.rows_kept = 0, False, False, True
            return read
        seen = marks_of(fh.fileno(), stat.st_size)
        scanned = replace(read.scan)
        with paused_gc():  # read everything before changing anything
            items = list(scan(by_descriptor(fh.fileno(), read.file), scanned, stat.st_size))
        marks = marks_of(fh.fileno(), scanned.offset)
        # the bytes read before, or any byte of what was there, changed during this read:
        # marks that never match make the next resume read the file afresh
        if marks_of(fh.fileno(), read.scan.offset) != read.marks or written_while_read(
            fh.fileno(), stat, seen, MARK
        ):
            marks = b""
    if read.scan.torn_tail:
        read.problems = [
            p for p in read.problems if not (p.kind == "torn_line" and p.line == read.scan.line)
        ]
    read.scan = scanned
    cols = read.columns
    start = len(cols)
    with paused_gc():
        added = read._consume(items)
    rows_kept = not scanned.newline_paid
    if scanned.newline_paid and start:
        cols.lengths[start - 1] += 1
    if added:
        rebuilt = read.tree.extend(cols, start)
        touches_old_rows = "child_usage_attributed" in cols.types[start:]
        rows_kept = rows_kept and not rebuilt and not touches_old_rows
    read.marks = marks
    read.stamp = (stat.st_size, stat.st_mtime_ns)
    read.added, read.fresh, read.changed, read.rows_kept = added, False, True, rows_kept
    return read


def marks_of(fd: int, end: int) -> bytes:
    """The first and the last bytes read (header line, last line): see :func:`replaced`.
    ``pread`` (format's ``ends``, as the writers' snapshot reads them): a buffered read
    here would refill a reader's 1 MB buffer, which re-reads a whole small file."""
    return ends(fd, end, MARK)


def rewritten(read: ColumnsRead, stat: os.stat_result) -> bool:
    """Was the file written in place without growing (the same size, a new mtime)?

    Appends always grow a file, so a write that leaves the size as it was rewrote bytes
    already read: an editor's save, a rewrite in place of a line in the middle, which
    the marks (the first and last bytes) do not see."""
    return (
        read.stamp is not None
        and (stat.st_size, stat.st_mtime_ns) != read.stamp
        and (stat.st_size == read.stamp[0])
    )


def replaced(read: ColumnsRead, stat: os.stat_result, fh: IO[bytes]) -> bool:
    """Is the file no longer the one read, grown by appends only?

    ``(dev, inode)`` is not enough: the agent replaces a file by temp + rename, and ext4
    can hand the new file the old inode number. So the header line and the last line
    read are compared too. A last line that had no newline and now has more bytes glued
    onto it was not complete after all: the file is read again.
    """
    state = read.scan
    if (stat.st_dev, stat.st_ino) != read.identity or stat.st_size < state.offset:
        return True
    if rewritten(read, stat):
        return True
    if marks_of(fh.fileno(), state.offset) != read.marks:
        return True
    if state.owes_newline and stat.st_size > state.offset:
        fh.seek(state.offset)
        return fh.read(1) != b"\n"
    return False


# -- a summary read's columns as JSON -------------------------------------------------------
#: the columns not written as they are (the others are lists and dicts of JSON values)
_OWN = {"time_ms", "usage", "tool_calls", "index_of", "spec_times", "previews", "arguments"}
_CALLS = ("call_ids", "names", "rows", "times", "blocks")


def _nan(value: Any) -> float:
    return math.nan if value is None else float(value)


def _usage(value: list[Any] | None) -> Any:
    """A usage row read back from JSON (cost null: NaN), odd when a field is missing or
    below 0."""
    if value is None:
        return None
    if all(v is not None and v >= 0 for v in value[:5]):
        return (*value[:5], _nan(value[5]))
    return OddUsage((*value[:5], _nan(value[5])))
