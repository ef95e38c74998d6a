"""Read a big session file with every core: the file cut at line boundaries, one chunk
per core, the first read here and the others in worker processes, merged in order.

Why: per-entry Python work (parse, extract) decides the load time, and it is the same
for every entry, so chunks of whole lines can be read at the same time. What a worker
sends back is a few buffers per chunk (see ``_chunks``), and the merge applies what is
not local to a chunk (line numbers, ids, child usage) in file order, so the result is
exactly that of one pass: same tables, problems, tree and graph.

When it is used: files of at least :attr:`ParallelSettings.threshold` bytes, read by a
plain :class:`Session`, with a header on line 1 of version 2 or later. Version 1 files
stay on one process: their ids are derived from each entry's position among all the
lines before it, which a chunk cannot know. Smaller files stay on one process too:
starting workers costs more than it saves.

Worker processes: ``fork`` when this process runs a single thread (it is the fastest,
and nothing can hold a lock while the process is copied); otherwise ``forkserver``,
because forking a process with other threads (a notebook kernel has several, and
pyarrow or BLAS pools start more) can leave a lock held forever in the child. The
forkserver is itself a fresh single-threaded process that has imported the loader once;
its first start costs about a second of imports, later pools start in milliseconds.

A worker that dies or fails costs no result: the chunks merged so far are exact, and
the rest of the file is read here, by the same single pass (``fell_back`` says so).
Partial tables are never made.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from multiprocessing import get_context
from typing import IO, Any

from ..format._migrating import Migrator
from ..format._reading import Problem, RawEntry, ScanState, parse_line
from ._chunks import merge, read_chunk

#: a header line longer than this is not looked at: such a file is read in one pass
HEADER_PEEK = 1 << 20
#: imported once by the forkserver, so that forked workers start with it loaded
PRELOAD = ["prime_nb.session._chunks"]
#: chunks per process: many small ones share the work evenly (a slow start, a busy core)
CHUNKS_PER_PROCESS = 8
#: but none smaller than this: each costs a task and a merge
MIN_CHUNK = 1 << 20


@dataclass
class ParallelSettings:
    """When and how ``load()`` reads a file in several processes (tests change these)."""

    #: files of at least this many bytes are read in parallel (see benchmarks/README.md)
    threshold: int = 24 << 20
    #: processes in all, this one included; None: the cores this process may use
    processes: int | None = None
    #: "fork", "forkserver" or "spawn"; None: fork if single-threaded, else forkserver
    start_method: str | None = None
    #: chunks to cut the file into; None: :data:`CHUNKS_PER_PROCESS` a process, each of
    #: :data:`MIN_CHUNK` bytes or more (tests cut at every line with a huge number)
    chunks: int | None = None
    #: test hook: the n-th chunk given to a worker (0: the first) makes it fail at once,
    #: by "exit" (os._exit), "kill" (SIGKILL to itself) or "raise" (an exception)
    fail_in_worker: dict[int, str] = field(default_factory=dict)


SETTINGS = ParallelSettings()


@dataclass
class LoadReport:
    """How a load went (for benchmarks and tests): processes used, and why the rest
    of the file was read here if a worker failed."""

    processes: int = 1
    chunks: int = 1
    #: chunks this process read itself (the rest came from workers)
    chunks_here: int = 1
    start_method: str | None = None
    fell_back: str | None = None
    #: seconds this process spent waiting for workers, and merging what they sent
    waited: float = 0.0
    merging: float = 0.0


def usable_cores() -> int:
    """Cores this process may run on (its affinity), not the machine's count."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


def threads_running() -> int:
    """Threads of this process as the OS counts them (native ones too); 0 if unknown."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:  # pragma: no cover - not Linux
        return 0


def start_method() -> str:
    chosen = SETTINGS.start_method
    if chosen is not None:
        return chosen
    return "fork" if threads_running() == 1 else "forkserver"


def header_of(fh: IO[bytes]) -> dict[str, Any] | None:
    """The header on line 1, if it is a clean one of a version chunks can migrate."""
    fh.seek(0)
    first = fh.readline(HEADER_PEEK)
    if not first.endswith(b"\n"):
        return None
    obj, _ = parse_line(first[:-1], 1)
    if obj is None or obj["type"] not in ("session", "header"):
        return None
    return obj if Migrator(obj).chunk_safe else None


def boundaries(fh: IO[bytes], size: int, count: int) -> list[int]:
    """Offsets that cut ``size`` bytes into up to ``count`` runs of whole lines: each is
    the start of the line after the one that holds a ``k/count`` point (or at it)."""
    cuts: list[int] = []
    k = 1
    while k < count:
        point = max(1, size * k // count)
        fh.seek(point - 1)
        at = point - 1
        while True:
            block = fh.read(1 << 16)
            if not block:
                return cuts
            found = block.find(b"\n")
            if found >= 0:
                cut = at + found + 1
                break
            at += len(block)
        if cut >= size:
            return cuts
        cuts.append(cut)
        k = max(k + 1, -(-(cut + 1) * count // size))  # the next point past this cut
    return cuts


def plan(fh: IO[bytes], size: int) -> tuple[dict[str, Any], list[int], int] | None:
    """(header, chunk starts after the first, processes) for a parallel read of this
    file, or None for one pass. Chunks are many (:data:`CHUNKS_PER_PROCESS` a process,
    at least :data:`MIN_CHUNK` bytes each), so that work is shared evenly however fast
    each process turns out to be."""
    processes = SETTINGS.processes or usable_cores()
    if size < SETTINGS.threshold or processes < 2:
        return None
    header = header_of(fh)
    if header is None:
        return None
    count = SETTINGS.chunks or max(2, min(processes * CHUNKS_PER_PROCESS, size // MIN_CHUNK))
    cuts = boundaries(fh, size, count)
    return (header, cuts, processes) if cuts else None


@contextmanager
def _without_main_script() -> Iterator[None]:
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


class _Pool:
    """Worker processes fed from the back of the file, at most two chunks each ahead."""

    def __init__(
        self, workers: int, method: str, job: Callable[[int, int], tuple[Any, ...]]
    ) -> None:
        context = get_context(method)
        if method == "forkserver":
            context.set_forkserver_preload(PRELOAD)
        self.executor = ProcessPoolExecutor(workers, mp_context=context)
        self.depth = 2 * workers
        self.job = job
        self.futures: dict[int, Future[dict[str, Any]]] = {}
        self.broken = False
        self.given = 0

    def feed(self, lo: int, hi: int) -> int:
        """Submit chunks ``hi``, ``hi - 1``, ... while workers have room and the chunks
        stay above ``lo`` (the next one this process reads); returns the new ``hi``."""
        waiting = sum(1 for f in self.futures.values() if not f.done())
        with _without_main_script():
            while not self.broken and hi > lo and waiting < self.depth:
                try:
                    job = self.job(hi, self.given)
                    self.futures[hi] = self.executor.submit(read_chunk, *job)
                except Exception:  # the pool broke (a worker died): read the rest here
                    self.broken = True
                    break
                hi -= 1
                waiting += 1
                self.given += 1
        return hi

    def stop(self) -> None:
        """Stop the workers at once (an interrupt, a failed worker): none may go on
        reading for nothing."""
        processes = getattr(self.executor, "_processes", None) or {}
        for process in list(processes.values()):
            with suppress(OSError, ValueError, AttributeError):
                process.kill()
        self.executor.shutdown(wait=False, cancel_futures=True)


def load_parallel(
    path: str,
    identity: tuple[int, int],
    planned: tuple[dict[str, Any], list[int], int],
    consume: Callable[[Iterable[RawEntry | Problem]], Any],
    scan_here: Callable[[int | None], Iterable[RawEntry | Problem]],
    merge_into: tuple[Any, list[Problem], ScanState],
) -> LoadReport:
    """Read the file's chunks from the front here (``consume(scan_here(end))``) while
    workers read them from the back; merge theirs in order when the two meet. A failed
    worker: the rest of the file is read here, from where the merged chunks end."""
    header, cuts, processes = planned
    starts = [0, *cuts]
    ends: list[int | None] = [*cuts, None]
    failures = SETTINGS.fail_in_worker
    method = start_method()
    report = LoadReport(processes=processes, chunks=len(starts), start_method=method)

    def job(k: int, given: int) -> tuple[Any, ...]:
        return (path, identity, header, starts[k], ends[k], failures.get(given))

    pool = _Pool(processes - 1, method, job)
    cols, problems, state = merge_into
    try:
        lo, hi = 0, pool.feed(0, len(starts) - 1)
        while lo <= hi:
            consume(scan_here(ends[lo]))
            lo += 1
            hi = pool.feed(lo, hi)
        report.chunks_here = lo
        for k in range(lo, len(starts)):
            began = time.perf_counter()
            try:
                chunk = pool.futures[k].result()
            except Exception as exc:  # a dead worker (BrokenProcessPool), or its error
                report.fell_back = f"{type(exc).__name__}: {exc}"
                pool.stop()
                consume(scan_here(None))
                break
            merging = time.perf_counter()
            merge(cols, problems, state, chunk)
            report.waited += merging - began
            report.merging += time.perf_counter() - merging
    except BaseException:
        pool.stop()
        raise
    pool.executor.shutdown(wait=True)
    return report
