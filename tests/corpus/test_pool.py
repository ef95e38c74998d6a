"""The corpus workers: guided batches, and one pool kept warm between calls."""

from __future__ import annotations

import os
import signal
import threading
import time
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from research_sessions import branchy, compacted
from session_matrix import write_all

from prime_nb.corpus import _pool, _runner, corpus_branches, corpus_compactions, load_corpus
from prime_nb.corpus._runner import MAX_BATCH, MIN_BATCH, guided_batches


def test_guided_batches_shrink_towards_the_end() -> None:
    sizes = [300_000 + (k * 7919) % 400_000 for k in range(2000)]  # about 1 GB
    groups = guided_batches(sizes, 2)
    assert [k for g in groups for k in g] == list(range(len(sizes)))  # each once, in order
    held = [sum(sizes[k] for k in g) for g in groups]
    assert held[0] > 40 * held[-2]  # big first, small last
    assert all(h <= MAX_BATCH + max(sizes) for h in held)
    assert all(h >= MIN_BATCH for h in held[:-1])
    assert held[-1] <= MIN_BATCH + max(sizes)  # the cores finish within one small batch
    assert 20 <= len(groups) <= 80  # not a task per file


def test_guided_batches_give_a_big_file_its_own_batch() -> None:
    sizes = [1 << 20] * 10 + [500 << 20] + [1 << 20] * 10
    groups = guided_batches(sizes, 2)
    assert [k for g in groups for k in g] == list(range(len(sizes)))
    assert [10] in groups or any(g[-1] == 10 for g in groups)


@pytest.mark.parametrize("sizes", [[], [0], [0, 0, 0], [5]])
def test_guided_batches_of_nothing_much(sizes: list[int]) -> None:
    groups = guided_batches(sizes, 4)
    assert [k for g in groups for k in g] == list(range(len(sizes)))


def _worker_pids(pool: object) -> set[int]:
    return set(getattr(pool, "_processes", {}))


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for k in range(4):
        (branchy if k % 2 else compacted)(tmp_path / f"s{k}.jsonl")
    return tmp_path


def test_the_next_call_reuses_the_warm_workers(folder: Path) -> None:
    _pool.shared.shutdown()
    first = load_corpus(folder, workers=2, progress=False)
    pool = _pool.shared.pool
    assert pool is not None
    pids = _worker_pids(pool)
    again = load_corpus(folder, workers=2, progress=False)
    assert _pool.shared.pool is pool and _worker_pids(pool) == pids
    assert first.equals(again)


def test_an_idle_pool_is_shut_down(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_pool, "IDLE_SECONDS", 0.2)
    _pool.shared.shutdown()
    load_corpus(folder, workers=2, progress=False)
    pool = _pool.shared.pool
    assert pool is not None
    processes = list(getattr(pool, "_processes", {}).values())
    deadline = time.monotonic() + 30
    while _pool.shared.pool is not None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _pool.shared.pool is None
    for process in processes:
        process.join(timeout=30)
        assert not process.is_alive()


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGKILL], ids=["interrupt", "killed"])
def test_a_kept_pool_whose_idle_workers_died_is_replaced(folder: Path, how: int) -> None:
    """A notebook's interrupt signals every process of the kernel's group: the kept
    pool's idle workers die of it, and the next corpus call must still work, in workers
    (not file by file)."""
    _pool.shared.shutdown()
    first = load_corpus(folder, workers=2, progress=False)
    pool = _pool.shared.pool
    assert pool is not None
    processes = list(getattr(pool, "_processes", {}).values())
    for process in processes:
        os.kill(process.pid, how)
    for process in processes:
        process.join(timeout=30)
    deadline = time.monotonic() + 30  # the pool's own thread marks it broken
    while not getattr(pool, "_broken", False) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert getattr(pool, "_broken", False)
    one_by_one = []
    real = _runner._one_by_one

    def spy(func: Any, items: Any, indexes: list[int], *rest: Any) -> None:
        one_by_one.extend(indexes)
        real(func, items, indexes, *rest)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_runner, "_one_by_one", spy)
        again = load_corpus(folder, workers=2, progress=False)
    pd.testing.assert_frame_equal(again, first)
    assert one_by_one == []
    assert _pool.shared.pool is not None and _pool.shared.pool is not pool


def test_an_interrupt_ends_a_worker_without_a_traceback() -> None:
    """Its default action: the process ends, and Python prints nothing."""
    with _pool.new_pool(1) as pool:
        assert pool.submit(signal.getsignal, signal.SIGINT).result() == signal.SIG_DFL


def test_a_second_pool_that_refuses_the_batches_fails_the_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Replaced once, not forever: a pool that breaks again is the caller's error."""
    tries: list[object] = []

    def refused(pool: object, *args: Any) -> Any:
        tries.append(pool)
        raise BrokenProcessPool("the workers died at start")

    monkeypatch.setattr(_runner, "_hand_out", refused)
    bar = _runner.progress_bar(2, "test", False)
    with pytest.raises(BrokenProcessPool, match="died at start"):
        _runner._in_batches(abs, [(1,), (2,)], [[0], [1]], 1, {}, bar)
    assert len(tries) == 2 and tries[0] is not tries[1]
    assert _pool.shared.pool is None  # both discarded


def test_another_size_while_busy_gets_a_pool_of_its_own() -> None:
    shared = _pool.SharedPool()
    with shared.use(2) as kept:
        with shared.use(1) as other:
            assert other is not kept
            assert other.submit(os.getpid).result() != os.getpid()
        assert shared.pool is kept
    with shared.use(1) as resized:  # nobody uses it: remade at the size asked for
        assert resized is not kept and shared.pool is resized
    shared.shutdown()
    assert shared.pool is None


def test_a_discarded_pool_is_never_handed_out_again() -> None:
    shared = _pool.SharedPool()
    with shared.use(1) as pool:
        shared.discard(pool)
    with shared.use(1) as fresh:
        assert fresh is not pool
        assert fresh.submit(os.getpid).result() > 0
    shared.shutdown()


def test_a_forked_child_does_not_use_its_parents_pool() -> None:
    shared = _pool.SharedPool()
    with shared.use(1) as pool:
        pass
    shared._owner = -1  # as a child forked from this process sees it
    with shared.use(1) as own:
        assert own is not pool
    pool.shutdown()
    shared.shutdown()


def test_a_small_corpus_is_read_in_this_process_unless_workers_are_asked_for(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``workers=None`` leaves the choice to prime_nb: a folder of a few sessions costs a
    few ms in this process and far more in workers (0.65 s for a first call, which starts
    the forkserver). A number of workers is what the caller asked for, whatever the size."""
    monkeypatch.setattr(_runner, "usable_cores", lambda: 2)
    _pool.shared.shutdown()
    here = load_corpus(folder, progress=False)
    assert _pool.shared.pool is None  # no worker started
    asked = load_corpus(folder, workers=2, progress=False)
    assert _pool.shared.pool is not None
    assert here.equals(asked) and here.equals(load_corpus(folder, workers=1, progress=False))
    _pool.shared.shutdown()


@pytest.mark.parametrize(
    ("total", "server_up", "pays"),
    [
        (0, True, False),
        ((8 << 20) - 1, True, False),  # under IN_PROCESS_MAX: never
        (8 << 20, True, True),  # workers already forked from a running server
        (8 << 20, False, False),  # a server to start first: not for so little
        ((64 << 20) - 1, False, False),
        (64 << 20, False, True),  # big enough to pay for starting the server
    ],
)
def test_when_workers_pay_off(
    total: int, server_up: bool, pays: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_runner, "forkserver_running", lambda: server_up)
    assert _runner.workers_pay_off(total) is pays


def test_a_corpus_worth_workers_uses_them_by_default(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_runner, "usable_cores", lambda: 2)
    monkeypatch.setattr(_runner, "IN_PROCESS_MAX", 0)
    monkeypatch.setattr(_runner, "COLD_IN_PROCESS_MAX", 0)
    _pool.shared.shutdown()
    load_corpus(folder, progress=False)
    pool = _pool.shared.pool
    assert pool is not None and getattr(pool, "_max_workers", 0) == 2
    _pool.shared.shutdown()


class StartingPool:
    """A pool whose first submit waits, as a forkserver that is still importing does,
    here until this process has read ``wait_for`` batches itself; tasks run at once."""

    def __init__(self, read_here: threading.Event, fail: BaseException | None = None) -> None:
        self.read_here, self.fail = read_here, fail
        self.given: list[list[tuple[int, ...]]] = []

    def submit(self, fn: Any, func: Any, items: list[tuple[int, ...]]) -> Future[Any]:
        assert self.read_here.wait(10)
        if self.fail is not None:
            raise self.fail
        self.given.append(items)
        future: Future[Any] = Future()
        future.set_result(fn(func, items))
        return future


def _hand_out(pool: Any, groups: list[list[int]], cold: bool, func: Any) -> tuple[Any, ...]:
    items = [(k,) for k in range(sum(len(g) for g in groups))]
    results: dict[int, Any] = {}
    bar = _runner.progress_bar(len(items), "test", False)
    futures = _runner._hand_out(pool, func, items, groups, results, bar, cold)
    for future, group in futures.items():
        results.update(zip(group, future.result(), strict=True))
    return futures, results


def test_a_cold_start_reads_files_of_the_next_batch_here_while_the_server_starts() -> None:
    """The first call of a process: the batches go to the pool from another thread, and
    this one reads files one at a time from the next batch to be given, until that
    thread has given the rest. The small last batches stay with the pool: they are the
    ones that let the workers end together."""
    here: list[int] = []
    main = threading.current_thread()
    read_here = threading.Event()

    def square(k: int) -> int:
        if threading.current_thread() is main:
            here.append(k)
            if len(here) == 3:  # the second batch read here, file by file, and then
                read_here.set()  # the server is up: the other thread gives the rest
                deadline = time.monotonic() + 10
                while len(pool.given) < 5 and time.monotonic() < deadline:
                    time.sleep(0.001)
        return k * k

    groups = [[0, 1, 2, 3], [4, 5, 6], [7, 8], [9], [10], [11]]
    pool = StartingPool(read_here)
    futures, results = _hand_out(pool, groups, True, square)
    assert results == {k: k * k for k in range(12)}  # each file once, wherever it was read
    assert here == [6, 5, 4]  # the batch after the pool's first, from its end
    assert [[k for (k,) in items] for items in pool.given] == [
        [0, 1, 2, 3],
        [7, 8],
        [9],
        [10],
        [11],
    ]
    assert sorted(len(g) for g in futures.values()) == [1, 1, 1, 2, 4]


def test_a_cold_start_reads_part_of_a_batch_and_gives_the_rest() -> None:
    read_here = threading.Event()
    main = threading.current_thread()
    here: list[int] = []

    def one_then_up(k: int) -> int:
        if threading.current_thread() is main:
            here.append(k)
            read_here.set()  # the server is up after one file read here
            deadline = time.monotonic() + 10
            while len(pool.given) < 2 and time.monotonic() < deadline:
                time.sleep(0.001)
        return -k

    pool = StartingPool(read_here)
    _, results = _hand_out(pool, [[0, 1], [2, 3, 4]], True, one_then_up)
    assert results == {k: -k for k in range(5)}
    assert here == [4]
    assert [[k for (k,) in items] for items in pool.given] == [[0, 1], [2, 3]]


def test_a_warm_start_gives_every_batch_to_the_workers() -> None:
    read_here = threading.Event()
    read_here.set()
    pool = StartingPool(read_here)
    groups = [[0, 1], [2], [3]]
    _, results = _hand_out(pool, groups, False, lambda k: -k)
    assert results == {0: 0, 1: -1, 2: -2, 3: -3}
    assert len(pool.given) == 3


def test_a_pool_that_fails_to_start_fails_the_call_in_the_callers_thread() -> None:
    read_here = threading.Event()
    pool = StartingPool(read_here, fail=BrokenProcessPool("a worker died at start"))

    def slow(k: int) -> int:
        read_here.set()
        return k

    with pytest.raises(BrokenProcessPool, match="died at start"):
        _hand_out(pool, [[0], [1], [2]], True, slow)


def test_an_interrupt_while_reading_here_gives_the_workers_nothing_more() -> None:
    read_here = threading.Event()
    pool = StartingPool(read_here)

    main = threading.current_thread()

    def interrupted(k: int) -> int:
        if threading.current_thread() is main:
            raise KeyboardInterrupt  # Ctrl-C while this process reads a batch
        return k

    with pytest.raises(KeyboardInterrupt):
        _hand_out(pool, [[0], [1], [2], [3]], True, interrupted)
    read_here.set()  # the server is up now: the giving thread goes on, with nothing left
    for thread in threading.enumerate():
        if thread.name == "prime-nb-corpus-start":
            thread.join(10)
    assert len(pool.given) == 1  # only the batch it was giving when interrupted


@pytest.mark.parametrize("table", [load_corpus, corpus_compactions, corpus_branches])
def test_a_cold_first_call_gives_the_rows_of_one_process(
    folder: Path, monkeypatch: pytest.MonkeyPatch, table: Any
) -> None:
    """Over the whole session matrix (every fixture, version and dialect, empty and
    hostile sessions) and a run of small sessions: the same table, however the files
    were shared between this process and the workers."""
    for k in range(4, 40):  # enough batches for both ends
        (branchy if k % 2 else compacted)(folder / f"s{k}.jsonl")
    write_all(folder / "matrix")
    monkeypatch.setattr(_runner, "forkserver_running", lambda: False)
    monkeypatch.setattr(_runner, "MIN_BATCH", 1)
    cold = table(folder, workers=2, progress=False)
    monkeypatch.undo()
    pd.testing.assert_frame_equal(cold, table(folder, workers=1, progress=False))
