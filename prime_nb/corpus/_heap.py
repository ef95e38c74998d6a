"""The heap of a Dask worker while it reads sessions.

Dask asks glibc to hand freed memory back at once (``MALLOC_TRIM_THRESHOLD_`` in every
worker), and that made reading sessions markedly slower there than in a plain process
(benchmarks/README.md has the measure). :func:`roomy_heap` lets the heap keep what it
frees while a partition is read, then puts the worker's own settings back.
"""

from __future__ import annotations

import ctypes
import os
import platform
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

#: glibc's ``mallopt`` parameters
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
#: glibc's mmap threshold when it is fixed (set by an environment variable, as Dask does)
_DEFAULT_MMAP_THRESHOLD = 128 * 1024
#: while reading sessions: freed memory stays for the next file, big blocks come from
#: the heap
_ROOMY_TRIM = 256 << 20
_ROOMY_MMAP = 32 << 20

_heap_lock = threading.Lock()
_heap_users = 0


def _glibc() -> Any:
    """glibc through ctypes, or None on another C library (its ``mallopt`` differs)."""
    if platform.libc_ver()[0] != "glibc":
        return None
    try:
        return ctypes.CDLL(None)
    except OSError:  # pragma: no cover - a static interpreter
        return None


@contextmanager
def roomy_heap() -> Iterator[None]:
    """Let the heap keep freed memory while sessions are read, in a process that asked
    glibc to return it at once (``MALLOC_TRIM_THRESHOLD_`` set: Dask sets 64 KiB in
    every worker), which also fixes the mmap threshold at 128 KiB, so that every list,
    buffer or string above it is mapped and unmapped page by page. On leaving, the
    process's own settings are put back and ``malloc_trim`` returns what is free.
    Nested and threaded uses share one change; elsewhere nothing changes."""
    global _heap_users
    trim = os.environ.get("MALLOC_TRIM_THRESHOLD_")
    libc = _glibc() if trim is not None and trim.isdigit() else None
    if trim is None or libc is None:
        yield
        return
    mmap = os.environ.get("MALLOC_MMAP_THRESHOLD_", "")
    with _heap_lock:
        _heap_users += 1
        if _heap_users == 1:
            libc.mallopt(_M_TRIM_THRESHOLD, _ROOMY_TRIM)
            libc.mallopt(_M_MMAP_THRESHOLD, _ROOMY_MMAP)
    try:
        yield
    finally:
        with _heap_lock:
            _heap_users -= 1
            if _heap_users == 0:
                libc.mallopt(_M_TRIM_THRESHOLD, int(trim))
                libc.mallopt(
                    _M_MMAP_THRESHOLD, int(mmap) if mmap.isdigit() else _DEFAULT_MMAP_THRESHOLD
                )
                libc.malloc_trim(0)
