"""Worker processes, as the parallel load and the corpus functions both start them.

Why one module: both use the same forkserver (a process has only one), so what it
imports before forking (its preload) must be the union of what both need, and both must
hide the caller's script from worker start-up. Written twice, the two drifted: the
corpus workers ran a script's top level again, once per worker.

- :func:`usable_cores`: the cores this process may run on.
- :func:`forkserver_context`: the ``forkserver`` context with every module asked for so
  far in its preload (applies when the server starts, so ask before the first use).
- :func:`without_main_script`: start workers without importing the caller's script.
- :func:`process_pool`: a pool whose workers end quietly on an interrupt.
- :func:`may_start_processes`: not in a daemonic process (a ``multiprocessing`` Pool's).
- :func:`roomy_heap`: undo, while sessions are read, the eager memory return a Dask
  worker asks of glibc (it made reading 1.5 x slower there).
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import platform
import signal
import sys
import threading
from collections.abc import Iterable, Iterator, Mapping
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from multiprocessing import get_context
from multiprocessing.context import BaseContext
from typing import Any

#: modules the forkserver imports once, so that workers forked from it start with them
_PRELOAD: set[str] = set()


def usable_cores() -> int:
    """Cores this process may run on (its affinity), not the machine's count."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


def add_preload(modules: Iterable[str]) -> None:
    """Modules the forkserver should import when it starts (added to the others)."""
    _PRELOAD.update(modules)


def context_for(method: str, preload: Iterable[str] = ()) -> BaseContext:
    """The multiprocessing context of ``method``; for ``forkserver``, with ``preload``
    added to every module asked for before (by the loader or the corpus)."""
    context = get_context(method)
    if method == "forkserver":
        add_preload(preload)
        context.set_forkserver_preload(sorted(_PRELOAD))
    return context


def may_start_processes() -> bool:
    """Can this process start workers? Not when it is itself a daemonic worker (of a
    ``multiprocessing.Pool``, say): multiprocessing refuses those children, with an
    ``AssertionError`` that names no way out. The loader and the corpus read in this
    process instead."""
    return not multiprocessing.current_process().daemon


def end_quietly_on_interrupt() -> None:
    """A worker's initializer: an interrupt ends it without a traceback.

    Why: a notebook's interrupt, like Ctrl-C in a terminal, signals every process of the
    group, busy or idle. A worker ends either way (its caller stops; a kept pool that
    broke is replaced at its next use), but Python's own handler first printed a
    KeyboardInterrupt traceback per worker into the terminal or the notebook server's log.
    A worker whose caller ignores interrupts (a job started in the background) inherits
    that, and keeps it.
    """
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, signal.SIG_DFL)


def process_pool(workers: int, context: BaseContext) -> ProcessPoolExecutor:
    """The pool of either user (the parallel load, the corpus), its workers started in
    ``context`` and ending quietly on an interrupt (:func:`end_quietly_on_interrupt`)."""
    return ProcessPoolExecutor(workers, mp_context=context, initializer=end_quietly_on_interrupt)


def forkserver_context(preload: Iterable[str] = ()) -> BaseContext:
    """The ``forkserver`` context (see :func:`context_for`). A notebook kernel has
    threads, and forking a threaded process can copy a held lock into the child."""
    return context_for("forkserver", preload)


@contextmanager
def without_main_script() -> Iterator[None]:
    """Hide the caller's script from worker start-up. A forkserver or spawn worker
    otherwise imports it again (as ``__mp_main__``), which runs the top level of a
    script that has no ``if __name__ == "__main__":`` guard a second time. The workers
    need nothing from it: they only run this package's code."""
    main = sys.modules.get("__main__")
    if main is None:
        yield
        return
    saved: dict[str, Any] = {
        key: main.__dict__[key] for key in ("__file__", "__spec__") if key in main.__dict__
    }
    main.__dict__.pop("__file__", None)
    main.__dict__["__spec__"] = None
    try:
        yield
    finally:
        main.__dict__.pop("__spec__", None)
        main.__dict__.update(saved)


# -- the heap of a process that returns memory eagerly (a Dask worker) ------------------
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
def roomy_heap(environ: Mapping[str, str] | None = None, libc: Any = None) -> Iterator[None]:
    """Let the heap keep freed memory while sessions are read, in a process that asked
    glibc to return it at once (``MALLOC_TRIM_THRESHOLD_`` set: Dask sets 64 KiB in
    every worker). Such a process also gets a fixed 128 KiB mmap threshold, so every
    list, buffer or string above it is mapped and unmapped page by page: the summary
    pass ran 1.5 x slower in a Dask worker than in a plain process. Inside, the
    thresholds are 256 MiB and 32 MiB; on leaving, the process's own settings are put
    back and ``malloc_trim`` returns what is free, as the worker wanted. Nested and
    threaded uses share one change. Elsewhere (no such variable, not glibc) nothing
    changes."""
    global _heap_users
    environ = os.environ if environ is None else environ
    trim = environ.get("MALLOC_TRIM_THRESHOLD_")
    libc = _glibc() if libc is None and trim is not None else libc
    if trim is None or libc is None or not trim.isdigit():
        yield
        return
    mmap = environ.get("MALLOC_MMAP_THRESHOLD_", "")
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
