"""One segment of the search index: an Arrow IPC file of a group of files' rows, written
whole and, before a search reads it, checked whole.

Why the check: Arrow's kernels trust the buffers they are given, so an offset pointing
past a text's data (a damaged byte, a hostile cache folder) is read as memory and kills
the process with SIGSEGV; and a damaged byte that leaves the file valid changes the
hits. A segment's name carries the CRC-32 of its bytes. It is used only if it is a
plain name this index writes, a regular file (no symlink, FIFO or device: opened
without following links or blocking), its bytes of that CRC-32 (any accidental
damage), and, since a CRC is no defence against a file made to match one: one record
batch of exactly the columns written, valid to the last offset and UTF-8 byte
(``RecordBatch.validate(full=True)``), with no null where none is written, the texts
kept as bytes decodable as the search decodes them, and every ``file`` number naming
one of the files its metadata lists. Anything else raises :class:`DamagedSegment`, and
the index reads those files again.

The check reads the file's bytes twice (the CRC, then Arrow's validation), as the
search's own kernels read them once; both release the GIL and run in the search's
threads, one segment each.
"""

from __future__ import annotations

import json
import mmap
import os
import re
import stat
import uuid
import zlib
from pathlib import Path
from typing import Any

from .._names import shown_text
from ._cache_file import _pyarrow

#: what a hit reports, as the segments hold it (with ``text``, ``odd`` and ``file``)
HIT_COLUMNS = ("entry_id", "line", "role", "type", "field", "active", "time_ms")
#: the columns that may hold nulls (a message without a role, a text Arrow holds)
NULLABLE = ("role", "odd")
#: the names this index gives its segments (a random part, then the CRC-32 of the
#: file's bytes): nothing else in a manifest is read
SEGMENT_NAME = re.compile(r"[0-9a-f]{32}-([0-9a-f]{8})\.arrow")
#: how a segment is opened: read only, never through a symlink, at once even if a FIFO
OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
)


class DamagedSegment(ValueError):
    """A segment that is not what the index wrote: its files are read again."""


class SegmentNotWritten(OSError):
    """A segment could not be written (a full disk, a file size limit): the search runs
    without the index, and nothing of the group is recorded, so it is read next time."""


def row_schema() -> Any:
    """The columns of one file's rows (a segment adds ``file``)."""
    pa, _ = _pyarrow()
    kinds = {"line": pa.int64(), "active": pa.bool_(), "time_ms": pa.float64()}
    kinds.update(text=pa.large_string(), odd=pa.large_binary())
    names = (*HIT_COLUMNS, "text", "odd")
    return pa.schema([(name, kinds.get(name, pa.string())) for name in names])


def segment_schema() -> Any:
    """A segment's columns: the rows' and the number of the file each came from."""
    pa, _ = _pyarrow()
    return row_schema().append(pa.field("file", pa.int32()))


def is_segment_name(value: object) -> bool:
    """Is ``value`` a name this index gives a segment (a plain name in its folder)?"""
    return isinstance(value, str) and SEGMENT_NAME.fullmatch(value) is not None


def write_segment(folder: Path, group: list[str], tables: list[Any]) -> str | None:
    """The rows of a group of files as a segment; its ``files`` metadata names the file
    of each value of its ``file`` column. None when no file of the group has rows."""
    pa, _ = _pyarrow()
    held = [(path, table) for path, table in zip(group, tables, strict=True) if table is not None]
    if not held:
        return None
    numbers = [pa.array([k] * len(table), pa.int32()) for k, (_, table) in enumerate(held)]
    table = pa.concat_tables(
        [t.append_column("file", n) for (_, t), n in zip(held, numbers, strict=True)]
    )
    table = table.combine_chunks().replace_schema_metadata(
        {"files": json.dumps([path for path, _ in held])}
    )
    sink = pa.BufferOutputStream()
    with pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    data = sink.getvalue()
    name = f"{uuid.uuid4().hex}-{zlib.crc32(data):08x}.arrow"
    part = folder / f"{name}.part"
    try:
        with open(part, "wb") as out:
            out.write(memoryview(data))
        os.replace(part, folder / name)
    except OSError as exc:
        part.unlink(missing_ok=True)
        raise SegmentNotWritten(
            shown_text(
                f"{folder}: the search index was not updated ({exc.strerror or exc}); the hits "
                "are those of a search without it, and the next search reads the files again"
            )
        ) from exc
    return name


def open_plain(file: Path) -> int:
    """A descriptor of ``file`` if it is a regular file itself: a symlink (ELOOP), FIFO,
    device or socket raises OSError at once, without following or waiting on it."""
    fd = os.open(file, OPEN_FLAGS)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(
                shown_text(f"{file.name} is not a regular file (a FIFO, device or socket)")
            )
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _mapped(file: Path) -> mmap.mmap:
    """The bytes of a regular file, memory-mapped (no copy), or DamagedSegment."""
    try:
        fd = open_plain(file)
    except OSError as exc:  # gone, a symlink, a FIFO, unreadable
        raise DamagedSegment(
            shown_text(f"{file.name}: cannot be opened ({exc.strerror or exc})")
        ) from None
    try:
        if os.fstat(fd).st_size == 0:
            raise DamagedSegment(shown_text(f"{file.name}: empty"))
        return mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
    except OSError as exc:
        raise DamagedSegment(
            shown_text(f"{file.name}: cannot be mapped ({exc.strerror or exc})")
        ) from None
    finally:
        os.close(fd)


def open_segment(folder: Path, name: object) -> tuple[Any, list[str]]:
    """The segment ``name`` of the index in ``folder`` as one checked batch (a table of
    one chunk, a view on the mapped file) and the files its ``file`` column numbers;
    :class:`DamagedSegment` if it is anything but what :func:`write_segment` wrote."""
    if not is_segment_name(name):
        raise DamagedSegment(f"{name!r}: not a segment name of this index")
    assert isinstance(name, str)
    pa, _ = _pyarrow()
    import pyarrow.compute as pc

    mapped = _mapped(folder / name)
    written = SEGMENT_NAME.fullmatch(name)
    assert written is not None
    if zlib.crc32(mapped) != int(written.group(1), 16):
        raise DamagedSegment(shown_text(f"{name}: its bytes changed since it was written (CRC-32)"))
    try:
        reader = pa.ipc.open_file(pa.py_buffer(mapped))
        if reader.num_record_batches != 1:
            raise DamagedSegment(shown_text(f"{name}: {reader.num_record_batches} batches, not 1"))
        if not reader.schema.remove_metadata().equals(segment_schema()):
            raise DamagedSegment(shown_text(f"{name}: other columns than a segment's"))
        names = json.loads((reader.schema.metadata or {})[b"files"])
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise DamagedSegment(shown_text(f"{name}: its files are not a list of paths"))
        batch = reader.get_batch(0)
        batch.validate(full=True)  # offsets in order and in bounds, UTF-8, null counts
        for column, field in zip(batch.columns, batch.schema, strict=True):
            if column.null_count and field.name not in NULLABLE:
                raise DamagedSegment(shown_text(f"{name}: nulls in {field.name}"))
        for raw in pc.drop_null(batch.column("odd")).to_pylist():  # few: NUL, surrogates
            raw.decode("utf-8", "surrogatepass")  # as the search decodes them
        numbers = pc.min_max(batch.column("file")).as_py()
        if len(batch) and not 0 <= numbers["min"] <= numbers["max"] < len(names):
            raise DamagedSegment(shown_text(f"{name}: file numbers outside its {len(names)} files"))
        return pa.Table.from_batches([batch]), names
    except DamagedSegment:
        raise
    # Arrow's errors, and JSON's or UTF-8's (ValueErrors), in what the file holds
    except (pa.ArrowException, OSError, ValueError, TypeError, KeyError, MemoryError) as exc:
        raise DamagedSegment(shown_text(f"{name}: {type(exc).__name__}: {exc}")) from None
