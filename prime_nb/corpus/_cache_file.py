"""The corpus cache's file: one Parquet file per corpus folder, read as little as a call
needs, written whole.

One file per corpus (``cache_name``), so that one cache folder serves many corpora and
listing one reads and rewrites only its own records. One row per file summarised: the
key columns, the summary (the rows as JSON, since a row's values may be of any JSON type
in a hostile file) and the pass's state. It is rewritten through a temporary file and a
rename, so that a reader never sees half of it. Its metadata names the layout and the
prime_nb that wrote it: another version's rows may follow other rules, so such a cache
(or a damaged one) is rebuilt, never trusted.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import tempfile
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from .._names import shown_text
from .._version import __version__
from ..errors import SessionFormatError
from ..format import open_regular
from ._cache_rows import check_rows
from ._work import BRANCHES, COMPACTIONS, ROW, FileResult

#: the one file a cache folder held for every corpus, before each corpus had its own
OLD_CACHE_FILE = "corpus-summaries.parquet"
#: float fields of the summary rows that may be NaN (JSON writes NaN as null)
FLOATS = {
    ROW: ("started", "ended", "cost"),
    COMPACTIONS: ("timestamp", "previous_ms", "compression_ratio"),
    BRANCHES: ("started", "ended", "cost"),
}
#: the research tables' rows, kept as JSON (each a column of the file) until asked for
RESEARCH = (COMPACTIONS, BRANCHES)
Key = tuple[int, int, int, int]
#: the layout of the cache file; bump it when the columns or the stored rows change
CACHE_LAYOUT = 6
#: the Parquet metadata key of the layout: a file that has it was written by prime_nb
LAYOUT_KEY = b"prime_nb.cache_layout"
#: Parquet metadata saying which layout and which prime_nb wrote the cache
WRITER = {
    LAYOUT_KEY: str(CACHE_LAYOUT).encode(),
    b"prime_nb.version": __version__.encode(),
}


@dataclass
class Record:
    """What the cache holds for one path."""

    key: Key | None
    #: bytes the pass consumed (-1: the file could not be read as a session)
    offset: int
    tail: bytes
    result: FileResult
    #: the pass's saved state (None: not read from the cache file yet, or none)
    state: bytes | None
    #: research rows still as the cache file holds them (JSON), by part: decoded when a
    #: table asks for them (``decoded``), so that listing the sessions decodes no branch
    stored: dict[str, bytes] = field(default_factory=dict)
    #: checksums of the file's first and last 4 KB at the size in ``key`` (``ends_hash``)
    ends: bytes = b""
    #: whether the summary row was found of its columns' kinds (``decoded``)
    checked: bool = False


def decoded(record: Record, parts: Iterable[str]) -> Record:
    """``record`` with the research rows of ``parts`` decoded; raises TypeError or
    ValueError when the cache file held something else there, or its summary row or
    those rows hold a value no column of theirs takes (``check_rows``): the file is
    read again."""
    if not record.checked:
        check_rows(ROW, [record.result.row])
        record.checked = True
    for part in set(parts) & record.stored.keys():
        rows = orjson.loads(record.stored[part])
        if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
            raise TypeError(f"the cache's {part} rows are not a list of rows")
        check_rows(part, rows)
        # the part names are FileResult's field names (``_json`` reads them the same way)
        fixed: dict[str, Any] = {part: _nans(rows, FLOATS[part])}
        record.result = record.result._replace(**fixed)
        del record.stored[part]
    return record


def _pyarrow() -> Any:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ImportError(
            "the corpus cache needs pyarrow; install it with: pip install 'prime-nb[parquet]'"
        ) from None
    return pa, pq


def _nans(rows: list[dict[str, Any]], fields: tuple[str, ...]) -> list[dict[str, Any]]:
    for row in rows:
        for name in fields:
            if name in row and row[name] is None:
                row[name] = math.nan
    return rows


class CacheFile:
    """The cache file of a corpus, open: its records at once, their saved states (most of
    its bytes) only when :meth:`read_states` asks for them.

    Why: re-listing an unchanged corpus needs the records alone, in half the time that
    reading the states too takes. The states are read through the same open file, so a
    cache renamed over this one meanwhile cannot mix two caches' rows. A missing,
    damaged or foreign cache has no records (it is rebuilt).

    Every read runs on the calling thread (no ``pre_buffer``, no ``use_threads``): the
    bytes come from a Python file, and a buffer of one that an Arrow pool thread frees
    after the call returned needs the GIL; at the interpreter's exit that thread is
    ended inside C++ and the process aborts ("terminate called without an active
    exception"). The cache's few columns decode as fast on one thread.
    """

    def __init__(self, file: Path) -> None:
        self.records: dict[str, Record] = {}
        self._handle: Any = None
        self._file: Any = None
        pa, pq = _pyarrow()
        self._errors = (OSError, pa.ArrowException, KeyError, TypeError, ValueError)
        try:
            self._handle = open_regular(file)  # a FIFO there would block a plain open
        except OSError:  # no cache yet (or none that can be read): it is rebuilt
            return
        except SessionFormatError:
            warnings.warn(
                shown_text(
                    f"{file}: not a regular file (a FIFO, device or socket) where the corpus "
                    "cache goes; the cache is rebuilt and written in its place"
                ),
                stacklevel=5,  # the caller of load_corpus (as the cache's other warning)
            )
            return
        try:
            self._file = pq.ParquetFile(self._handle, pre_buffer=False)
            if not WRITER.items() <= (self._file.schema_arrow.metadata or {}).items():
                raise ValueError("another layout or version of prime_nb wrote it")
            columns = [name for name in self._file.schema_arrow.names if name != "state"]
            self.records = _records(self._file.read(columns=columns, use_threads=False).to_pydict())
        except self._errors:  # orjson's and Arrow's decode errors are ValueErrors too
            self.records = {}
            self.close()

    def read_states(self) -> None:
        """Fill in every record's state. A state column that cannot be read drops the
        records (their files are read again) rather than trusting them without it."""
        if self._file is None:
            return
        try:
            column = self._file.read(columns=["path", "state"], use_threads=False).to_pydict()
            for raw, state in zip(column["path"], column["state"], strict=True):
                if state is not None and not isinstance(state, bytes):
                    raise TypeError("a saved state that is not bytes")
                self.records[os.fsdecode(raw)].state = state
        except self._errors:
            self.records.clear()

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
        self._handle = self._file = None

    def __enter__(self) -> CacheFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _records(table: dict[str, list[Any]]) -> dict[str, Record]:
    out: dict[str, Record] = {}
    for k, raw in enumerate(table["path"]):
        path = os.fsdecode(raw)  # the name as the file system has it, UTF-8 or not
        size, mtime, inode, device = (
            table[name][k] for name in ("size", "mtime_ns", "inode", "device")
        )
        row, ends = orjson.loads(table["row"][k]), table["ends"][k]
        stored = {part: table[part][k] for part in RESEARCH}
        offset, tail = table["offset"][k], table["tail"][k]
        key = (size, mtime, inode, device) if size is not None else None
        if (
            not isinstance(row, dict)
            or not all(map(_is_bytes, [*stored.values(), ends, tail]))
            or not all(map(_is_int, [offset, *(key or ())]))
        ):
            raise TypeError(shown_text(f"the cache's record of {path} is not a summary"))
        result = FileResult(_nans([row], FLOATS[ROW])[0], [], [])
        out[path] = Record(key, offset, tail, result, None, stored, ends)
    return out


def _is_bytes(value: Any) -> bool:
    return isinstance(value, bytes)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _json(record: Record, part: str) -> bytes:
    """A part's rows as the cache file holds them (as read, when never decoded)."""
    stored = record.stored.get(part)
    return stored if stored is not None else orjson.dumps(getattr(record.result, part))


def cache_name(root: str) -> str:
    """The cache file's name for the corpus below the folder ``root``: its last part, for
    a person looking in the cache folder, and a digest of the whole path."""
    digest = hashlib.blake2b(os.fsencode(root), digest_size=8).hexdigest()
    last = re.sub(r"[^A-Za-z0-9._-]+", "_", os.path.basename(root.rstrip(os.sep)))
    return f"corpus-{last[:40].strip('._') or 'root'}-{digest}.parquet"


def write_store(file: Path, store: dict[str, Record]) -> None:
    """``store`` as the cache file ``file``: a temporary file, then a rename."""
    pa, pq = _pyarrow()
    paths = sorted(store)  # the folder is there: usable_folder made it
    records = [store[p] for p in paths]

    def key(k: int) -> list[int | None]:
        return [r.key[k] if r.key is not None else None for r in records]

    table = pa.table(
        {
            "path": pa.array([os.fsencode(p) for p in paths], pa.binary()),
            "size": pa.array(key(0), pa.int64()),
            "mtime_ns": pa.array(key(1), pa.int64()),
            "inode": pa.array(key(2), pa.uint64()),
            "device": pa.array(key(3), pa.uint64()),
            "offset": pa.array([r.offset for r in records], pa.int64()),
            "tail": pa.array([r.tail for r in records], pa.binary()),
            "ends": pa.array([r.ends for r in records], pa.binary()),
            "row": pa.array([orjson.dumps(r.result.row) for r in records], pa.binary()),
            **{part: pa.array([_json(r, part) for r in records], pa.binary()) for part in RESEARCH},
            "state": pa.array([r.state for r in records], pa.large_binary()),
        },
        metadata=WRITER,
    )
    handle, temporary = tempfile.mkstemp(prefix=".corpus-", suffix=".parquet", dir=file.parent)
    os.close(handle)
    try:
        pq.write_table(table, temporary, compression="zstd")
        os.replace(temporary, file)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    _remove_old_cache(file.parent)


def _remove_old_cache(folder: Path) -> None:
    """The folder's shared cache file of earlier versions, removed once a corpus's own
    file is written there: it held every corpus listed with that folder, and nothing
    reads it now. Only a Parquet file that prime_nb wrote goes (its metadata says so)."""
    old = folder / OLD_CACHE_FILE
    if not old.is_file():
        return
    _, pq = _pyarrow()
    try:
        ours = LAYOUT_KEY in (pq.read_schema(old).metadata or {})
    except Exception:  # not Parquet, unreadable...: not ours to remove
        return
    if ours:
        old.unlink(missing_ok=True)
