"""Read a big session file with every core: cut at line boundaries into many chunks,
read from the front by this process and from the back by worker processes, merged in
order where the two meet.

Why: per-entry Python work (parse, extract) decides the load time, and it is the same
for every entry, so runs of whole lines can be read at the same time. A worker sends
back a few buffers per chunk (``_chunks``), and the merge applies what is not local to
a chunk (line numbers, ids, child usage) in file order, so the result is exactly that
of one pass: the same tables, problems, tree and graph. Chunks are many and small, and
a worker gets its next one as soon as it finishes one, so a slow start or a busy core
only moves the meeting point; this process never waits for more than a chunk.

When: files of about :attr:`ParallelSettings.min_entries` entries or more (counted in
a 1 MB sample), read by a plain :class:`Session` whose line 1 is a header of version 2
or later. Version 1 files stay
on one process: their ids derive from each entry's position among all the lines before
it, which a chunk cannot know. Small files stay on one process: starting workers costs
more than it saves (``benchmarks/bench_load.py --threshold`` measures it).

Worker processes: ``forkserver``. A notebook kernel has threads, and numpy and pyarrow
start their own, so ``fork`` could copy a lock some thread holds into a child that then
waits on it forever (Python 3.12 warns about exactly that). A forkserver is a fresh,
single-threaded process that imported the loader once; workers fork from it in
milliseconds. Starting it and forking two workers takes about 0.2 s (the loader's code
imports no pandas: ``prime_nb``'s package docstring), so a process that has
none yet reads files below :attr:`ParallelSettings.cold_min_entries` in one pass, and
for bigger ones starts it without waiting and reads chunks itself until it is up. The
caller's script is hidden while workers start, so they never run its top level again
(no ``if __name__ == "__main__":`` guard needed). ``fork`` is used only if asked for,
or when this process has a single thread.

A worker that dies or fails costs no result: the chunks merged so far are exact, and
the rest of the file is read here by the same single pass (``LoadReport.fell_back``
says why). Partial tables are never made.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from contextlib import suppress
from dataclasses import dataclass, field
from multiprocessing import forkserver, get_all_start_methods
from typing import IO, Any

from .._workers import (
    context_for,
    may_start_processes,
    process_pool,
    usable_cores,
    without_main_script,
)
from ..format import Migrator, Problem, ScanState, parse_line
from ._chunks import ChunkColumns, merge, read_chunk, take

#: a header line longer than this is not looked at: such a file is read in one pass
HEADER_PEEK = 1 << 20
#: bytes read after the header to guess the number of entries
SAMPLE = 1 << 20
#: imported once by the forkserver, so that forked workers start with it loaded
PRELOAD = ["prime_nb.session._chunks"]
#: chunks per process: many small ones share the work evenly (a slow start, a busy core)
CHUNKS_PER_PROCESS = 16
#: but none smaller than this: each costs a task and a merge
MIN_CHUNK = 1 << 20


@dataclass
class ParallelSettings:
    """When and how ``load()`` reads a file in several processes (tests change these)."""

    #: smaller files (bytes) are read in one pass without a look
    threshold: int = 8 << 20
    #: a file goes parallel from this many entries, estimated from a 1 MB sample: the
    #: per-entry work decides the load time, not the bytes (benchmarks/README.md)
    min_entries: int = 30_000
    #: the same while no forkserver runs yet in this process: a cold parallel load was
    #: still slower than one pass at 60,000 entries (160 MB), with the server up in 0.2 s
    cold_min_entries: int = 500_000
    #: processes in all, this one included; None: the cores this process may use
    processes: int | None = None
    #: "fork", "forkserver" or "spawn"; None: fork if single-threaded, else forkserver
    start_method: str | None = None
    #: seconds a forkserver takes to start (it imports the loader; 0.18-0.19 s with two
    #: workers): until then, this process reads chunks itself rather than wait for the
    #: first worker (tests: 0)
    server_start: float = 0.25
    #: chunks to cut the file into; None: :data:`CHUNKS_PER_PROCESS` a process, each of
    #: :data:`MIN_CHUNK` bytes or more (tests cut at every line with a huge number)
    chunks: int | None = None
    #: test hook: this process reads at most this many chunks from the front and leaves
    #: the rest to the workers (None: as many as it gets to before they meet)
    chunks_here: int | None = None
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
    #: CPU seconds the workers spent on their chunks, and the highest peak RSS (bytes)
    #: of a worker process (they are not this process's children: the forkserver's)
    worker_cpu: float = 0.0
    worker_peak_rss: int = 0


def threads_running() -> int:
    """Threads of this process as the OS counts them (native ones too); 0 if unknown."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:  # pragma: no cover - not Linux
        return 0


def start_method() -> str:
    """``fork`` in a single-threaded process, else ``forkserver`` (``spawn`` where there
    is none: Windows); see the module docstring."""
    chosen = SETTINGS.start_method
    if chosen is not None:
        return chosen
    if threads_running() == 1:
        return "fork"
    return "forkserver" if "forkserver" in get_all_start_methods() else "spawn"


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


def entries_about(fh: IO[bytes], size: int) -> float:
    """About how many lines the file has, from the lines in 1 MB after the header."""
    sample = fh.read(SAMPLE)
    return size * sample.count(b"\n") / max(len(sample), 1)


def plan(fh: IO[bytes], size: int) -> tuple[dict[str, Any], list[int], int] | None:
    """(header, chunk starts after the first, processes) for a parallel read of this
    file, or None for one pass. Chunks are many (:data:`CHUNKS_PER_PROCESS` a process,
    at least :data:`MIN_CHUNK` bytes each), so that work is shared evenly however fast
    each process turns out to be."""
    processes = SETTINGS.processes or usable_cores()
    if size < SETTINGS.threshold or processes < 2 or not may_start_processes():
        return None
    header = header_of(fh)
    if header is None:
        return None
    method = start_method()  # spawn: every worker imports the loader, as a new server does
    cold = method == "spawn" or (method == "forkserver" and not forkserver_running())
    if entries_about(fh, size) < (SETTINGS.cold_min_entries if cold else SETTINGS.min_entries):
        return None
    count = SETTINGS.chunks or max(2, min(processes * CHUNKS_PER_PROCESS, size // MIN_CHUNK))
    cuts = boundaries(fh, size, count)
    return (header, cuts, processes) if cuts else None


class _Pool:
    """Worker processes that take chunks from the back of the file while this process
    takes them from the front (``claim``): one chunk per worker at a time, and each
    finished chunk hands its worker the next one at once (from the executor's thread).
    A chunk once given cannot be taken back, so the fewer given ahead, the less this
    process waits for the workers when the two ends meet."""

    def __init__(
        self,
        workers: int,
        method: str,
        job: Callable[[int, int], tuple[Any, ...]],
        front: int,
        count: int,
        preload: str = "",
    ) -> None:
        modules = [*PRELOAD, preload] if preload else PRELOAD
        self.executor = process_pool(workers, context_for(method, modules))
        self.job = job
        self.futures: dict[int, Future[dict[str, Any]]] = {}
        self.lock = threading.RLock()  # a callback may run at once, in the calling thread
        self.front, self.back = front, count - 1
        self.given = 0
        self.broken = self.closed = False
        #: why the pool broke while chunks were being handed out (a worker died)
        self.failure: str | None = None
        with self.lock, without_main_script():  # all workers start here, in this thread
            for _ in range(workers):
                if self.back <= max(self.front, 1):
                    break
                self._give()

    def claim(self) -> int | None:
        """The next chunk from the front for this process, or None when they met."""
        with self.lock:
            if self.front > self.back:
                return None
            self.front += 1
            return self.front - 1

    def _give(self) -> None:
        """Hand the chunk at the back to the workers (the lock held)."""
        k = self.back
        try:
            future = self.executor.submit(read_chunk, *self.job(k, self.given))
        except Exception as exc:  # the pool broke (a worker died): this process reads the rest
            self.broken = True
            self.failure = f"{type(exc).__name__}: {exc}"
            return
        self.back -= 1
        self.given += 1
        self.futures[k] = future
        future.add_done_callback(self._done)

    def give_rest(self) -> None:
        """Hand every chunk not yet read here to the workers (the ``chunks_here`` hook)."""
        with self.lock:
            while not self.broken and self.back >= max(self.front, 1):
                self._give()

    def _done(self, future: Future[dict[str, Any]]) -> None:
        if future.cancelled() or future.exception() is not None:
            return
        with self.lock:  # chunk 0 holds the header: this process reads it, always
            if not (self.broken or self.closed) and self.back >= max(self.front, 1):
                self._give()

    def stop(self) -> None:
        """Stop the workers at once (an interrupt, a failed worker): none may go on
        reading for nothing."""
        with self.lock:
            self.closed = True
        processes = getattr(self.executor, "_processes", None) or {}
        for process in list(processes.values()):
            with suppress(OSError, ValueError, AttributeError):
                process.kill()
        self.executor.shutdown(wait=False, cancel_futures=True)


def forkserver_running() -> bool:
    """Whether this process has a forkserver already (started by a load, or by the
    corpus functions, which use the same one)."""
    server = getattr(forkserver, "_forkserver", None)
    return _server_ready_at is not None or getattr(server, "_forkserver_pid", None) is not None


def workers_ready_at(method: str) -> float:
    """When workers can start without making this process wait (``time.monotonic``).

    A forkserver that is not running yet takes a fifth of a second to start (it
    imports the loader), and the first worker start waits for it. So it is started here
    without waiting, and this process reads chunks itself until it should be up.
    """
    global _server_ready_at
    if method != "forkserver":
        return 0.0
    if _server_ready_at is None:
        running = forkserver_running()  # the corpus's, perhaps
        context_for(method, PRELOAD)
        forkserver.ensure_running()
        _server_ready_at = time.monotonic() + (0.0 if running else SETTINGS.server_start)
    return _server_ready_at


_server_ready_at: float | None = None


def load_parallel(
    path: str,
    identity: tuple[int, int],
    planned: tuple[dict[str, Any], list[int], int],
    read_here: Callable[[int | None], Any],
    merge_into: tuple[Any, list[Problem], ScanState],
    columns: type[ChunkColumns] = ChunkColumns,
) -> LoadReport:
    """Read the file's chunks from the front here (``read_here(end)``: up to ``end``, None
    to the end of the file) while
    workers read them from the back; merge theirs in order when the two meet. A failed
    worker: the rest of the file is read here, from where the merged chunks end.
    ``columns``: the workers' per-entry extraction (its module is preloaded for them)."""
    header, cuts, processes = planned
    starts = [0, *cuts]
    ends: list[int | None] = [*cuts, None]
    failures = SETTINGS.fail_in_worker
    method = start_method()
    report = LoadReport(processes=processes, chunks=len(starts), start_method=method)

    try:
        spill = tempfile.mkdtemp(prefix="prime-nb-load-", dir=spill_root(starts[-1]))
    except OSError as exc:  # no room for the workers' chunks: read it all here
        report.processes, report.fell_back = 1, f"{type(exc).__name__}: {exc}"
        read_here(None)
        return report

    def job(k: int, given: int) -> tuple[Any, ...]:
        return (path, identity, header, starts[k], ends[k], spill, failures.get(given), columns)

    ready_at = workers_ready_at(method)
    pool: _Pool | None = None
    cols, problems, state = merge_into
    front = 0
    try:
        while True:
            if pool is None and time.monotonic() >= ready_at:
                pool = _Pool(processes - 1, method, job, front, len(starts), columns.__module__)
            if pool is not None:
                if SETTINGS.chunks_here is not None and front >= SETTINGS.chunks_here:
                    pool.give_rest()
                    break
                claimed = pool.claim()
                if claimed is None:
                    break
                front = claimed
            elif front >= len(starts):
                break
            read_here(ends[front])
            front += 1
        report.chunks_here = front
        for k in range(front, len(starts)):
            assert pool is not None
            began = time.perf_counter()
            try:
                chunk = pool.futures[k].result()
            except Exception as exc:  # a dead worker (BrokenProcessPool), or its error
                never_given = isinstance(exc, KeyError) and pool.failure is not None
                report.fell_back = pool.failure if never_given else f"{type(exc).__name__}: {exc}"
                pool.stop()
                read_here(None)
                break
            merging = time.perf_counter()
            report.worker_cpu += chunk["cpu_seconds"]
            report.worker_peak_rss = max(report.worker_peak_rss, chunk["peak_rss"])
            merge(cols, problems, state, take(chunk))
            report.waited += merging - began
            report.merging += time.perf_counter() - merging
    except BaseException:
        if pool is not None:
            pool.stop()
        raise
    finally:
        if pool is not None:
            with pool.lock:
                pool.closed = True
            pool.executor.shutdown(wait=False)  # every chunk is in: workers just exit
        shutil.rmtree(spill, ignore_errors=True)
    if pool is None:
        report.processes = 1  # read before any worker could start
    return report


def spill_root(size: int) -> str | None:
    """Where workers leave their chunks until they are merged: shared memory (tmpfs)
    when it has room for as much as the file (a container's can be 64 MB), else the
    temporary folder. Should either fill up, the worker fails and the rest of the file
    is read here."""
    shm = "/dev/shm"
    try:
        held = os.statvfs(shm)
    except (OSError, AttributeError):
        return None
    room = held.f_bavail * held.f_frsize
    return shm if room >= size and os.access(shm, os.W_OK) else None
