"""Whole-file writes: upgrade a v1/v2 file to v3 in place, and create a new file whole.

Both write a temp file in the destination folder, flush it, and only then give it its
name, so a crash leaves either the old state or the new one, never half a file.
``upgrade_file`` is the only operation in prime_nb that replaces a session file.
"""

from __future__ import annotations

import copy
import errno
import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import orjson

from .._names import shown_text
from ..errors import SessionFormatError, SessionWriteError
from ..format import (
    BOM,
    CURRENT_VERSION,
    Migrator,
    Problem,
    dialect_of_header,
    file_identity,
    first_not_header,
    forget_snapshot,
    iter_entries,
    line_id,
    open_regular,
    parse_line,
    renamed_id,
)
from ._appending import check_exists, fsync_dir, io_error, locked, normalise, write_all
from ._building import rlm_depth, valid_rlm_depth

PathLike = str | os.PathLike[str]
#: attempts when the agent replaces the file while we upgrade it
UPGRADE_ROUNDS = 8


# -- upgrade ---------------------------------------------------------------------------


class _Upgrader:
    """Rewrites lines one by one: ids as the loader names them, roles renamed as in v3.

    Entries that need no change keep their exact bytes; lines that do not parse are
    kept as they are (the loader keeps reporting them; the backup has them too).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.line = 1
        self.offset = 0
        self.header: dict[str, Any] | None = None
        self.migrator: Migrator | None = None
        self.used: set[str] = set()

    @property
    def version(self) -> int:
        assert self.migrator is not None
        return self.migrator.version

    def feed(self, src: IO[bytes], emit: Callable[[bytes], object], final: bool) -> None:
        """Rewrite the complete lines after ``self.offset``; a torn tail only if ``final``."""
        src.seek(self.offset)
        while raw := src.readline():
            if not raw.endswith(b"\n"):
                obj, problem = parse_line(raw, self.line)
                if obj is None and not final:
                    break  # maybe a writer mid-line: look again after the rename
                out = self._rewrite(raw, obj, problem)
            else:
                obj, problem = parse_line(raw[:-1], self.line)
                out = self._rewrite(raw[:-1], obj, problem)
            if out is not None:
                emit(out + b"\n")
            self.offset += len(raw)
            self.line += 1

    def _rewrite(
        self, raw: bytes, obj: dict[str, Any] | None, problem: Problem | None = None
    ) -> bytes | None:
        if obj is None:
            if problem is not None and problem.kind == "missing_type" and self.migrator:
                return self._typeless(raw)
            return None if not raw.strip(b"\r\n\t " + BOM) else raw  # junk stays, blanks go
        kind = obj["type"]
        if self.header is None:
            if kind not in ("session", "header"):
                raise first_not_header(self.path, self.line, kind)
            self.header = obj
            self.migrator = Migrator(obj)
            out = {**obj, "version": CURRENT_VERSION}
            if obj.get("parentSession") and not valid_rlm_depth(obj.get("rlmDepth")):
                out["rlmDepth"] = rlm_depth(obj, self.path)  # as the agent migrates it
            return orjson.dumps(out)
        if kind in ("session", "header"):
            assert self.migrator is not None
            self.migrator.skip(typeless=False)  # a v1 compaction's index counts it
            return raw  # a second header: the loader ignores it, so do we
        assert self.migrator is not None
        version = self.version
        migrated = self.migrator.apply(copy.deepcopy(obj))
        entry_id = self._loader_id(migrated.get("id"))
        out = dict(obj)
        changed = False
        if version < 2:
            out["id"] = entry_id
            out["parentId"] = migrated.get("parentId")
            if "firstKeptEntryIndex" in out and "firstKeptEntryIndex" not in migrated:
                del out["firstKeptEntryIndex"]
                out["firstKeptEntryId"] = migrated.get("firstKeptEntryId")
            changed = True
        elif out.get("id") != entry_id:
            out["id"] = entry_id
            changed = True
        message = out.get("message")
        if isinstance(message, dict) and message.get("role") == "hookMessage":
            out["message"] = {**message, "role": "custom"}
            changed = True
        if kind == "hookMessage" and dialect_of_header(self.header) == "spec":
            out["type"] = "custom"
            changed = True
        return orjson.dumps(out) if changed else raw

    def _typeless(self, raw: bytes) -> bytes:
        """A JSON object without a string ``type``. The loader skips it (and reports it);
        in a v1 file it still gets an id, as the agent's migration gives it one, so that
        no line of the new file lacks an id. Its parent is the entry before it and it has
        no children: the entries around it stay chained, as the loader reads them."""
        assert self.migrator is not None
        index = len(self.migrator.ids_by_index)
        self.migrator.skip(typeless=True)
        if self.version >= 2:
            return raw
        text = raw.rstrip(b"\r").removeprefix(BOM)
        try:
            obj = orjson.loads(text)
        except orjson.JSONDecodeError:  # invalid UTF-8: read as the loader repairs it
            obj = orjson.loads(text.decode("utf-8", errors="replace"))
        entry_id = self.migrator.fresh_id(index)
        self.migrator.used.add(entry_id)
        return orjson.dumps({**obj, "id": entry_id, "parentId": self.migrator.previous_id})

    def _loader_id(self, entry_id: Any) -> str:
        """The id the loader gives this entry (as prime_nb.session._columns names it)."""
        name = entry_id if isinstance(entry_id, str) and entry_id else line_id(self.line)
        if name in self.used:
            name = renamed_id(name, self.line, self.used)
        self.used.add(name)
        return name


@contextmanager
def _temp_beside(path: Path, suffix: str) -> Iterator[tuple[IO[bytes], Path]]:
    """A new hidden file in ``path``'s folder, open for writing (so renaming or linking
    it to ``path`` stays on one file system); whatever is left of it at the end (the
    caller gave up, failed, or linked it) is removed."""
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=suffix, dir=path.parent)
    tmp = Path(name)
    try:
        with open(fd, "wb") as out:
            yield out, tmp
    finally:
        if tmp.exists():
            tmp.unlink()


def _seal(out: IO[bytes], mode: int) -> None:
    """Flush ``out`` to disk with ``mode``, and close it: done before it takes its name."""
    out.flush()
    os.fchmod(out.fileno(), mode)
    os.fsync(out.fileno())
    out.close()


def _backup_name(path: Path, version: int) -> Path:
    candidate = path.with_name(f"{path.name}.v{version}.bak")
    n = 1
    while os.path.lexists(candidate):
        candidate = path.with_name(f"{path.name}.v{version}.{n}.bak")
        n += 1
    return candidate


def _keep_backup(path: Path, version: int) -> Path:
    """The original under a backup name: a hard link (instant, the very same bytes)."""
    backup = _backup_name(path, version)
    try:
        os.link(path, backup)
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EXDEV, errno.EMLINK):
            raise
        import shutil

        shutil.copy2(path, backup)
    return backup


def _upgrade_once(path: Path, backup: bool) -> bool:
    """One attempt; False if the file was replaced by another program meanwhile."""
    with open_regular(path) as src:
        held = os.fstat(src.fileno())
        first = next(iter_entries(path), None)
        if first is None:
            raise SessionFormatError(path, "no session header; is this a session file?")
        if first.entry["type"] not in ("session", "header"):
            raise first_not_header(path, first.line, first.entry["type"])
        if Migrator(first.entry).version >= CURRENT_VERSION:
            return True  # nothing to do
        upgrader = _Upgrader(path)
        with _temp_beside(path, ".upgrade") as (out, tmp):
            upgrader.feed(src, out.write, final=False)
            if upgrader.header is None or upgrader.version >= CURRENT_VERSION:
                return False  # replaced between our two reads: look again
            _seal(out, stat.S_IMODE(held.st_mode))
            if file_identity(os.stat(path)) != file_identity(held):
                return False
            if backup:
                _keep_backup(path, upgrader.version)
            os.rename(tmp, path)
        fsync_dir(path.parent)
        # lines the agent appended to the old file after our last read
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
        try:
            upgrader.feed(src, lambda line: write_all(path, fd, line), final=True)
            os.fsync(fd)
        finally:
            os.close(fd)
    return True


def upgrade_file(path: PathLike, backup: bool = True) -> Path:
    """Rewrite a version 1 or 2 session file as version 3; returns its path.

    Ids are written in as the loader derives them, so a loaded session keeps its ids.
    The original stays beside it as ``<name>.v<version>.bak`` unless ``backup=False``.
    A version 3 file is left as it is. This is the only call that rewrites a file:
    a temp file in the same folder, flushed, renamed over the original, folder flushed.
    """
    file = normalise(path)
    check_exists(file)
    with locked(file):
        try:
            for _ in range(UPGRADE_ROUNDS):
                if _upgrade_once(file, backup):
                    return file
        except OSError as exc:
            if isinstance(exc, FileNotFoundError | SessionWriteError):
                raise
            raise io_error(
                file, exc, "could not upgrade the file", "The original file is unchanged"
            ) from exc
        finally:
            forget_snapshot(file)
    raise io_error(
        file,
        OSError(errno.EAGAIN, "the file kept being replaced"),
        "could not upgrade the file",
        "The original file is unchanged",
    )


def write_new_file(dest: Path, lines: list[bytes], mode: int) -> None:
    """Create ``dest`` whole or not at all, never over an existing file."""
    with _temp_beside(dest, ".tmp") as (out, tmp):
        for line in lines:
            out.write(line)
        _seal(out, mode)
        try:
            os.link(tmp, dest)
        except FileExistsError:
            raise FileExistsError(
                errno.EEXIST,
                shown_text(f"{dest}: already exists; pass another dest (nothing written)"),
            ) from None
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EMLINK):
                raise
            if os.path.lexists(dest):
                raise FileExistsError(errno.EEXIST, shown_text(f"{dest}: already exists")) from None
            os.rename(tmp, dest)
    fsync_dir(dest.parent)
