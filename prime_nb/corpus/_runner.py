"""Run a per-file function over many files: batches sized by bytes, a process per core.

Why batches: a task per file pays a round trip to a worker per file, and with thousands
of small sessions that overhead rivals the reading. A task here is a batch of files
whose size shrinks with the bytes still to hand out (:func:`guided_batches`): big
batches first, few round trips; small ones last, so no core waits long for the last
batch of another. A file bigger than a batch is a batch of its own (one task reads it:
its summary is a few dicts, never per-entry objects).

The workers are a plain :class:`~concurrent.futures.ProcessPoolExecutor` per call, in
the platform's default start method. A pool kept warm between calls, a forkserver that
imported the corpus code first and a cold start read partly in this process were all
measured against it on corpora of real sessions and none gained enough to keep
(benchmarks/README.md). If a worker dies (out of memory, killed), the files of the
batches it took down are run again one at a time, so that only the file that kills a
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
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager, suppress
from typing import Any, TypeVar

from .._words import counted

T = TypeVar("T")

MIN_BATCH = 1 << 20
MAX_BATCH = 64 << 20
MAX_FILES_PER_BATCH = 1000
#: a guided batch holds 1 / (workers x this) of the bytes not yet handed out
GUIDED_SHARE = 4
#: with ``workers=None``, a corpus of fewer bytes is read in this process: one core reads
#: it in about the time that starting workers and handing them the files costs
IN_PROCESS_MAX = 8 << 20


def usable_cores() -> int:
    """Cores this process may run on (its affinity), not the machine's count."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


def may_start_processes() -> bool:
    """Can this process start workers? Not when it is itself a daemonic worker (of a
    ``multiprocessing.Pool``, say): multiprocessing refuses those children, with an
    ``AssertionError`` that names no way out. The corpus reads in this process instead."""
    return not multiprocessing.current_process().daemon


def end_quietly_on_interrupt() -> None:
    """A worker's initializer: an interrupt ends it without a traceback.

    Why: a notebook's interrupt, like Ctrl-C in a terminal, signals every process of the
    group. The worker ends either way (its caller stops), but Python's own handler first
    printed a KeyboardInterrupt traceback per worker into the terminal or the notebook
    server's log. A worker whose caller ignores interrupts (a job started in the
    background) inherits that, and keeps it.
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


def batches(sizes: Sequence[int], count: int) -> list[list[int]]:
    """Indexes of ``sizes`` cut into about ``count`` batches of about the same number of
    bytes (1 to 64 MB each), in order; consecutive files stay together."""
    total = sum(sizes)
    target = min(max(total // max(count, 1), MIN_BATCH), MAX_BATCH)
    out: list[list[int]] = []
    current: list[int] = []
    held = 0
    for k, size in enumerate(sizes):
        current.append(k)
        held += size
        if held >= target or len(current) >= MAX_FILES_PER_BATCH:
            out.append(current)
            current, held = [], 0
    if current:
        out.append(current)
    return out


def guided_batches(sizes: Sequence[int], workers: int) -> list[list[int]]:
    """Indexes of ``sizes`` cut into batches of consecutive files, each holding about
    1 / (``workers`` x :data:`GUIDED_SHARE`) of the bytes not yet in a batch (1 to 64 MB):
    guided self-scheduling. Equal batches leave the cores idle for up to one batch at the
    end (a tenth of a second on a 300 MB corpus); shrinking ones end within one small
    batch, with about ``workers x GUIDED_SHARE x ln(total / 1 MB)`` tasks in all."""
    remaining = sum(sizes)
    share = max(workers, 1) * GUIDED_SHARE
    out: list[list[int]] = []
    current: list[int] = []
    held = 0
    target = min(max(remaining // share, MIN_BATCH), MAX_BATCH)
    for k, size in enumerate(sizes):
        current.append(k)
        held += size
        if held >= target or len(current) >= MAX_FILES_PER_BATCH:
            out.append(current)
            remaining -= held
            current, held = [], 0
            target = min(max(remaining // share, MIN_BATCH), MAX_BATCH)
    if current:
        out.append(current)
    return out


def _apply(func: Callable[..., T], items: Sequence[tuple[Any, ...]]) -> list[T]:
    return [func(*item) for item in items]


def progress_bar(total: int, desc: str, show: bool | None) -> Any:
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="file", disable=None if show is None else not show)


def workers_pay_off(total: int) -> bool:
    """Are worker processes worth it for a corpus of ``total`` bytes, when the caller
    left the choice to prime_nb (``workers=None``)? Not for a small folder, which this
    process reads before workers would be up."""
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
    if workers > 1 and not may_start_processes():
        if chosen:
            warnings.warn(
                f"workers={workers}: this process is a daemonic worker (of a "
                "multiprocessing Pool, say), which may not start processes; reading "
                "the corpus in this process",
                stacklevel=4,
            )
        workers = 1
    items = [(p,) for p in paths] if extra is None else list(zip(paths, extra, strict=True))
    results: dict[int, T] = {}
    rest = list(range(len(paths)))
    with progress_bar(len(paths), desc, progress) as bar:
        if workers <= 1 or len(rest) <= 1:
            for k in rest:
                results[k] = func(*items[k])
                bar.update(1)
        else:
            rest_sizes = [sizes[k] for k in rest]
            groups = [[rest[k] for k in group] for group in guided_batches(rest_sizes, workers)]
            groups.sort(key=lambda group: -sum(sizes[k] for k in group))  # biggest first
            failed = _in_batches(func, items, groups, workers, results, bar)
            _one_by_one(func, items, failed, results, on_error, bar)
        out = [results[k] for k in range(len(paths))]
        shown = not bar.disable
    if shown:  # under the closed bar, where a terminal and a notebook both keep it
        seconds = time.perf_counter() - start
        print(_final_line(len(paths), sum(sizes), seconds, out, describe) + note)
    return out


def _in_batches(
    func: Callable[..., T],
    items: list[tuple[Any, ...]],
    groups: list[list[int]],
    workers: int,
    results: dict[int, T],
    bar: Any,
) -> list[int]:
    """Run the batches in a new pool; return the indexes of files whose batch a dead
    worker took down."""
    failed: list[int] = []
    pool = process_pool(workers)
    try:
        with without_main_script():  # workers start as tasks are submitted
            futures = {
                pool.submit(_apply, func, [items[k] for k in group]): group for group in groups
            }
        for future in as_completed(futures):
            group = futures[future]
            try:
                values = future.result()
            except Exception:  # a worker died (out of memory, killed...)
                failed.extend(group)
                continue
            for k, value in zip(group, values, strict=True):
                results[k] = value
            bar.update(len(group))
    except BaseException:  # an interrupt: no worker may go on reading for nothing
        stop(pool)
        raise
    pool.shutdown()
    return sorted(failed)


def stop(pool: ProcessPoolExecutor) -> None:
    """End the pool's workers now, their batches unfinished."""
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        with suppress(OSError, ValueError, AttributeError):  # gone already
            process.kill()
    pool.shutdown(wait=False, cancel_futures=True)


def _one_by_one(
    func: Callable[..., T],
    items: list[tuple[Any, ...]],
    indexes: list[int],
    results: dict[int, T],
    on_error: Callable[[str, BaseException], T],
    bar: Any,
) -> None:
    """Files again, each alone in one worker: a death now is that file's own."""
    pool: ProcessPoolExecutor | None = None
    try:
        for k in indexes:
            pool = pool or process_pool(1)
            try:
                with without_main_script():
                    future = pool.submit(func, *items[k])
                results[k] = future.result()
            except BrokenProcessPool as exc:
                results[k] = on_error(items[k][0], exc)
                pool.shutdown(wait=False)
                pool = None
            except Exception as exc:
                results[k] = on_error(items[k][0], exc)
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
