"""The lock that serialises prime_nb's own writers of one session file, gone when done.

The lock is a hidden file beside the session (``.NAME.jsonl.lock``), locked with
``flock``: beside it, because every process that may write the session (any user, any
machine sharing the folder) sees the same folder, and a lock elsewhere would be keyed
by a path that symlinks or bind mounts spell differently. It must not stay there after
the write: the folder is the user's (often the agent's own sessions folder).

Removing a lock file is racy with plain ``flock``: a waiter that opened the file before
the holder removed it goes on to lock a file that no longer has a name, while a newcomer
creates and locks a new one, and both write. So the holder removes the file while it
still holds it, and whoever
takes a lock checks that the file it locked is still the one at the path (same device
and inode); if not, it lets go and tries again. Whoever holds the lock on the file the
path names is the only writer, and only that holder removes it.

Where ``flock`` is missing (Windows), filelock's lock is used; it removes its file too.
"""

from __future__ import annotations

import errno
import os
import time
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # Windows: filelock's own lock
    fcntl = None  # type: ignore[assignment]

__all__ = ["HeldLock", "LockTimeout", "take_lock"]

#: seconds between two tries of a held lock
POLL = 0.005
#: how a lock file is created (the session's users read it; its content is empty)
MODE = 0o644
_BUSY = frozenset({errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK})


class LockTimeout(Exception):
    """Another writer held the lock for the whole timeout."""


class HeldLock:
    """A lock taken by :func:`take_lock`; :meth:`release` removes its file and lets go."""

    def __init__(self, path: Path, fd: int = -1, other: Any = None) -> None:
        self.path = path
        self.fd = fd
        #: where flock is missing: filelock's lock, held
        self.other = other

    def release(self) -> None:
        if self.other is not None:  # pragma: no cover - Windows
            self.other.release()
        elif self.fd >= 0:
            _release(self.path, self.fd)
            self.fd = -1


def take_lock(path: Path, timeout: float) -> HeldLock:
    """Take the lock file ``path`` (created if need be). Raises LockTimeout after
    ``timeout`` seconds of waiting, OSError when the file cannot be created or locked."""
    if fcntl is None:  # pragma: no cover - Windows
        from filelock import FileLock, Timeout

        other = FileLock(path, timeout=timeout)
        try:
            other.acquire()
        except Timeout:
            raise LockTimeout(str(path)) from None
        return HeldLock(path, other=other)
    return HeldLock(path, _acquire(path, time.monotonic() + timeout))


def _acquire(path: Path, deadline: float) -> int:
    """A descriptor holding the lock on the file ``path`` names now."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, MODE)
        try:
            while not _try_lock(fd):
                if time.monotonic() >= deadline:
                    raise LockTimeout(str(path))
                time.sleep(POLL)
            if _names(path, fd):
                return fd
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)  # the last holder removed the file we locked: lock the new one


def _try_lock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno in _BUSY:
            return False
        raise
    return True


def _names(path: Path, fd: int) -> bool:
    """Does ``path`` name the very file open on ``fd``?"""
    try:
        named = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)


def _release(path: Path, fd: int) -> None:
    """Remove the lock file while still holding it, then let go: a waiter on this file
    finds it gone and takes the next one. A file someone else put at the path (it was
    removed by hand meanwhile) is left alone."""
    try:
        if _names(path, fd):
            os.unlink(path)
    except OSError:
        pass  # a folder that forbids removing: the file stays, the lock still works
    finally:
        os.close(fd)
