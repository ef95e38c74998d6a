"""The corpus cache: each file's summary, kept in Parquet, reused while the file is unchanged.

Why: re-listing a corpus that did not change should cost a ``stat`` per file, and a live
session that only grew should cost its new bytes. A file's summary is reused when its
path, size, mtime and inode (with its device) are those recorded. A file with the same
inode that is longer than where the last pass stopped, and whose last 4 KB before that
point are unchanged, only grew: the pass resumes there (see ``_state``). Anything else
(rewritten, truncated, replaced by another file) is read again. Session files are
append-only; an edit further back than those 4 KB that also lengthens the file is the
one change this cannot see.

One Parquet file per cache folder, one row per file path ever summarised there: the key
columns, the summary (the corpus row and the research rows, as JSON, since a row's
values may be of any JSON type in a hostile file) and the pass's state. It is rewritten
whole, through a temporary file and a rename, so that a reader never sees half of it.
Its metadata names the cache's layout and the prime_nb that wrote it: rows summarised
by another version may follow other rules, so such a cache (or one that is damaged, or
no cache at all) is set aside and rebuilt, never trusted.

A call reads only what it needs: the states (most of the bytes) only when a file
changed, and a research table's rows only for that table. A part found damaged when it
is decoded makes that one file be read again.
"""

from __future__ import annotations

import hashlib
import math
import os
import tempfile
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import orjson

from .._version import __version__
from ._runner import run
from ._state import dump, restore
from ._summary import read_summary
from ._work import COMPACTIONS, FileResult, error_row, results_of

CACHE_FILE = "corpus-summaries.parquet"
#: bytes before the last read position that must be unchanged for a file to count as grown
TAIL = 4096
#: float fields of the summary rows that may be NaN (JSON writes NaN as null)
FLOATS = {
    "row": ("started", "ended", "cost"),
    "compactions": ("timestamp", "previous_ms", "compression_ratio"),
    "branches": ("started", "ended", "cost"),
}
Key = tuple[int, int, int, int]
#: the layout of the cache file; bump it when the columns or the stored rows change
CACHE_LAYOUT = 3
#: a stored state says how long it is; a length past this many times its compressed bytes
#: is a damaged cache's: zstd cannot do better (a block holds at most 128 KiB, and its
#: smallest form, a repeated byte, takes 4 bytes); the pass's states compress about 4 to 1
MAX_RATIO = 128 * 1024 // 4
#: Parquet metadata saying which layout and which prime_nb wrote the cache
WRITER = {
    b"prime_nb.cache_layout": str(CACHE_LAYOUT).encode(),
    b"prime_nb.version": __version__.encode(),
}


def cache_folder(cache: bool | str | os.PathLike[str]) -> Path:
    """``True``: the user's cache folder ($XDG_CACHE_HOME or ~/.cache, then prime-nb/);
    a path: that folder (next to the corpus, for instance)."""
    if not isinstance(cache, bool | str | os.PathLike):
        raise TypeError(f"cache={cache!r}: pass True (the user's cache folder), a folder, or False")
    if cache is True:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        return Path(base) / "prime-nb" / "corpus"
    return Path(os.fspath(cache))  # type: ignore[arg-type]


@dataclass
class Record:
    """What the cache holds for one path."""

    key: Key | None
    #: bytes the pass consumed (-1: the file could not be read as a session)
    offset: int
    tail: bytes
    result: FileResult
    #: the pass's saved state, ``packed`` (None: not read from the cache file yet, or none)
    state: bytes | None
    #: research rows still as the cache file holds them (JSON), by part: decoded when a
    #: table asks for them (``decoded``), so that listing the sessions decodes no branch
    stored: dict[str, bytes] = field(default_factory=dict)

    @property
    def resumable(self) -> bool:
        """Was the file read as a session (so that a state was saved to resume it)?"""
        return self.offset >= 0


def decoded(record: Record, parts: Iterable[str]) -> Record:
    """``record`` with the research rows of ``parts`` decoded; raises TypeError or
    ValueError when the cache file held something else there (the file is read again)."""
    for part in set(parts) & record.stored.keys():
        rows = orjson.loads(record.stored[part])
        if not _dicts(rows):
            raise TypeError(f"the cache's {part} rows are not a list of rows")
        fixed = _nans(rows, FLOATS[part])
        result = record.result
        record.result = (
            result._replace(compactions=fixed)
            if part == COMPACTIONS
            else result._replace(branches=fixed)
        )
        del record.stored[part]
    return record


def stat_key(path: str) -> Key | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev)


def tail_hash(path: str, offset: int) -> bytes:
    """A digest of the ``TAIL`` bytes before ``offset`` (empty when unreadable)."""
    try:
        with open(path, "rb") as fh:
            start = max(0, offset - TAIL)
            fh.seek(start)
            data = fh.read(offset - start)
    except OSError:
        return b""
    if len(data) != offset - start:
        return b""
    return hashlib.blake2b(data, digest_size=16).digest()


def summarise_for_cache(path: str, state: bytes | None, parallel: bool = False) -> Record:
    """The whole summary of a file and the state to resume it; resumed from ``state``
    when given (the caller checked that the file only grew). ``parallel``: a file read
    from its start is read in chunks by every core (the corpus asks for it only outside
    its workers, for a file bigger than a fair share of the corpus)."""
    key = stat_key(path)  # before reading: a file that grows meanwhile is resumed next time
    session = None
    if state is not None:
        try:
            session = restore(path, unpacked(state))
            session.refresh()  # reads only the new bytes (or all, if the file was replaced)
        except Exception:  # a state that no longer fits: read the file from the start
            session = None
    try:
        if session is None:
            session = read_summary(path, parallel)
        blob = packed(dump(session))
    except Exception as exc:
        return Record(key, -1, b"", FileResult(error_row(path, exc), [], []), None)
    offset = session._state.offset
    return Record(key, offset, tail_hash(path, offset), results_of(session, path), blob)


def packed(state: bytes) -> bytes:
    """A saved state as the cache file holds it: compressed (zstd) by the worker that made
    it, its length first. Why there: the workers compress their files' states side by
    side and send a quarter of the bytes back, where the cache file's writer compressed
    them all on one core while the others waited (the column is stored as it comes)."""
    pa, _ = _pyarrow()
    frame: bytes = pa.compress(state, codec="zstd", asbytes=True)
    return len(state).to_bytes(8, "little") + frame


def unpacked(stored: bytes) -> bytes:
    """The state :func:`packed` stored (ValueError: not one; a damaged cache's length is
    not believed past what zstd could have made of the bytes that follow it)."""
    pa, _ = _pyarrow()
    size, frame = int.from_bytes(stored[:8], "little"), stored[8:]
    if len(stored) < 8 or size > max(MAX_RATIO * len(frame), 1 << 20):
        raise ValueError("not a state this cache wrote")
    state: bytes = pa.decompress(frame, decompressed_size=size, codec="zstd", asbytes=True)
    return state


def _failed(path: str, exc: BaseException) -> Record:
    return Record(None, -1, b"", FileResult(error_row(path, exc), [], []), None)


def _plan(path: str, key: Key | None, record: Record | None) -> tuple[bool, bool]:
    """(reuse the record as it is, resume from its state: the file only grew)."""
    if record is None or key is None or record.key is None:
        return False, False
    if key == record.key:
        return True, False
    grown = (
        record.resumable
        and key[2:] == record.key[2:]
        and key[0] > record.offset  # the same length with a new mtime: rewritten
        and tail_hash(path, record.offset) == record.tail
    )
    return False, grown


def cached_summaries(
    paths: list[str],
    parts: Iterable[str],
    workers: int | None,
    desc: str,
    progress: bool | None,
    folder: Path,
    describe: Callable[[list[FileResult]], str],
) -> list[FileResult]:
    """Summaries of ``paths``, from the cache where the files did not change: every part
    of a file read now (so that the other tables are cached too), the row and ``parts``
    of a file the cache holds.

    A folder that cannot hold the cache is an error before any file is read; a cache
    that cannot be written at the end (a full disk) is a warning, and the tables are
    returned all the same."""
    usable_folder(folder)
    with CacheFile(folder) as cache:
        store = cache.records
        records: dict[int, Record] = {}
        todo: list[int] = []
        grown: list[bool] = []
        for k, path in enumerate(paths):
            reuse, resume = _plan(path, stat_key(path), store.get(path))
            if reuse:
                try:
                    records[k] = decoded(store[path], parts)
                except (TypeError, ValueError):  # damaged there: the file is read again
                    reuse = resume = False
            if not reuse:
                todo.append(k)
                grown.append(resume)
        if todo:  # an unchanged corpus (the common re-listing) never reads the states
            cache.read_states()  # to resume the grown files, and to write every record back
    states = [
        _state_of(store.get(paths[k])) if resume else None
        for k, resume in zip(todo, grown, strict=True)
    ]
    fresh = run(
        summarise_for_cache,
        [paths[k] for k in todo],
        workers,
        desc,
        progress,
        _failed,
        lambda found: describe([r.result for r in found]),
        extra=states,
        note=f"; {len(records)} unchanged files from the cache" if records else "",
        split=partial(summarise_for_cache, parallel=True),
    )
    for k, record in zip(todo, fresh, strict=True):
        records[k] = record
        store[paths[k]] = record
    if todo:
        try:
            write_store(folder, store)
        except OSError as exc:
            warnings.warn(
                f"the corpus cache in {folder} was not updated ({exc}); the tables are "
                "complete, and the next call reads the changed files again",
                stacklevel=4,
            )
    return [records[k].result for k in range(len(paths))]


def _state_of(record: Record | None) -> bytes | None:
    return record.state if record is not None else None


def usable_folder(folder: Path) -> None:
    """Make the cache folder, or say plainly why it cannot be one."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".probe-"):
            pass  # the cache is written the same way: a temporary file, then a rename
    except OSError as exc:
        reason = "a file of that name is in the way" if folder.is_file() else exc.strerror
        raise type(exc)(
            f"{folder}: cannot hold the corpus cache ({reason or exc}); pass cache=False, "
            "or cache= a folder you can write to"
        ) from None


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
    """The cache file of a folder, open: its records at once, their saved states (most of
    its bytes) only when :meth:`read_states` asks for them.

    Why: re-listing an unchanged corpus needs the summaries alone, and decompressing
    every file's state cost ten times the rest of the read (30 ms against 3 ms on 600
    sessions). The states are read later through the same open file, so a cache that
    another process renames over this one meanwhile cannot mix two caches' rows.

    A missing cache, or one that is damaged or was written by another layout or version
    of prime_nb, has no records (it is rebuilt).
    """

    def __init__(self, folder: Path) -> None:
        self.records: dict[str, Record] = {}
        self._handle: Any = None
        self._file: Any = None
        pa, pq = _pyarrow()
        self._errors = (OSError, pa.ArrowException, KeyError, TypeError, ValueError)
        try:
            self._handle = open(folder / CACHE_FILE, "rb")  # noqa: SIM115 (see close)
        except OSError:  # no cache yet (or none that can be read): it is rebuilt
            return
        try:
            self._file = pq.ParquetFile(self._handle)
            if not WRITER.items() <= (self._file.schema_arrow.metadata or {}).items():
                raise ValueError("another layout or version of prime_nb wrote it")
            columns = [name for name in self._file.schema_arrow.names if name != "state"]
            self.records = _records(self._file.read(columns=columns).to_pydict())
        except self._errors:  # orjson's and Arrow's decode errors are ValueErrors too
            self.records = {}
            self.close()

    def read_states(self) -> None:
        """Fill in every record's state. A state column that cannot be read drops the
        records (their files are read again) rather than trusting them without it."""
        if self._file is None:
            return
        try:
            column = self._file.read(columns=["path", "state"]).to_pydict()
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
        row = orjson.loads(table["row"][k])
        if not isinstance(row, dict):
            raise TypeError(f"the cache's record of {path} is not a summary")
        result = FileResult(_nans([row], FLOATS["row"])[0], [], [])
        stored = {part: table[part][k] for part in ("compactions", "branches")}
        if not all(isinstance(value, bytes) for value in stored.values()):
            raise TypeError(f"the cache's record of {path} is not a summary")
        key = (size, mtime, inode, device) if size is not None else None
        out[path] = Record(key, table["offset"][k], table["tail"][k], result, None, stored)
    return out


def _dicts(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, dict) for item in value)


def _json(record: Record, part: str) -> bytes:
    """A part's rows as the cache file holds them (as read, when never decoded)."""
    stored = record.stored.get(part)
    return stored if stored is not None else orjson.dumps(getattr(record.result, part))


def write_store(folder: Path, store: dict[str, Record]) -> None:
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
            "row": pa.array([orjson.dumps(r.result.row) for r in records], pa.binary()),
            "compactions": pa.array([_json(r, "compactions") for r in records], pa.binary()),
            "branches": pa.array([_json(r, "branches") for r in records], pa.binary()),
            "state": pa.array([r.state for r in records], pa.large_binary()),
        },
        metadata=WRITER,
    )
    handle, temporary = tempfile.mkstemp(prefix=".corpus-", suffix=".parquet", dir=folder)
    os.close(handle)
    try:
        codecs = {name: "zstd" for name in table.column_names}
        codecs["state"] = "none"  # compressed already (``packed``)
        pq.write_table(table, temporary, compression=codecs)
        os.replace(temporary, folder / CACHE_FILE)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
