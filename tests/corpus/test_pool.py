"""The corpus workers: guided batches, and one pool kept warm between calls."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from research_sessions import branchy, compacted

from prime_nb.corpus import _pool, _runner, load_corpus
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
