"""What a session file holds right now: its ids, parents and active leaf.

Appends are checked against the file as it is on disk at write time, not as a
notebook last loaded it (the agent may have appended since). Re-reading a big file
before every append would be slow, so the last reading of each file is cached and
only the bytes appended since are read again. The cache is keyed by the file's
identity (device, inode) and keeps a descriptor open on the file it read: inode
numbers are reused once a file is gone, and the open descriptor keeps the number
from going to a file renamed over the path later.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._dialect import SPEC_TO_PRIME, Dialect, dialect_of_header
from ._migrating import header_version
from ._no_header import no_header
from ._reading import RawEntry, ScanState, first_not_header, scan

Identity = tuple[int, int]
MARK = 64


@dataclass
class Snapshot:
    """Ids and parents of one file, as of the last scan (header first, then entries)."""

    path: Path
    identity: Identity
    header: dict[str, Any] | None = None
    #: raw ids and their parent ids (first occurrence wins, as in the loader)
    parents: dict[str, str | None] = field(default_factory=dict)
    #: raw id of the last entry in file order that has one (the active leaf)
    last_id: str | None = None
    #: for the spec dialect: canonical type -> the type name this file uses for it
    type_names: dict[str, str] = field(default_factory=dict)
    state: ScanState = field(default_factory=ScanState)
    #: a read-only descriptor on the file read, so that its inode number stays its own
    pin: int = -1
    #: the first and the last bytes read: a file rewritten in place reads afresh
    marks: bytes = b""
    #: this reading replaced one of the same file, changed in place (not by appends):
    #: someone edited the file on purpose (the agent only appends or renames)
    rewritten_in_place: bool = False

    def _read_marks(self, fd: int) -> bytes:
        """The first and the last bytes of what was read (``ends``: never past it, so a
        short file that grew still matches)."""
        return ends(fd, self.state.offset, MARK)

    def matches(self, fd: int, identity: Identity, size: int) -> bool:
        """Is the file behind ``fd`` still the one read, grown by appends only?"""
        return (
            identity == self.identity
            and size >= self.state.offset
            and self._read_marks(fd) == self.marks
        )

    @property
    def dialect(self) -> Dialect:
        return dialect_of_header(self.header or {})

    @property
    def version(self) -> int:
        """The version as the loader reads it (``header_version``): a file it reads with
        its ids is one the writers append to."""
        return header_version(self.header)[0] if self.header is not None else 1

    def __contains__(self, entry_id: object) -> bool:
        return entry_id in self.parents

    def ancestors(self, entry_id: str | None, pending: dict[str, str | None]) -> list[str]:
        """Ids from ``entry_id`` up to its root; ``pending`` adds entries not yet written."""
        out: list[str] = []
        seen: set[str] = set()
        current = entry_id
        while current is not None and current not in seen:
            if current in pending:
                parent = pending[current]
            elif current in self.parents:
                parent = self.parents[current]
            else:
                break  # an orphan's missing parent: the loader makes the orphan a root
            seen.add(current)
            out.append(current)
            current = parent
        return out

    def consume(self, items: Any) -> None:
        """Fold scanned lines into the snapshot (header check as in the loader)."""
        for item in items:
            if not isinstance(item, RawEntry):
                continue
            obj = item.entry
            kind = obj["type"]
            if self.header is None:
                if kind not in ("session", "header"):
                    raise first_not_header(self.path, item.line, kind)
                self.header = obj
                continue
            if kind in ("session", "header"):
                continue
            self.type_names.setdefault(SPEC_TO_PRIME.get(kind, kind), kind)
            entry_id = obj.get("id")
            if isinstance(entry_id, str) and entry_id:
                parent = obj.get("parentId")
                if not isinstance(parent, str) or not parent or parent == entry_id:
                    parent = None
                self.parents.setdefault(entry_id, parent)
                self.last_id = entry_id


_cache: dict[Path, Snapshot] = {}
_cache_lock = threading.Lock()
CACHED_FILES = 32


def current(path: Path, fd: int) -> Snapshot:
    """The file at ``path`` as it is now, reading only what was appended since last time.

    ``fd`` is the caller's open descriptor: the file read is that one, even if another
    file was renamed over the path meanwhile (the caller checks the path after writing).
    """
    held = os.fstat(fd)
    seen = ends(fd, held.st_size, MARK)
    identity = identity_of(held)
    with _cache_lock:
        snap = _cache.pop(path, None)
    if snap is None or not snap.matches(fd, identity, held.st_size):
        in_place = snap is not None and snap.identity == identity  # exact: snap.pin held it
        if snap is not None:
            os.close(snap.pin)
        snap = Snapshot(path, identity, pin=os.dup(fd), rewritten_in_place=in_place)
    try:
        snap.consume(scan(by_descriptor(snap.pin, path), snap.state))
        snap.marks = snap._read_marks(fd)
        if written_while_read(fd, held, seen, MARK):
            snap.marks = b""  # never matches: the next call reads the file afresh
    except BaseException:
        os.close(snap.pin)
        raise
    if snap.header is None:
        error = no_header(path, snap.pin)
        os.close(snap.pin)
        raise error
    with _cache_lock:
        _cache[path] = snap
        while len(_cache) > CACHED_FILES:
            os.close(_cache.pop(next(iter(_cache))).pin)
    return snap


def by_descriptor(fd: int, path: Path) -> str | Path:
    """A name that opens the very file behind ``fd`` (Linux, macOS, BSD); else the path."""
    for folder in ("/proc/self/fd", "/dev/fd"):
        if os.path.isdir(folder):
            return f"{folder}/{fd}"
    return path


def ends(fd: int, end: int, size: int) -> bytes:
    """The first ``size`` bytes of the file behind ``fd`` and the ``size`` bytes before
    ``end``: the marks that tell a file grown by appends from one rewritten in place."""
    return os.pread(fd, min(size, end), 0) + os.pread(fd, min(size, end), max(0, end - size))


def written_while_read(fd: int, before: os.stat_result, seen: bytes, size: int) -> bool:
    """Was the file behind ``fd`` changed, other than by appends, while it was read?

    ``before`` is its fstat and ``seen`` its ``ends(fd, before.st_size, size)``, both
    taken before the read. Why: marks read after a read describe the file as it is then,
    so a rewrite in place between the two would pass for the file read, and every later
    refresh would take it for that file grown by appends; a reader told so marks its
    reading stale instead. A shorter file, a new mtime or ctime at the same size (an
    mtime put back moves the ctime), or other bytes at either end of what was there
    before, all say it was rewritten.
    """
    now = os.fstat(fd)
    if now.st_size < before.st_size:
        return True
    if now.st_size == before.st_size and (now.st_mtime_ns, now.st_ctime_ns) != (
        before.st_mtime_ns,
        before.st_ctime_ns,
    ):
        return True
    return ends(fd, before.st_size, size) != seen


def forget(path: Path) -> None:
    """Drop the cached reading of ``path`` (after rewriting it)."""
    with _cache_lock:
        snap = _cache.pop(path, None)
    if snap is not None:
        os.close(snap.pin)


def identity_of(stat: os.stat_result) -> Identity:
    return (stat.st_dev, stat.st_ino)
