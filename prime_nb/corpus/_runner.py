"""Run a per-file function over many files, in a process pool started for the call.

The pool is a plain :class:`~concurrent.futures.ProcessPoolExecutor` in the platform's
default start method, fed with ``map`` in chunks of a few files: a task per file pays a
round trip to a worker per file, which with thousands of small sessions rivals the
reading. Guided batches sized by bytes, a pool kept warm between calls, a forkserver
that imported the corpus code first and a cold start read partly in this process were
all measured against it on corpora of real sessions and none gained enough to keep
(benchmarks/README.md). If a worker dies (out of memory, killed), the files from the
first result lost on are run again one at a time, so that only the file that kills a
worker gets an error row.
"""

from __future__ import annotations

import multiprocessing
import operator
import os
import signal
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager, suppress
from typing import Any, TypeVar

from .._words import counted

T = TypeVar("T")

#: ``map`` hands each worker about this many chunks of files: few round trips, and the
#: cores finish within one small chunk of each other
CHUNKS_PER_WORKER = 16
#: with ``workers=None``, a corpus of fewer bytes is read in this process: one core reads
#: it in about the time that starting workers and handing them the files costs
IN_PROCESS_MAX = 8 << 20


def usable_cores() -> int:
    """Cores this process may run on (its affinity), not the machine's count."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


def end_quietly_on_interrupt() -> None:
    """A worker's initializer: an interrupt ends it without a traceback.

    Why: a notebook's interrupt, like Ctrl-C, signals every process of the group, and
    Python's own handler printed a traceback per worker into the terminal or the
    server's log. An ignored interrupt (a job started in the background) stays ignored.
    """
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, signal.SIG_DFL)


def process_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes that end quietly on an interrupt."""
    return ProcessPoolExecutor(workers, initializer=end_quietly_on_interrupt)


@contextmanager
def without_main_script() -> Iterator[None]:
    """Hide the caller's script from worker start-up. Where workers are spawned (macOS,
    Windows), each otherwise imports it again (as ``__mp_main__``), which runs the top
    level of a script that has no ``if __name__ == "__main__":`` guard a second time.
    The workers need nothing from it: they only run this package's code."""
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


def file_sizes(paths: Sequence[str]) -> list[int]:
    sizes = []
    for path in paths:
        try:
            sizes.append(os.stat(path).st_size)
        except OSError:
            sizes.append(0)
    return sizes


def progress_bar(total: int, desc: str, show: bool | None) -> Any:
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="file", disable=None if show is None else not show)


def workers_pay_off(total: int) -> bool:
    """Are workers worth it for ``total`` bytes, when the caller left the choice to
    prime_nb (``workers=None``)? Not for a small folder, read before workers would be up."""
    return total >= IN_PROCESS_MAX


def worker_count(workers: Any) -> int:
    """``workers`` as given (a whole number, 1 or more), or one per usable core for None;
    anything else is an error that says what is meant (-1 does not mean every core)."""
    if workers is None:
        return usable_cores()
    try:
        count = operator.index(workers)  # numpy's integers too
    except TypeError:
        count = 0
    if isinstance(workers, bool) or count < 1:
        raise ValueError(
            f"workers={workers!r}: pass a whole number of processes, 1 or more (1 reads "
            "in this process), or None for one per core"
        )
    return count


def run(
    func: Callable[..., T],
    paths: list[str],
    workers: int | None,
    desc: str,
    progress: bool | None,
    on_error: Callable[[str, BaseException], T],
    describe: Callable[[list[T]], str] | None = None,
    *,
    extra: Sequence[Any] | None = None,
    note: str = "",
) -> list[T]:
    """``func(path)`` (or ``func(path, extra[k])``) over ``paths``, results in the order of
    ``paths``, in worker processes when there is more than one file (and, for
    ``workers=None``, when :func:`workers_pay_off`); a final line (files, MB, MB/s,
    problems, and ``note``) under a shown progress bar."""
    start = time.perf_counter()
    chosen = workers is not None
    workers = worker_count(workers)
    sizes = file_sizes(paths)
    if not chosen and workers > 1 and not workers_pay_off(sum(sizes)):
        workers = 1
    # a daemonic worker (of a multiprocessing Pool, say) may not start processes:
    # multiprocessing's AssertionError would name no way out, so it reads them itself
    if workers > 1 and multiprocessing.current_process().daemon:
        if chosen:
            warnings.warn(
                f"workers={workers}: this process is a daemonic worker (of a "
                "multiprocessing Pool, say), which may not start processes; reading "
                "the corpus in this process",
                stacklevel=4,
            )
        workers = 1
    columns: list[Sequence[Any]] = [paths] if extra is None else [paths, list(extra)]
    out: list[T] = []
    with progress_bar(len(paths), desc, progress) as bar:
        if workers <= 1 or len(paths) <= 1:
            for args in zip(*columns, strict=True):
                out.append(func(*args))
                bar.update(1)
        else:
            _in_pool(func, columns, workers, out, bar)
            _one_by_one(func, [column[len(out) :] for column in columns], on_error, out, bar)
        shown = not bar.disable
    if shown:  # under the closed bar, where a terminal and a notebook both keep it
        seconds = time.perf_counter() - start
        print(_final_line(len(paths), sum(sizes), seconds, out, describe) + note)
    return out


def _in_pool(
    func: Callable[..., T], columns: list[Sequence[Any]], workers: int, out: list[T], bar: Any
) -> None:
    """Results in order into ``out`` from a new pool, up to the first that a dead worker
    (or an error) took down."""
    pool = process_pool(workers)
    chunk = max(1, len(columns[0]) // (workers * CHUNKS_PER_WORKER))
    try:
        with without_main_script():  # workers start as tasks are submitted
            results = pool.map(func, *columns, chunksize=chunk)
        for value in results:
            out.append(value)
            bar.update(1)
    except BaseException as exc:  # the rest is run one by one, or the call interrupted:
        stop(pool)  # no worker may go on reading for nothing
        if not isinstance(exc, Exception):
            raise
    else:
        pool.shutdown()


def stop(pool: ProcessPoolExecutor) -> None:
    """End the pool's workers now, their tasks unfinished."""
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        with suppress(OSError, ValueError, AttributeError):  # gone already
            process.kill()
    pool.shutdown(wait=False, cancel_futures=True)


def _one_by_one(
    func: Callable[..., T],
    columns: list[Sequence[Any]],
    on_error: Callable[[str, BaseException], T],
    out: list[T],
    bar: Any,
) -> None:
    """Files again, each alone in one worker: a death now is that file's own."""
    pool: ProcessPoolExecutor | None = None
    try:
        for args in zip(*columns, strict=True):
            pool = pool or process_pool(1)
            try:
                with without_main_script():
                    future = pool.submit(func, *args)
                out.append(future.result())
            except BrokenProcessPool as exc:
                out.append(on_error(args[0], exc))
                pool.shutdown(wait=False)
                pool = None
            except Exception as exc:
                out.append(on_error(args[0], exc))
            bar.update(1)
    finally:
        if pool is not None:
            pool.shutdown()


def _final_line(
    files: int,
    size: int,
    seconds: float,
    results: list[T],
    describe: Callable[[list[T]], str] | None,
) -> str:
    mb = size / 1e6
    rate = mb / seconds if seconds > 0 else float("inf")
    tail = f", {describe(results)}" if describe is not None else ""
    return f"{counted(files, 'file')}, {mb:,.1f} MB in {seconds:.1f} s ({rate:,.0f} MB/s){tail}"
