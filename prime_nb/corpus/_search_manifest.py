"""The search index's manifest: what each indexed path was when read, and where its rows are.

``manifest.json`` maps each path to ``[size, mtime_ns, inode, device, segment,
session_id, error, ends]``: the stat key and ``ends`` (CRC-32s of the file's first and
last 4 KiB, as the corpus cache keeps them) say whether the file is still the one read;
``segment`` names the segment holding its rows (None: none), ``error`` why it could not be
read. Why each entry is checked: the cache folder is a file system like any other, so a
manifest may be damaged, hand-edited or hostile. Only a regular file is read (a symlink
there is not followed, a FIFO never waited on); an entry whose values are not of these
types, or whose segment is not a plain name this index gives (no ``..``, no absolute or
numeric name), is dropped, and its file is read again: nothing outside the index folder
is ever opened through it. A manifest larger than its listing can need
(:func:`manifest_budget`) is not parsed at all but rebuilt: reading one costs time in
proportion to the files searched, never to what a hostile manifest holds.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Collection
from pathlib import Path
from typing import Any

from .._version import __version__
from ._search_segment import is_segment_name, open_plain

#: the index's layout; bump it when a segment's columns or the manifest change
INDEX_LAYOUT = 3
#: what a manifest entry holds, in order (see the module docstring)
ENTRY = ("size", "mtime_ns", "inode", "device", "segment", "session_id", "error", "ends")
Entry = list[Any]
#: bytes a manifest may hold whatever it lists, and more per listed path: a path name of
#: 4 KiB written with JSON's escapes fits, and so do files indexed by earlier searches
#: of other files below the same folder (entries for files no longer listed)
BUDGET_BASE = 1 << 20
BUDGET_PER_PATH = 8 << 10


def manifest_budget(listed: int) -> int:
    """The most bytes a manifest for a listing of ``listed`` paths is read at."""
    return BUDGET_BASE + BUDGET_PER_PATH * listed


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _text(value: object) -> bool:
    return value is None or isinstance(value, str)


def valid_entry(path: object, entry: object) -> bool:
    """Is ``entry`` one this index writes for ``path``?"""
    if not isinstance(path, str) or not isinstance(entry, list) or len(entry) != len(ENTRY):
        return False
    *key, segment, session_id, error, ends = entry
    return (
        all(map(_whole, key))
        and (segment is None or is_segment_name(segment))
        and _text(session_id)
        and _text(error)
        and isinstance(ends, str)
    )


def _read(file: Path, budget: int | None) -> Any:
    """The manifest's JSON, or None when there is none that can be read as a manifest
    (over ``budget`` bytes: not read); anything but a regular file in its place is
    removed (the index writes its own)."""
    try:
        fd = open_plain(file)
    except FileNotFoundError:
        return None
    except OSError:  # a symlink, FIFO, device or socket: never followed or waited on
        _remove(file)
        return None
    try:
        with os.fdopen(fd, "rb") as fh:
            if budget is not None and os.fstat(fh.fileno()).st_size > budget:
                return None  # more than any listing of this size needs: rebuilt
            return json.loads(fh.read() if budget is None else fh.read(budget + 1))
    except (OSError, ValueError, RecursionError):  # nested past Python's stack: damaged
        return None


def _manifest_bytes(files: dict[str, Entry]) -> bytes:
    held = {"layout": INDEX_LAYOUT, "version": __version__, "files": files}
    return json.dumps(held).encode("utf-8")


def _remove(file: Path) -> None:
    with contextlib.suppress(OSError):  # a folder in the way stays (the save says so)
        os.unlink(file)


def load_manifest(folder: Path, listed: int | None = None) -> dict[str, Entry]:
    """Each indexed path's entry (:data:`ENTRY`), the entries that are not as written
    left out. An index of another layout or version of prime_nb (or none that can be
    read, or one over :func:`manifest_budget` for ``listed`` paths) is emptied, its
    segments deleted, to be made anew."""
    return read_manifest(folder, listed)[0]


def read_manifest(folder: Path, listed: int | None = None) -> tuple[dict[str, Entry], bool]:
    """:func:`load_manifest`, and whether the manifest on disk differs from what it gives
    (entries dropped, or none read): then it is worth saving even if no file changed."""
    budget = None if listed is None else manifest_budget(listed)
    held = _read(folder / "manifest.json", budget)
    if (
        isinstance(held, dict)
        and held.get("layout") == INDEX_LAYOUT
        and held.get("version") == __version__
        and isinstance(held.get("files"), dict)
    ):
        files = held["files"]
        kept = {path: entry for path, entry in files.items() if valid_entry(path, entry)}
        return kept, len(kept) != len(files)
    for leftover in folder.glob("*.arrow*"):
        _remove(leftover)
    return {}, held is not None or (folder / "manifest.json").exists()


def save_manifest(folder: Path, files: dict[str, Entry], listed: Collection[str] = ()) -> None:
    """The manifest, whole or not at all (a temporary file, then a rename); then the
    segments no entry names are deleted. Entries of files not ``listed`` (indexed by
    earlier searches) are kept only while the manifest stays within the budget of the
    listing, so that the next search of it reads the manifest (see the module docstring)."""
    data = _manifest_bytes(files)
    if listed and len(data) > manifest_budget(len(listed)):
        files = {path: entry for path, entry in files.items() if path in listed}
        data = _manifest_bytes(files)
    handle, part = tempfile.mkstemp(prefix=".manifest-", suffix=".json", dir=folder)
    try:
        with os.fdopen(handle, "wb") as fh:
            fh.write(data)
        os.replace(part, folder / "manifest.json")
    except BaseException:
        _remove(Path(part))
        raise
    live = {entry[4] for entry in files.values()}
    for segment in folder.glob("*.arrow"):
        if segment.name not in live:
            _remove(segment)
