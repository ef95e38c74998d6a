"""Run a per-file function over many files: batches sized by bytes, a process per core.

Why batches: a task per file pays a round trip to a worker per file, and with thousands
of small sessions that overhead rivals the reading. A task here is a batch of files
whose size shrinks with the bytes still to hand out (:func:`guided_batches`): big
batches first, few round trips; small ones last, so no core waits long for the last
batch of another. A file bigger than a batch is a batch of its own (one task reads it:
its summary is a few dicts, never per-entry objects). Workers fork from a
forkserver that has already imported the corpus code, so no worker pays the imports, and
stay up between calls for a while (``_pool``); while the forkserver starts, the first
time in a process, this process reads the smallest batches itself (``_hand_out``).
If a worker dies (out of memory, killed), the files of the batches it took down are run
again one at a time, so that only the file that kills a worker gets an error row.
"""

from __future__ import annotations

import operator
import os
import threading
import time
import warnings
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import forkserver
from typing import Any, TypeVar

from .._words import counted
from .._workers import may_start_processes, usable_cores, without_main_script
from ._pool import new_pool, shared

T = TypeVar("T")

MIN_BATCH = 1 << 20
MAX_BATCH = 64 << 20
MAX_FILES_PER_BATCH = 1000
#: a guided batch holds 1 / (workers x this) of the bytes not yet handed out
GUIDED_SHARE = 4
#: with ``workers=None``, a corpus of fewer bytes is read in this process: one core reads
#: it in some 30 ms, about what handing it to workers and back costs even when they are up
IN_PROCESS_MAX = 8 << 20
#: ... and of fewer bytes than this while this process has no forkserver: starting one
#: (it imports the loader, without pandas) and forking two workers takes about 0.2 s,
#: as long as one core takes to read this much, and the workers read it in half that
#: again; a bigger corpus pays for the start
COLD_IN_PROCESS_MAX = 64 << 20


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


def forkserver_running() -> bool:
    """Whether this process has a forkserver already (started by an earlier call)."""
    server = getattr(forkserver, "_forkserver", None)
    return getattr(server, "_forkserver_pid", None) is not None


def workers_pay_off(total: int) -> bool:
    """Are worker processes worth it for a corpus of ``total`` bytes, when the caller
    left the choice to prime_nb (``workers=None``)? Not for a small folder: a first call
    on five small sessions took 0.65 s in workers against 7 ms in this process."""
    if total < IN_PROCESS_MAX:
        return False
    return total >= COLD_IN_PROCESS_MAX or forkserver_running()


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
    """Run the batches; return the indexes of files whose batch a dead worker took down.

    The kept pool may have broken while idle: a notebook's interrupt signals every
    process of the kernel's group, and its idle workers die of it. Such a pool refuses
    the first batch; it is then discarded, and the batches not read yet go to a new
    one, once."""
    failed: list[int] = []

    def in_pool(batches: list[list[int]]) -> None:
        """The batches in the kept pool; a pool that refuses them is discarded, and the
        refusal raised."""
        with shared.use(workers) as pool:
            try:
                cold = not forkserver_running()
                futures = _hand_out(pool, func, items, batches, results, bar, cold)
            except BrokenProcessPool:
                shared.discard(pool)
                raise
            for future in as_completed(futures):
                group = futures[future]
                try:
                    values = future.result()
                except Exception:  # a worker died (out of memory, killed...)
                    failed.extend(group)
                    shared.discard(pool)
                    continue
                for k, value in zip(group, values, strict=True):
                    results[k] = value
                bar.update(len(group))

    try:
        in_pool(groups)
    except BrokenProcessPool:  # a kept pool that broke while idle: a new one, once
        in_pool([rest for group in groups if (rest := [k for k in group if k not in results])])
    return sorted(failed)


def _hand_out(
    pool: Any,
    func: Callable[..., T],
    items: list[tuple[Any, ...]],
    groups: list[list[int]],
    results: dict[int, T],
    bar: Any,
    cold: bool,
) -> dict[Future[list[T]], list[int]]:
    """Every batch given to the pool, in order (biggest first), or read here.

    ``cold``: this process has no forkserver yet. Starting one takes about 0.2 s (it
    imports the loader), and the first worker start waits for it.
    So the batches are given from another thread while this one reads files itself,
    until that thread has given the rest: the first corpus call of a process does not
    leave a core idle while the server starts. It reads them one at a time from the
    next batch to be given (the biggest after the one the pool waits with): taking
    the smallest batches instead took the very ones that let the workers end together
    (guided batches shrink toward the end), and one worker then waited for the other's
    last big batch, up to a tenth of a second.
    """
    futures: dict[Future[list[T]], list[int]] = {}
    pending = deque(groups)
    lock = threading.Lock()
    taken = threading.Event()  # the first batch is the pool's (or there was none)
    given = threading.Event()
    failure: list[BaseException] = []

    def give() -> None:
        try:
            with without_main_script():  # workers start as tasks are submitted
                while True:
                    with lock:
                        if not pending:
                            return
                        group = pending.popleft()
                    taken.set()
                    futures[pool.submit(_apply, func, [items[k] for k in group])] = group
        except BaseException as exc:  # handed to the caller's thread
            failure.append(exc)
        finally:
            taken.set()
            given.set()

    if not cold:
        give()
    else:
        giver = threading.Thread(target=give, name="prime-nb-corpus-start", daemon=True)
        giver.start()
        try:
            taken.wait()
            while not given.is_set():
                with lock:
                    if not pending:
                        break
                    k = pending[0].pop()
                    if not pending[0]:
                        pending.popleft()
                results[k] = func(*items[k])
                bar.update(1)
        finally:  # an interrupt here: give the workers nothing more
            with lock:
                pending.clear()
        giver.join()
    if failure:
        raise failure[0]
    return futures


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
            pool = pool or new_pool(1)
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
