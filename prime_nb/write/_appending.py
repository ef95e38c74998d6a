"""Append whole lines to a session file that a running agent appends to as well.

It is the user's only copy of the session, so:

- prime_nb's own writers take a lock file, removed after (``_locking``); the agent
  takes none, so each line goes out in one ``os.write`` on an O_APPEND descriptor (the
  kernel never interleaves two appends), looping only on a short write;
- a torn last line (a writer that died mid-line) is never merged with ours: the new
  line starts on a fresh line and a TornLineWarning names the torn one;
- after writing, the file is read again from where the last read stopped (only the
  new bytes): the entry must be there, whole, in the file that the path names now.
  The agent may rename a new file over the path at any moment; then the entry is
  written again into the new file unless it is already there (ids make that safe);
- the agent may also read the file before our write and rename its copy after our
  check. So every entry written is kept for a few minutes in an in-process journal,
  and each later append (or ``reconcile``) first writes again the ones that such a
  replacement dropped. A file changed in place (same inode, not only appended to) was
  edited on purpose by someone, so what it no longer holds is not written again;
- an entry written again goes to the end of the file, which makes it the active leaf.
  When the file now ends with another entry than the one the dropped entry followed
  (the agent has written entries of its own since), that would move the branch the
  agent resumes: it is not written, an EntryLostError names it, and
  ``reconcile(moved_leaf=...)`` decides;
- no id is ever written twice: under the lock, once the new entries are built and
  before an entry is written again, the file's bytes are searched for its id, and on a
  hit the file is read again in full before deciding (a snapshot can be stale after a
  partial rewrite that its marks do not show). The search is a plain byte scan of a
  memory map, cheap next to the write it guards.
"""

from __future__ import annotations

import errno
import mmap
import os
import stat
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

try:
    import resource
except ImportError:  # not on Windows: no file-size limit to check there
    resource = None  # type: ignore[assignment]

from .._names import shown_text
from ..errors import (
    EntryLostError,
    EntryNotFoundError,
    InvalidEntryError,
    SessionFormatError,
    SessionWriteError,
    TornLineWarning,
)
from ..format import Snapshot, current_snapshot, file_identity, forget_snapshot, not_regular
from ._building import Entry, check_refs, serialise
from ._locking import LockTimeout, take_lock

LOCK_TIMEOUT = 120.0
#: rounds of "write, then find the entry in the file at the path" before giving up
MAX_ROUNDS = 32
#: seconds an unfinished last line must stay unchanged to count as torn, not in progress
TORN_AFTER = 0.05
JOURNAL_SECONDS = 300.0
JOURNAL_ENTRIES = 4096
JOURNAL_BYTES = 64 * 1024 * 1024

REASONS = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is used up",
    errno.EFBIG: "the file-size limit was reached (ulimit -f)",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EROFS: "the file system is read-only",
}
AFTER_FAILURE = (
    "The entries already in the file are intact; nothing of this call was acknowledged, "
    "and the next append starts on a fresh line"
)

Build = Callable[[Snapshot], list[Entry]]
#: what to do with a dropped entry whose re-append would move the agent's active leaf
MovedLeaf = Literal["raise", "append", "forget"]
MOVED_LEAF = ("raise", "append", "forget")


def normalise(path: str | os.PathLike[str]) -> Path:
    """One key per file for the caches (relative and absolute spellings alike)."""
    return Path(os.path.abspath(os.fspath(path)))


def lock_path(path: Path) -> Path:
    """The lock file beside the session while a write lasts (hidden; not a .jsonl, so
    not listed as one)."""
    return path.with_name(f".{path.name}.lock")


def io_error(path: Path, exc: OSError, doing: str, tail: str = AFTER_FAILURE) -> SessionWriteError:
    reason = REASONS.get(exc.errno or 0, exc.strerror or str(exc))
    detail = f" ({exc.strerror})" if exc.strerror and exc.strerror.lower() != reason else ""
    return SessionWriteError(path, f"{doing}: {reason}{detail}. {tail}", errno=exc.errno)


def check_exists(path: Path) -> os.stat_result:
    """A clear error for a path that is no session file at all."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise FileNotFoundError(
            errno.ENOENT,
            shown_text(
                f"{path}: no such session file; check the path (prime_nb only appends to "
                "existing sessions)"
            ),
        ) from None
    except OSError as exc:
        raise io_error(path, exc, "could not look at the file", "Nothing was written") from None
    if not stat.S_ISREG(st.st_mode):
        raise not_regular(path, st.st_mode)
    return st


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Serialise prime_nb's own writers of one file (across processes and threads); the
    lock file is removed when done (``_locking`` says how, safely)."""
    try:
        lock = take_lock(lock_path(path), LOCK_TIMEOUT)
    except LockTimeout:
        raise SessionWriteError(
            path,
            f"another prime_nb writer has held the lock file {lock_path(path)} for "
            f"{LOCK_TIMEOUT:.0f} s; nothing was written. Is a notebook stuck in a write?",
            errno=errno.EAGAIN,
        ) from None
    except OSError as exc:
        raise io_error(
            path, exc, f"could not take the lock file {lock_path(path)}", "Nothing was written"
        ) from None
    try:
        yield
    finally:
        lock.release()


def fsync_dir(folder: Path) -> None:
    """Make a rename or a new file in ``folder`` durable."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP):
            raise
    finally:
        os.close(fd)


def write_all(path: Path, fd: int, data: bytes) -> None:
    """os.write until every byte is out (a short write is not an error)."""
    view = memoryview(data)
    done = 0
    try:
        while done < len(view):
            n = os.write(fd, view[done:])
            if n <= 0:
                raise OSError(errno.EIO, "write() wrote nothing")
            done += n
    except OSError as exc:
        torn = (
            f" A partial line of {done} bytes was left at the end of the file; the loader "
            "reports it as a torn line."
            if done
            else ""
        )
        raise io_error(path, exc, "could not append the entry", AFTER_FAILURE + "." + torn) from exc


def check_room(path: Path, fd: int, size: int, needed: int) -> None:
    """Refuse before writing a byte when the size limit or the free space is too small."""
    soft, _ = resource.getrlimit(resource.RLIMIT_FSIZE) if resource else (-1, -1)
    if resource and soft != resource.RLIM_INFINITY and size + needed > soft:
        raise SessionWriteError(
            path,
            f"could not append the entry: the file-size limit of this process (ulimit -f, "
            f"{soft} bytes) leaves no room for {needed} more bytes. Nothing was written; the "
            "file is intact",
            errno=errno.EFBIG,
        )
    try:
        vfs = os.fstatvfs(fd)
    except OSError:
        return
    free = (vfs.f_bfree if os.geteuid() == 0 else vfs.f_bavail) * vfs.f_frsize
    if vfs.f_blocks and free < needed:
        raise SessionWriteError(
            path,
            f"could not append the entry: the disk is full ({free} bytes free, {needed} "
            "needed). Nothing was written; the file is intact",
            errno=errno.ENOSPC,
        )


def _end_of(fd: int) -> tuple[int, bool]:
    """The file's size, and whether it ends with a newline (or is empty).

    A line that another process is writing right now can be seen half written (the
    kernel grows the file page by page), so give a growing end a moment to finish
    before calling it torn: a torn line is one that stopped growing.
    """
    start = time.monotonic()
    size = -1
    while True:
        previous, size = size, os.fstat(fd).st_size
        if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
            return size, True
        waited = time.monotonic() - start
        if (size == previous and waited >= TORN_AFTER) or waited >= 20 * TORN_AFTER:
            return size, False
        time.sleep(TORN_AFTER / 50)


def _is_at_path(fd: int, path: Path) -> bool:
    """Is the open descriptor still the file that ``path`` names (not replaced, not deleted)?"""
    try:
        named = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return held.st_nlink > 0 and file_identity(named) == file_identity(held)


@dataclass
class _Written:
    """An entry this process wrote (or is writing); ``landed`` once it was seen in the file."""

    entry: Entry
    size: int
    landed: bool = False
    #: the last entry of the file when this one was written after it (the leaf it followed)
    after: str | None = None
    #: the file (device, inode) it was seen in: that same file without it was edited
    seen_in: tuple[int, int] | None = None
    at: float = field(default_factory=time.monotonic)


_journals: dict[Path, list[_Written]] = {}


class _Appender:
    """An O_APPEND descriptor on the file at the path, with a fresh snapshot of it."""

    def __init__(self, path: Path, fsync: bool) -> None:
        self.path = path
        self.fsync = fsync
        self.fd = -1
        self.snap = self._open()
        #: ids whose presence was decided on a full reading of the file (see ``mentions``)
        self.checked: set[str] = set()

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def _open(self) -> Snapshot:
        """Open the file at the path and read it (through the descriptor, so even if
        another file is renamed over the path meanwhile, the snapshot is of this one)."""
        path = self.path
        try:
            fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CLOEXEC)
        except FileNotFoundError:
            check_exists(path)
            raise
        except IsADirectoryError:
            raise SessionFormatError(path, "is a folder; pass one session file") from None
        except OSError as exc:
            raise io_error(path, exc, "could not open the file", "Nothing was written") from exc
        try:
            held = os.fstat(fd)
            if not stat.S_ISREG(held.st_mode):
                raise not_regular(path, held.st_mode)
            if held.st_size == 0:
                raise SessionFormatError(path, "is empty, so not a session file (no header)")
            snap = current_snapshot(path, fd)
        except BaseException:
            os.close(fd)
            raise
        self.fd = fd
        return snap

    def _reopen(self) -> None:
        self.close()
        self.snap = self._open()

    def write_line(self, line: bytes) -> None:
        """One line in one write (after a newline if the file ends in a torn line)."""
        fd, path = self.fd, self.path
        try:
            size, ends_clean = _end_of(fd)
        except OSError as exc:
            raise io_error(path, exc, "could not read the end of the file") from None
        data = line
        if not ends_clean:
            data = b"\n" + line
            state = self.snap.state
            if not state.owes_newline:
                warnings.warn(
                    TornLineWarning(
                        shown_text(
                            f"{path}: line {state.line} is incomplete (no newline; a writer "
                            "probably died mid-line); the new entry starts on a fresh line "
                            "and the loader reports that line as broken"
                        )
                    ),
                    stacklevel=5,
                )
        check_room(path, fd, size, len(data))
        write_all(path, fd, data)
        if self.fsync:
            try:
                os.fsync(fd)
            except OSError as exc:
                raise io_error(
                    path, exc, "the entry was written but could not be flushed to disk (fsync)"
                ) from exc

    def mentions(self, entry_id: str) -> bool:
        """Do the file's bytes hold ``"entry_id"`` anywhere (as an id, or in some text)?

        The snapshot knows the ids as of its last reading and then reads only appended
        bytes; a file partly rewritten in place can hold ids it never saw. A byte search
        of the whole file (memchr speed) is the check at the moment of the write.
        """
        try:
            size = os.fstat(self.fd).st_size
            if size == 0:
                return False
            with mmap.mmap(self.fd, size, access=mmap.ACCESS_READ) as view:
                return view.find(b'"' + entry_id.encode() + b'"') >= 0
        except (OSError, ValueError):
            return True  # cannot tell: read the file again in full, to be exact

    def rescan(self) -> None:
        """Read the whole file again, ignoring the cached reading."""
        old = self.snap
        forget_snapshot(self.path)
        self.snap = current_snapshot(self.path, self.fd)
        stale = any(self.snap.parents.get(k, k) != v for k, v in old.parents.items())
        if stale and old.identity == self.snap.identity:
            self.snap.rewritten_in_place = True  # changed in place, not only appended to

    def unseen(self, entry_ids: list[str]) -> bool:
        """Are these ids absent from the file as it is now (reading it again if needed)?"""
        doubtful = [i for i in entry_ids if i not in self.checked and self.mentions(i)]
        if not doubtful:
            return True
        self.rescan()
        self.checked.update(doubtful)
        return not any(i in self.snap for i in doubtful)

    def settle(self) -> bool:
        """After a write: read the new bytes. False if the path names another file now."""
        if _is_at_path(self.fd, self.path):
            self.snap = current_snapshot(self.path, self.fd)
            return True
        self._reopen()
        return False

    def sync(
        self, journal: list[_Written], moved_leaf: MovedLeaf = "raise"
    ) -> tuple[list[_Written], list[str], list[_Written]]:
        """Make every journal entry present, whole, in the file at the path, in order.

        Returns the entries that can no longer be written (their parent is gone from
        a file that replaced ours), the ids written again into a replacement, and the
        entries held back because writing them again would move the active leaf away
        from entries written since by someone else (``moved_leaf="raise"``; they stay
        in the journal for ``reconcile``).
        """
        lost: list[_Written] = []
        again: list[str] = []
        for _ in range(MAX_ROUNDS):
            held: list[_Written] = []
            held_ids: set[str] = set()
            for item in list(journal):
                entry = item.entry
                entry_id = entry["id"]
                if entry_id in self.snap:
                    item.landed, item.seen_in = True, self.snap.identity
                    continue
                if held_ids & _refs(entry):  # names an entry held back (or forgotten): same
                    held_ids.add(entry_id)
                    if moved_leaf == "forget":
                        journal.remove(item)
                    else:
                        held.append(item)
                    continue
                try:
                    check_refs(self.snap, entry, {})
                    line = serialise(entry, self.snap)
                except (EntryNotFoundError, InvalidEntryError):
                    journal.remove(item)
                    lost.append(item)
                    continue
                if item.landed and item.after != self.snap.last_id and moved_leaf != "append":
                    held_ids.add(entry_id)
                    if moved_leaf == "forget":
                        journal.remove(item)
                    else:
                        held.append(item)
                    continue
                if not self.unseen([entry_id]):
                    break  # the file holds it after all (read again in full): look again
                if not item.landed:
                    item.after = self.snap.last_id
                self.write_line(line)
                if item.landed:
                    again.append(entry_id)
                if not self.settle():
                    break  # replaced: check everything against the new file
                if entry_id not in self.snap:
                    break  # not whole (a torn line swallowed it?): write it again
                item.landed, item.seen_in = True, self.snap.identity
            else:
                return lost, again, held
        raise SessionWriteError(
            self.path,
            f"gave up after {MAX_ROUNDS} attempts: the file kept being replaced, or our "
            "lines kept being torn, while we wrote",
        )


def _refs(entry: Entry) -> set[str]:
    """The ids an entry names (parent, label target, branch start)."""
    refs = (entry.get("parentId"), entry.get("targetId"), entry.get("fromId"))
    return {r for r in refs if isinstance(r, str)}


def _forget_if_edited(snap: Snapshot, journal: list[_Written]) -> None:
    """A file changed in place was edited on purpose (the agent only appends or renames):
    entries missing from it were removed, not lost, so they are not written again."""
    if snap.rewritten_in_place:
        journal.clear()
        snap.rewritten_in_place = False
        return
    # the cached reading that would have told (dropped by upgrade_file, or by reading
    # many other files) is not needed: an entry seen in this very file and gone from it
    journal[:] = [
        item for item in journal if item.seen_in != snap.identity or item.entry["id"] in snap
    ]


def _trim(journal: list[_Written]) -> None:
    """Forget old entries: a replacement that drops them would have been seen by now."""
    now = time.monotonic()
    total = sum(item.size for item in journal)
    while journal and (
        now - journal[0].at > JOURNAL_SECONDS
        or len(journal) > JOURNAL_ENTRIES
        or total > JOURNAL_BYTES
    ):
        total -= journal.pop(0).size


def _lost_error(path: Path, lost: list[_Written], new: list[_Written]) -> EntryLostError:
    mine = {id(item) for item in new}
    earlier = [item.entry["id"] for item in lost if id(item) not in mine]
    now = [item.entry["id"] for item in lost if id(item) in mine]
    parts = []
    if earlier:
        parts.append(f"entries written earlier from this process ({', '.join(earlier)})")
    if now:
        parts.append(f"entries of this call ({', '.join(now)})")
    return EntryLostError(
        path,
        "another program replaced the file with one that lacks "
        + " and ".join(parts)
        + " and the entries they hang from, so they cannot be written again; their "
        "content is in this exception's .entries: append them again where they belong",
        [item.entry for item in lost],
    )


def _moved_leaf_error(
    path: Path, held: list[_Written], last_id: str | None, written: list[str] | None = None
) -> EntryLostError:
    ids = ", ".join(item.entry["id"] for item in held)
    error = EntryLostError(
        path,
        f"another program replaced the file without entries written earlier from this "
        f"process ({ids}) and has written entries of its own since (the last one is "
        f"{last_id!r}). Written again at the end, they would become the branch the agent "
        "resumes, so nothing was written. Call "
        f"prime_nb.reconcile({str(path)!r}, moved_leaf='append') to write them anyway, or "
        "moved_leaf='forget' to drop them (their content is in this exception's .entries)",
        [item.entry for item in held],
    )
    error.written = list(written or [])
    return error


def append_entries(path: str | os.PathLike[str], build: Build, *, fsync: bool = True) -> list[str]:
    """Build entries against the file as it is now, under the lock, and append them.

    ``build`` gets the fresh snapshot and returns canonical entries with their ids;
    all are checked and serialised before the first byte is written.
    """
    file = normalise(path)
    check_exists(file)
    with locked(file):
        appender = _Appender(file, fsync)
        try:
            journal = _journals.setdefault(file, [])
            _forget_if_edited(appender.snap, journal)
            lost, _, held = appender.sync(journal)
            if lost:
                raise _lost_error(file, lost, [])
            if held:
                raise _moved_leaf_error(file, held, appender.snap.last_id)
            entries = build(appender.snap)
            if not appender.unseen([entry["id"] for entry in entries]):
                entries = build(appender.snap)  # drawn against a stale reading: draw again
            # drawn against the file as it is now (under the lock, where only the agent
            # writes, and never our ids): no second search before each line goes out
            appender.checked.update(entry["id"] for entry in entries)
            snap = appender.snap
            pending: dict[str, str | None] = {}
            new: list[_Written] = []
            for entry in entries:
                check_refs(snap, entry, pending)
                new.append(_Written(entry, len(serialise(entry, snap))))
                pending[entry["id"]] = entry.get("parentId")
            journal.extend(new)
            try:
                lost, _, held = appender.sync(journal)
            except BaseException as exc:  # an I/O error, or an interrupt from the notebook
                if isinstance(exc, SessionWriteError):
                    exc.written = [w.entry["id"] for w in new if w.entry["id"] in appender.snap]
                journal[:] = [w for w in journal if w.landed]  # the rest was not acknowledged
                raise
            if lost:
                error = _lost_error(file, lost, new)
                gone = {id(w) for w in lost}
                error.written = [w.entry["id"] for w in new if id(w) not in gone]
                raise error
            if held:
                kept = {id(w) for w in held}
                written = [w.entry["id"] for w in new if id(w) not in kept]
                raise _moved_leaf_error(file, held, appender.snap.last_id, written)
            _trim(journal)
            return [entry["id"] for entry in entries]
        finally:
            appender.close()


def reconcile(
    path: str | os.PathLike[str], *, moved_leaf: MovedLeaf = "raise", fsync: bool = True
) -> list[str]:
    """Write again the entries this process appended that a replacement of the file dropped.

    Every append does this first; call it after the last append when another program
    may have replaced the file meanwhile. Returns the ids written again.

    An entry written again lands at the end of the file, so it becomes the active leaf.
    If someone else has appended since the replacement, that moves the branch the agent
    resumes: by default (``"raise"``) such entries are not written and an EntryLostError
    names them; ``"append"`` writes them anyway, ``"forget"`` drops them.
    """
    if moved_leaf not in MOVED_LEAF:
        raise ValueError(f"moved_leaf must be one of {', '.join(map(repr, MOVED_LEAF))}")
    file = normalise(path)
    journal = _journals.get(file)
    if not journal:
        return []
    check_exists(file)
    with locked(file):
        appender = _Appender(file, fsync)
        try:
            _forget_if_edited(appender.snap, journal)
            lost, again, held = appender.sync(journal, moved_leaf)
            last_id = appender.snap.last_id
        finally:
            appender.close()
    if lost:
        raise _lost_error(file, lost, [])
    if held:
        raise _moved_leaf_error(file, held, last_id, again)
    _trim(journal)
    return again
