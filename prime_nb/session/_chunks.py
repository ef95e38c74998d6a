"""One chunk of a session file read in a worker process, and its exact merge in order.

Why: a big file is read by several processes at once (``_parallel``), each taking a
run of whole lines. A worker runs the loader's own per-entry extraction
(:class:`EntryColumns`) on its lines and sends the columns back as a few bytes buffers
(arrays, strings packed into one blob, repeated strings as codes into a vocabulary),
never as one pickled object per entry.

Three things in a file are not local to a chunk, so the worker leaves them to the merge,
which applies them in file order exactly as a single pass does:

- **Line numbers.** A worker counts lines from 1; the merge adds the lines before it.
- **Ids.** Naming an entry without an id (``L<line>``) and renaming a repeated one
  (``<id>@L<line>``) depend on every id before it. The worker keeps ids as written; the
  merge names and renames, and inserts those problems where a single pass reports them.
- **Child usage.** A ``child_usage_attributed`` entry changes an earlier assistant
  message's usage, which may sit in an earlier chunk: the worker records it and the
  merge applies it (and keeps its odd-usage problem only if it applied).
"""

from __future__ import annotations

import operator
import os
import pickle
import signal
import sys
import tempfile
import time
from array import array
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..format import (
    READ_BUFFER,
    Migrator,
    Problem,
    RawEntry,
    ScanState,
    by_descriptor,
    open_regular,
    scan,
)
from ._columns import EntryColumns, _odd_usage_problem, extra_header, usage_tuple
from ._store import UsageColumn

#: joins packed strings; a column holding it anywhere is sent with offsets instead
SEPARATOR = "\x00"
#: a vocabulary column: codes into a vocabulary sent once per chunk
VOCABULARY_COLUMNS = (
    "types",
    "roles",
    "providers",
    "models",
    "tool_names",
    "stop_reasons",
    "custom_types",
)


class FileChanged(Exception):
    """The file a worker opened is not the one the loading process holds open."""


class ChunkColumns(EntryColumns):
    """The loader's columns for one chunk: ids as written, child usage recorded.

    ``unnamed``: rows whose id is missing or not a string (the merge names them).
    ``child_usage``: (row, target id, usage, index of its problem in the chunk's
    problems or -1) per ``child_usage_attributed`` entry with an aggregate usage.
    """

    def __init__(self) -> None:
        super().__init__()
        self.unnamed: list[int] = []
        self.child_usage: list[tuple[int, str, Any, int]] = []

    def _start(
        self, line: int, entry: dict[str, Any], problems: list[Problem]
    ) -> tuple[int, str, Any, float]:
        row = len(self.ids)
        entry_id = entry.get("id")
        if entry_id.__class__ is not str or not entry_id:
            self.unnamed.append(row)
            entry_id = ""  # named by the merge; its problems get the name there
        message, now = self._when(line, entry, entry_id, problems)
        return row, entry_id, message, now

    def pack_extra(self) -> Any:
        """What a subclass keeps beyond the loader's columns, packed for the merge (which
        hands it to the target columns' ``merge_extra``); None: nothing."""
        return None

    def _child_usage(
        self, row: int, entry: dict[str, Any], where: tuple[int, str], problems: list[Problem]
    ) -> None:
        target = entry.get("targetId")
        aggregate = entry.get("aggregateUsage")
        if not isinstance(target, str) or not isinstance(aggregate, dict):
            return
        usage = usage_tuple(aggregate)
        problem = -1
        if usage.__class__ is not tuple:
            problem = len(problems)
            problems.append(_odd_usage_problem(where, aggregate, usage))
        self.child_usage.append((row, target, usage, problem))


def peak_rss() -> int:
    """This process's peak resident set, in bytes (0 where unknown)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return 0
    scale = 1 if sys.platform == "darwin" else 1024  # macOS counts bytes, Linux KiB
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale


# -- the worker ---------------------------------------------------------------------------
def read_chunk(
    path: str,
    identity: tuple[int, int],
    header: dict[str, Any],
    start: int,
    end: int | None,
    spill: str,
    fail: str | None = None,
    columns: type[ChunkColumns] = ChunkColumns,
) -> dict[str, Any]:
    """Read the lines of ``path`` in ``[start, end)`` (``end`` None: to the end of the
    file, torn last line and all) into packed columns; lines are counted from 1.
    ``columns``: the per-entry extraction (the corpus summary passes a lighter one).

    The packed chunk is written to a file in the folder ``spill``, and only its name is
    returned (with the worker's CPU time and peak RSS): megabytes sent back through the
    executor's pipe would trickle in 64 KB at a time, each read waiting for the loading
    process's busy main thread to let go of the GIL. :func:`take` reads it back.

    ``fail``: a test hook, the worker dies ("exit", "kill") or raises ("raise") first.
    """
    began = time.process_time()
    if fail == "exit":
        os._exit(3)
    elif fail == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif fail == "raise":
        raise RuntimeError("worker failed on purpose (test hook)")
    with open_regular(path, READ_BUFFER) as fh:
        held = os.fstat(fh.fileno())
        if (held.st_dev, held.st_ino) != tuple(identity):
            raise FileChanged(f"{path}: replaced while it was being read")
        state = ScanState(offset=start, line=1)
        cols = columns()
        migrator = Migrator(header)
        cols.spec_times = migrator.dialect == "spec"
        problems: list[Problem] = []
        problem_rows: list[int] = []
        for item in scan(by_descriptor(fh.fileno(), Path(path)), state, end):
            if item.__class__ is not RawEntry:  # as Session._consume reads them
                assert isinstance(item, Problem)
                problems.append(item)
                problem_rows.append(-1)
                if item.kind == "missing_type":
                    migrator.skip(typeless=True)
                continue
            assert isinstance(item, RawEntry)
            obj = item.entry
            if obj["type"] in ("session", "header"):
                problems.append(extra_header(item.line))
                problem_rows.append(-1)
                migrator.skip(typeless=False)
                continue
            before = len(problems)
            row = len(cols)
            entry = migrator.apply(obj, iso_times=not cols.spec_times)
            cols.add(item.line, item.offset, item.length, entry, problems)
            problem_rows.extend([row] * (len(problems) - before))
    blob = pickle.dumps(pack(cols, problems, problem_rows, state), protocol=pickle.HIGHEST_PROTOCOL)
    fd, name = tempfile.mkstemp(suffix=".chunk", dir=spill)
    with open(fd, "wb") as out:
        out.write(blob)
    return {"file": name, "cpu_seconds": time.process_time() - began, "peak_rss": peak_rss()}


def take(sent: dict[str, Any]) -> dict[str, Any]:
    """The packed chunk a worker wrote (the file is removed)."""
    name = sent["file"]
    with open(name, "rb") as fh:
        blob = fh.read()
    os.unlink(name)
    chunk: dict[str, Any] = pickle.loads(blob)
    return chunk


# -- packing ------------------------------------------------------------------------------
def pack_strings(values: Sequence[str | None]) -> tuple[bytes, bytes | None, bytes | None]:
    """Strings as (UTF-8 blob, character offsets or None, None-mask or None)."""
    nulls = None
    if None in values:
        nulls = bytes(v is None for v in values)
        values = ["" if v is None else v for v in values]
    joined = SEPARATOR.join(values)  # type: ignore[arg-type]
    if not values or joined.count(SEPARATOR) == len(values) - 1:
        return joined.encode("utf-8", "surrogatepass"), None, nulls
    strings: Sequence[str] = values  # type: ignore[assignment]
    ends = np.cumsum(np.fromiter(map(len, strings), dtype=np.int64, count=len(strings)))
    text = "".join(strings)
    return text.encode("utf-8", "surrogatepass"), ends.tobytes(), nulls


def unpack_strings(packed: tuple[bytes, bytes | None, bytes | None], n: int) -> list[Any]:
    blob, ends, nulls = packed
    text = blob.decode("utf-8", "surrogatepass")
    if ends is None:
        values: list[Any] = text.split(SEPARATOR) if n else []
    else:
        stops = np.frombuffer(ends, dtype=np.int64).tolist()
        values = [text[a:b] for a, b in zip([0, *stops[:-1]], stops, strict=True)]
    if nulls is not None:
        values = [None if null else v for v, null in zip(values, nulls, strict=True)]
    return values


def _pack_vocabulary_columns(cols: EntryColumns) -> dict[str, Any]:
    vocabulary = list(cols.vocabulary)
    code_of = {value: code for code, value in enumerate(vocabulary)}
    out: dict[str, Any] = {"vocabulary": vocabulary}
    for name in (*VOCABULARY_COLUMNS, "tool_call_names"):
        column = cols.tool_calls.names if name == "tool_call_names" else getattr(cols, name)
        try:
            out[name] = ("codes", array("I", map(code_of.__getitem__, column)).tobytes())
        except (KeyError, TypeError):  # a value past the vocabulary's limit, or no string
            out[name] = ("list", list(column))
    return out


def pack(
    cols: ChunkColumns, problems: list[Problem], problem_rows: list[int], state: ScanState
) -> dict[str, Any]:
    """A chunk's columns as buffers (see the module docstring)."""
    results = cols.tool_results
    calls = cols.tool_calls
    usage = cols.usage
    return {
        "rows": len(cols),
        "ids": pack_strings(cols.ids),
        "unnamed": cols.unnamed,
        "parent_ids": pack_strings(cols.parent_ids),
        "parent_is_previous": _parent_is_previous(cols.ids, cols.parent_ids),
        "texts": cols.texts.packed(),
        **_pack_vocabulary_columns(cols),
        "time_ms": cols.time_ms.tobytes(),
        "lines": cols.lines.tobytes(),
        "offsets": cols.offsets.tobytes(),
        "lengths": cols.lengths.tobytes(),
        "flags": bytes(cols.flags),
        "n_tool_calls": cols.n_tool_calls.tobytes(),
        "usage": (usage.tokens.tobytes(), usage.cost.tobytes(), bytes(usage.present), usage.odd),
        "compactions": cols.compactions,
        "label_events": cols.label_events,
        "names": cols.names,
        "tool_calls": (
            pack_strings(calls.call_ids),
            calls.rows.tobytes(),
            calls.times.tobytes(),
            calls.blocks.tobytes(),
        ),
        "tool_results": (
            pack_strings(list(results)),
            array("q", [r[0] for r in results.values()]).tobytes(),
            bytes(r[1] for r in results.values()),
            array("d", [r[2] for r in results.values()]).tobytes(),
        ),
        "child_usage": cols.child_usage,
        "extra": cols.pack_extra(),
        "problems": problems,
        "problem_rows": array("q", problem_rows).tobytes(),
        "state": (state.offset, state.line, state.owes_newline, state.torn_tail),
    }


def _parent_is_previous(ids: list[str], parents: list[str | None]) -> bytes:
    """Per row, whether its parent is the row before it as written (a chain: most rows),
    so that the merge shares that row's id string instead of looking it up."""
    return bytes([False, *map(operator.eq, ids[:-1], parents[1:])]) if ids else b""


# -- the merge ----------------------------------------------------------------------------
def _shifted(data: bytes, shift: int) -> array[int]:
    out = array("q")
    out.frombytes((np.frombuffer(data, dtype=np.int64) + shift).tobytes() if shift else data)
    return out


def _vocabulary_column(cols: EntryColumns, chunk: dict[str, Any], name: str) -> list[Any]:
    how, data = chunk[name]
    if how == "list":
        values: list[Any] = data
        return [v if v.__class__ is not str else cols.intern(v, v) for v in values]
    shared = [v if v is None else cols.intern(v, v) for v in chunk["vocabulary"]]
    return list(map(shared.__getitem__, array("I", data)))


def merge(
    cols: EntryColumns, line_problems: list[Problem], state: ScanState, chunk: dict[str, Any]
) -> None:
    """Append a chunk read by :func:`read_chunk` to ``cols``, ``line_problems`` and
    ``state`` exactly as a single pass over the same lines would have left them.

    ``state`` is where the reading stands: the chunk starts at its line.
    """
    n = chunk["rows"]
    base_row = len(cols)
    base_line = state.line - 1
    lines = _shifted(chunk["lines"], base_line)
    cols.lines.extend(lines)
    cols.time_ms.frombytes(chunk["time_ms"])
    cols.offsets.frombytes(chunk["offsets"])
    cols.lengths.frombytes(chunk["lengths"])
    cols.flags.extend(chunk["flags"])
    cols.n_tool_calls.frombytes(chunk["n_tool_calls"])
    for name in VOCABULARY_COLUMNS:
        getattr(cols, name).extend(_vocabulary_column(cols, chunk, name))
    cols.texts.extend_blocks(chunk["texts"])
    _merge_usage(cols.usage, chunk["usage"], base_row)

    ids: list[str] = unpack_strings(chunk["ids"], n)
    renamed, id_problems = _resolve_ids(cols, ids, chunk["unnamed"], lines, base_row)
    cols.parent_ids.extend(_parents(cols, chunk, base_row, renamed))

    for comp in chunk["compactions"]:
        comp["index"] += base_row
        cols.compactions.append(comp)
    cols.label_events.extend((r + base_row, t, label) for r, t, label in chunk["label_events"])
    cols.names.extend((r + base_row, name) for r, name in chunk["names"])
    base_call = len(cols.tool_calls)
    _merge_tool_calls(cols, chunk, base_row)
    if chunk["extra"] is not None:
        cols.merge_extra(chunk["extra"], base_row, base_call)  # type: ignore[attr-defined]

    dropped = _apply_child_usage(cols, chunk["child_usage"], base_row)
    line_problems.extend(
        _problems(chunk, base_line, base_row, lines, renamed, id_problems, dropped)
    )
    offset, line, owes_newline, torn_tail = chunk["state"]
    state.offset = offset
    state.line = line + base_line
    state.owes_newline = owes_newline
    state.torn_tail = torn_tail


def _parents(
    cols: EntryColumns, chunk: dict[str, Any], base_row: int, renamed: dict[int, str]
) -> list[str | None]:
    """The chunk's parent ids, each a known parent's own id string (one copy, as a
    single pass keeps it); a chain's parent is the row before, shared at numpy speed."""
    n = chunk["rows"]
    parents: list[Any] = unpack_strings(chunk["parent_ids"], n)
    found = cols.index_of.get
    all_ids = cols.ids
    if renamed or n < 2:  # a renamed row's id is not what its children wrote
        return [p if p is None or (r := found(p)) is None else all_ids[r] for p in parents]
    out = np.empty(n, dtype=object)
    out[:] = parents
    chained = np.flatnonzero(np.frombuffer(chunk["parent_is_previous"], dtype=np.bool_))
    ids = np.empty(n, dtype=object)
    ids[:] = all_ids[base_row:]
    out[chained] = ids[chained - 1]
    for k in np.flatnonzero(~np.frombuffer(chunk["parent_is_previous"], dtype=np.bool_)):
        parent = out[k]
        if parent is not None and (r := found(parent)) is not None:
            out[k] = all_ids[r]
    shared: list[str | None] = out.tolist()
    return shared


def _merge_usage(usage: UsageColumn, packed: tuple[Any, ...], base_row: int) -> None:
    tokens, cost, present, odd = packed
    usage.tokens.frombytes(tokens)
    usage.cost.frombytes(cost)
    usage.present.extend(present)
    for row, value in odd.items():
        usage.odd[row + base_row] = value


def _merge_tool_calls(cols: EntryColumns, chunk: dict[str, Any], base_row: int) -> None:
    call_ids, rows, times, blocks = chunk["tool_calls"]
    calls = cols.tool_calls
    count = len(rows) // 8
    calls.call_ids.extend(unpack_strings(call_ids, count))
    calls.names.extend(_vocabulary_column(cols, chunk, "tool_call_names"))
    calls.rows.extend(_shifted(rows, base_row))
    calls.times.frombytes(times)
    calls.blocks.frombytes(blocks)
    keys, result_rows, errors, result_times = chunk["tool_results"]
    count = len(errors)
    cols.tool_results.update(
        zip(
            unpack_strings(keys, count),
            zip(
                (np.frombuffer(result_rows, dtype=np.int64) + base_row).tolist(),
                map(bool, errors),
                np.frombuffer(result_times, dtype=np.float64).tolist(),
                strict=True,
            ),
            strict=True,
        )
    )


def _resolve_ids(
    cols: EntryColumns, ids: list[str], unnamed: list[int], lines: array[int], base_row: int
) -> tuple[dict[int, str], dict[int, list[Problem]]]:
    """Add the chunk's ids to ``cols.ids`` and ``cols.index_of``, naming and renaming
    as a single pass does; returns the chunk rows whose id changed (local row -> new id)
    and the problems that naming and renaming reported (by local row)."""
    index_of = cols.index_of
    n = len(ids)
    if not unnamed and index_of.keys().isdisjoint(ids):
        before = len(index_of)
        index_of.update(zip(ids, range(base_row, base_row + n), strict=True))
        if len(index_of) == before + n:  # no id twice within the chunk either
            cols.ids.extend(ids)
            return {}, {}
        for entry_id in ids:  # undo, then take the careful way
            index_of.pop(entry_id, None)
    renamed: dict[int, str] = {}
    problems: dict[int, list[Problem]] = {}
    missing = set(unnamed)
    for k, entry_id in enumerate(ids):
        row = base_row + k
        if k in missing or entry_id in index_of:
            found: list[Problem] = []
            name = cols._usable_id(None if k in missing else entry_id, lines[k], found)
            renamed[k] = name
            problems[k] = found
            entry_id = name
        index_of[entry_id] = row
        cols.ids.append(entry_id)
    return renamed, problems


def _apply_child_usage(
    cols: EntryColumns, records: list[tuple[int, str, Any, int]], base_row: int
) -> set[int]:
    """Apply recorded child usage in file order; the problems of those that did not
    apply (no earlier assistant with that id) are returned, to be dropped."""
    dropped: set[int] = set()
    for local, target, usage, problem in records:
        row = local + base_row
        target_row = cols.index_of.get(target)
        if target_row is not None and target_row < row and cols.roles[target_row] == "assistant":
            cols.usage[target_row] = usage
        elif problem >= 0:
            dropped.add(problem)
    return dropped


def _problems(
    chunk: dict[str, Any],
    base_line: int,
    base_row: int,
    lines: array[int],
    renamed: dict[int, str],
    id_problems: dict[int, list[Problem]],
    dropped: set[int],
) -> list[Problem]:
    """The chunk's problems in a single pass's order, lines made absolute; a renamed
    entry's problems carry its new id, and its naming problems come right after the
    line's own (a BOM, bad UTF-8) and before the entry's others."""
    out: list[Problem] = []
    pending = sorted(id_problems)
    k = 0
    rows = array("q")
    rows.frombytes(chunk["problem_rows"])
    for position, (problem, row) in enumerate(zip(chunk["problems"], rows, strict=True)):
        line = problem.line + base_line
        while k < len(pending) and (
            (row >= 0 and row >= pending[k]) or (row < 0 and line > lines[pending[k]])
        ):
            out.extend(id_problems[pending[k]])
            k += 1
        if position in dropped:
            continue
        entry_id = renamed.get(row, problem.entry_id) if row >= 0 else problem.entry_id
        out.append(Problem(line, problem.kind, problem.message, entry_id))
    for rest in pending[k:]:
        out.extend(id_problems[rest])
    return out
