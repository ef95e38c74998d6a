"""The corpus cache: each file's summary, kept in Parquet, reused while the file is unchanged.

Why: re-listing a corpus that did not change should cost a ``stat`` and two small reads
per file, and a live session that only grew should cost its new bytes. When a file
counts as unchanged or grown, and which edits stay unseen, is in docs/corpus.md; a
grown file is resumed from the read the cache kept (``read_columns(state=...)``), and
anything else is read again. A part of a record found damaged when it is decoded makes
that one file be read again.
"""

from __future__ import annotations

import os
import stat
import tempfile
import warnings
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path

from .._names import shown_text
from ..session import ColumnsRead
from ._cache_file import CacheFile, Key, Record, cache_name, decoded, write_store
from ._runner import run
from ._work import FileResult, error_row, read_summary, results_of

#: bytes before the last read position that must be unchanged for a file to count as grown
TAIL = 4096
#: how ``ends_hash`` opens a file: read only, and at once even if it is a FIFO now
READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def cache_folder(cache: bool | str | os.PathLike[str]) -> Path:
    """``True``: the user's cache folder ($XDG_CACHE_HOME or ~/.cache, then prime-nb/);
    a path: that folder (next to the corpus, for instance)."""
    if not isinstance(cache, bool | str | os.PathLike):
        raise TypeError(f"cache={cache!r}: pass True (the user's cache folder), a folder, or False")
    if cache is True:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        return Path(base) / "prime-nb" / "corpus"
    return Path(os.fspath(cache))  # type: ignore[arg-type]


def stat_key(path: str) -> Key | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev)


def checksums(path: str, spans: list[tuple[int, int]]) -> bytes:
    """CRC-32s of the file's bytes in each ``(start, end)`` span; empty when it cannot be
    read whole there, or is no longer a regular file (a FIFO in its place is never
    waited on). A checksum, not a digest: it runs for every unchanged file of every
    call, an accidental change keeps a CRC-32 once in four billion, and these files are
    not guarded against anyone forging one."""
    try:  # a bare descriptor, without a file object's cost
        fd = os.open(path, READ_FLAGS)
    except OSError:
        return b""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return b""
        parts = [os.pread(fd, end - start, start) for start, end in spans]
    except OSError:
        return b""
    finally:
        os.close(fd)
    if any(len(part) != end - start for part, (start, end) in zip(parts, spans, strict=True)):
        return b""
    return b"".join(zlib.crc32(part).to_bytes(4, "little") for part in parts)


def ends_hash(path: str, size: int) -> bytes:
    """The first and last ``TAIL`` bytes of a file of ``size`` bytes: what a file of an
    unchanged size and mtime must still hold to be the one summarised."""
    return checksums(path, [(0, min(TAIL, size)), (max(0, size - TAIL), size)])


def tail_hash(path: str, offset: int) -> bytes:
    """The ``TAIL`` bytes before ``offset``: what a file that only grew still holds."""
    return checksums(path, [(max(0, offset - TAIL), offset)])


def summarise_for_cache(path: str, state: bytes | None) -> Record:
    """The whole summary of a file and the state to resume it; resumed from ``state``
    when given (the caller checked that the file only grew)."""
    key = stat_key(path)  # before reading: a file that grows meanwhile is resumed next time
    ends = ends_hash(path, key[0]) if key is not None else b""  # before reading, as the key
    read = None
    if state is not None:
        try:  # reads only the new bytes (or all, if the file was replaced)
            read = read_summary(path, ColumnsRead.from_bytes(state, path))
        except Exception:  # a state that no longer fits: read the file from the start
            read = None
    try:
        if read is None:
            read = read_summary(path)
        blob = read.to_bytes()
    except Exception as exc:
        return _failed(path, exc, key, ends)
    result = results_of(read, path)
    return Record(key, read.end, tail_hash(path, read.end), result, blob, ends=ends)


def _failed(path: str, exc: BaseException, key: Key | None = None, ends: bytes = b"") -> Record:
    """The record of a file that could not be summarised: its error row, no state."""
    return Record(key, -1, b"", FileResult(error_row(path, exc), [], []), None, ends=ends)


def _plan(path: str, key: Key | None, record: Record | None) -> tuple[bool, bool]:
    """(reuse the record as it is, resume from its state: the file only grew)."""
    if record is None or key is None or record.key is None:
        return False, False
    if key == record.key:  # unless rewritten in place at the same size, mtime put back
        return ends_hash(path, key[0]) == record.ends, False
    grown = (
        record.offset >= 0  # read as a session: a state was saved to resume it
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
    root: str,
    describe: Callable[[list[FileResult]], str],
) -> list[FileResult]:
    """Summaries of ``paths``, from the cache where the files did not change: every part
    of a file read now (so that the other tables are cached too), the row and ``parts``
    of a file the cache holds. ``root``: the corpus folder, whose cache file in
    ``folder`` this is (``cache_name``).

    A folder that cannot hold the cache is an error before any file is read; a cache
    that cannot be written at the end (a full disk) is a warning, and the tables are
    returned all the same."""
    usable_folder(folder)
    file = folder / cache_name(root)
    with CacheFile(file) as cache:
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
        gone = _gone(store, paths)
        if todo or gone:  # an unchanged corpus (the common re-listing) never reads the states
            cache.read_states()  # to resume the grown files, and to write every record back
    # a grown file's state, unless the states were found damaged (the store emptied)
    states = [
        getattr(store.get(paths[k]), "state", None) if resume else None
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
    )
    for k, record in zip(todo, fresh, strict=True):
        records[k] = record
        store[paths[k]] = record
    for path in gone:
        del store[path]
    if todo or gone:
        try:
            write_store(file, store)
        except OSError as exc:
            warnings.warn(
                shown_text(
                    f"the corpus cache in {folder} was not updated ({exc}); the tables are "
                    "complete, and the next call reads the changed files again"
                ),
                stacklevel=4,
            )
    return [records[k].result for k in range(len(paths))]


def _gone(store: dict[str, Record], paths: list[str]) -> list[str]:
    """Records of files that no longer exist. Records of files this call did not list
    but that are there (another pattern's files) stay."""
    listed = set(paths)
    return [path for path in store if path not in listed and not os.path.exists(path)]


#: the user's cache folders found unusable in this process, each said once
_said_unusable: set[str] = set()


def usable_cache(cache: bool | str | os.PathLike[str]) -> Path | None:
    """The cache folder, made and writable; None when the user's cache folder
    (``cache=True``) cannot be one (read-only, a file in the way): the corpus and the
    search then read every file uncached, and say so once a process. A folder the
    caller named is an error instead (:func:`usable_folder`): they asked for it."""
    folder = cache_folder(cache)
    try:
        usable_folder(folder)
    except OSError as exc:
        if cache is not True:
            raise
        if str(folder) not in _said_unusable:
            _said_unusable.add(str(folder))
            warnings.warn(
                shown_text(
                    f"{folder}: cannot hold the corpus cache ({_why_not(folder, exc)}); the "
                    "files are read without a cache (said once); set XDG_CACHE_HOME, or pass "
                    "cache= a folder you can write to"
                ),
                stacklevel=3,
            )
        return None
    return folder


def _why_not(folder: Path, exc: OSError) -> str:
    """Why ``folder`` cannot be made or written, in words."""
    blocked = any(part.is_file() for part in (folder, *folder.parents))
    return "a file of that name is in the way" if blocked else str(exc.strerror or exc)


def usable_folder(folder: Path) -> None:
    """Make the cache folder, or say plainly why it cannot be one."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".probe-"):
            pass  # the cache is written the same way: a temporary file, then a rename
    except OSError as exc:
        reason = "a file of that name is in the way" if folder.is_file() else exc.strerror
        raise type(exc)(
            shown_text(
                f"{folder}: cannot hold the corpus cache ({reason or exc}); pass cache=False, "
                "or cache= a folder you can write to"
            )
        ) from None
