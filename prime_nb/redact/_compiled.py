"""Hyperscan databases kept compiled in the user's cache folder, checked before use.

Why: every process that redacts compiles redaction's literal sets, which costs more
than the rest of a small file's redaction (see benchmarks/README.md). A compiled database is saved
(``hyperscan.dumpb``) under a name made from everything that went into it: the
expressions, ids, flags, extensions, and the versions of Hyperscan and of the platform.
A saved file is read only when it is a regular file of a sane size, owned by this user
and writable by no one else, whose header names that same key and whose payload has the
SHA-256 the header records, so a damaged or cut file never reaches Hyperscan's loader,
nor one another user could have written; one that passes and is still not this build's
is refused by the loader's own checks or by a trial scan (a database built for another
CPU refuses to scan). Any failure compiles the database as before; a folder that cannot
be written is no error.
"""

from __future__ import annotations

import hashlib
import os
import platform
import stat
import tempfile
from pathlib import Path
from typing import Any

import hyperscan

#: the start of every saved database, then the key (32 bytes), then the payload's digest
MAGIC = b"prime-nb hyperscan 1\n"
#: the largest saved database read (redaction's are well under a megabyte)
MAX_BYTES = 64 << 20
#: how a saved database is opened: read only, and at once even if a FIFO is there now
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


#: what a database is built for besides its expressions
_BUILD = (getattr(hyperscan, "__version__", ""), platform.machine(), platform.system())
hashlib.sha256(b"")  # the digest's first use sets OpenSSL up: at import, not in a walk


def cache_folder() -> Path | None:
    """Where compiled databases are kept, as ``PRIME_NB_HYPERSCAN_CACHE`` says: unset,
    empty or ``1``, the user's cache folder ($XDG_CACHE_HOME or ~/.cache, then
    prime-nb/hyperscan); ``0``, nowhere (each process compiles); a path, that folder."""
    setting = os.environ.get("PRIME_NB_HYPERSCAN_CACHE", "")
    if setting == "0":
        return None
    if setting not in ("", "1"):
        return Path(setting)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "prime-nb" / "hyperscan"


def database_key(expressions: list[bytes], ids: list[int], flags: list[int], ext: Any) -> bytes:
    """A digest of all that makes a database what it is."""
    described = repr(
        (
            _BUILD,
            expressions,
            ids,
            flags,
            [tuple(e) for e in ext or ()],
        )
    )
    return hashlib.sha256(described.encode()).digest()


def compiled(expressions: list[bytes], ids: list[int], flags: list[int], ext: Any = None) -> Any:
    """A block-mode database of ``expressions``: loaded from the cache folder when a
    checked copy is there, else compiled (and saved)."""
    key = database_key(expressions, ids, flags, ext)
    folder = cache_folder()
    path = None if folder is None else folder / f"{key.hex()}.hsdb"
    if path is not None:
        db = _load(path, key)
        if db is not None:
            return db
    db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    extra = {} if ext is None else {"ext": ext}
    db.compile(expressions=expressions, ids=ids, elements=len(expressions), flags=flags, **extra)
    if path is not None:
        _save(path, key, db)
    return db


def _load(path: Path, key: bytes) -> Any | None:
    raw = _read(path)
    head = len(MAGIC)
    if raw is None or raw[:head] != MAGIC or raw[head : head + 32] != key:
        return None
    payload = raw[head + 64 :]
    if hashlib.sha256(payload).digest() != raw[head + 32 : head + 64]:
        return None
    try:
        db = hyperscan.loadb(payload, hyperscan.HS_MODE_BLOCK)
        db.scratch = hyperscan.Scratch(db)  # a loaded database comes without one
        db.scan(b"-", match_event_handler=lambda *_: False)  # refuses another CPU's build
    except Exception:  # any refusal means: compile it here
        return None
    return db


def _read(path: Path) -> bytes | None:
    """The file's bytes when it is a regular file of at most :data:`MAX_BYTES`, this
    user's, that no one else may write."""
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_BYTES:
            return None
        if info.st_uid != os.getuid() or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            return None  # another user could have written it
        with os.fdopen(os.dup(fd), "rb", buffering=0) as fh:
            return fh.read(info.st_size + 1)
    except OSError:
        return None
    finally:
        os.close(fd)


def _save(path: Path, key: bytes, db: Any) -> None:
    """Written whole under a temporary name, then renamed: a reader sees all or none."""
    try:
        payload = hyperscan.dumpb(db)
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".hsdb")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(MAGIC + key + hashlib.sha256(payload).digest() + payload)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except Exception:  # a cache that cannot be written is no error
        return
