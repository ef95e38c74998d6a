"""The corpus workers: a plain process pool, started for each call, fed in chunks.

What a user sees: the same rows with or without workers, a small corpus read in this
process, a script's top level run once (never per worker), a daemonic worker that reads
in its own process, and an interrupt that ends the workers with the call.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
from research_sessions import branchy, compacted

from prime_nb.corpus import _runner, load_corpus


@pytest.mark.parametrize("count", [0, 1, 2, 5, 2000])
def test_results_come_in_the_order_of_the_files(count: int) -> None:
    """Each file once, in order, whatever the chunks ``map`` hands the workers."""
    paths = [f"missing-{k}.jsonl" for k in range(count)]
    got = _runner.run(str.upper, paths, 2, "upper", False, lambda path, exc: "")
    assert got == [p.upper() for p in paths]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for k in range(4):
        (branchy if k % 2 else compacted)(tmp_path / f"s{k}.jsonl")
    return tmp_path


class Pools:
    """Records the pools the runner starts (and their sizes)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.started: list[ProcessPoolExecutor] = []
        real = _runner.process_pool

        def spy(workers: int) -> ProcessPoolExecutor:
            pool = real(workers)
            self.started.append(pool)
            return pool

        monkeypatch.setattr(_runner, "process_pool", spy)


def test_a_small_corpus_is_read_in_this_process_unless_workers_are_asked_for(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``workers=None`` leaves the choice to prime_nb: a folder of a few sessions costs a
    few ms in this process and more in workers. A number of workers is what the caller
    asked for, whatever the size."""
    monkeypatch.setattr(_runner, "usable_cores", lambda: 2)
    pools = Pools(monkeypatch)
    here = load_corpus(folder, progress=False)
    assert pools.started == []
    asked = load_corpus(folder, workers=2, progress=False)
    assert [pool._max_workers for pool in pools.started] == [2]  # type: ignore[attr-defined]
    assert here.equals(asked) and here.equals(load_corpus(folder, workers=1, progress=False))


@pytest.mark.parametrize(
    ("total", "pays"), [(0, False), ((8 << 20) - 1, False), (8 << 20, True), (1 << 30, True)]
)
def test_when_workers_pay_off(total: int, pays: bool) -> None:
    assert _runner.workers_pay_off(total) is pays


def test_a_corpus_worth_workers_uses_them_by_default(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_runner, "usable_cores", lambda: 2)
    monkeypatch.setattr(_runner, "IN_PROCESS_MAX", 0)
    pools = Pools(monkeypatch)
    frame = load_corpus(folder, progress=False)
    assert [pool._max_workers for pool in pools.started] == [2]  # type: ignore[attr-defined]
    assert frame["error"].isna().all() and len(frame) == 4


def _slow(k: int) -> int:
    """A task that takes long, but the first."""
    if k:
        time.sleep(30)
    return k


class InterruptedBar:
    """A progress bar whose first update is where the user presses interrupt."""

    def update(self, count: int) -> None:
        raise KeyboardInterrupt("the bar interrupted")


def test_an_interrupt_ends_the_workers_with_the_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers left reading would hold the cores (and memory) for nothing."""
    pools = Pools(monkeypatch)
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt, match="the bar interrupted"):
        _runner._in_pool(_slow, [[0, 1, 2]], 2, [], InterruptedBar())
    assert time.monotonic() - started < 20  # the slow tasks were not waited for
    (pool,) = pools.started
    processes = list(pool._processes.values()) if pool._processes else []  # type: ignore[attr-defined]
    deadline = time.monotonic() + 10
    while any(p.is_alive() for p in processes) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(p.is_alive() for p in processes)


def run_script(tmp_path: Path, body: str) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    marker = tmp_path / "ran.txt"
    script = tmp_path / "unguarded.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import os
            with open({str(marker)!r}, "a") as fh:
                fh.write(f"{{os.getpid()}}\\n")
            """
        )
        + textwrap.dedent(body)
    )
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": f"{root}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=tmp_path,
    )
    return done, marker.read_text().split()


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_corpus_workers_do_not_run_the_script_again(tmp_path: Path, method: str) -> None:
    """A spawned worker imports the caller's script again unless it is hidden; a script
    without an ``if __name__ == "__main__":`` guard would run its top level per worker."""
    for k in range(6):
        (branchy if k % 2 else compacted)(tmp_path / f"s{k}.jsonl")
    done, runs = run_script(
        tmp_path,
        f"""
        import multiprocessing
        multiprocessing.set_start_method({method!r})
        from prime_nb.corpus import corpus_compactions, load_corpus
        frame = load_corpus({str(tmp_path)!r}, workers=2, progress=False)
        again = corpus_compactions({str(tmp_path)!r}, workers=2, progress=False)
        print(len(frame), frame["error"].isna().all(), len(again))
        """,
    )
    assert done.returncode == 0, done.stderr
    assert "bootstrapping" not in done.stderr
    assert len(runs) == 1, f"the script's top level ran {len(runs)} times"
    assert done.stdout.split() == ["6", "True", "6"]  # compacted() has 2 compactions


def test_usable_cores_follow_the_affinity() -> None:
    assert _runner.usable_cores() == len(os.sched_getaffinity(0))


def test_a_worker_ends_quietly_on_an_interrupt_unless_its_caller_ignores_them() -> None:
    """Python's handler (a KeyboardInterrupt, with its traceback) becomes the default
    action (the process ends, silently); an ignored interrupt, inherited from a caller
    started in the background, stays ignored."""
    before = signal.getsignal(signal.SIGINT)
    try:
        for given, want in [
            (signal.default_int_handler, signal.SIG_DFL),
            (signal.SIG_IGN, signal.SIG_IGN),
        ]:
            signal.signal(signal.SIGINT, given)
            _runner.end_quietly_on_interrupt()
            assert signal.getsignal(signal.SIGINT) == want
    finally:
        signal.signal(signal.SIGINT, before)


def _in_a_pool_worker(folder: str) -> tuple[int, int, list[str]]:
    """Run in a daemonic worker of a multiprocessing Pool: the corpus with workers asked
    for and by default."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        asked = load_corpus(folder, workers=2, progress=False)
        default = load_corpus(folder, progress=False)
    return len(asked), len(default), [str(w.message) for w in caught]


def test_a_daemonic_pool_worker_reads_in_its_own_process(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """multiprocessing refuses children to a Pool's workers (an AssertionError that names
    no way out): the corpus reads in that process instead, and a call that asked for
    workers says so."""
    import multiprocessing

    monkeypatch.setattr(_runner, "workers_pay_off", lambda size: True)
    with multiprocessing.get_context("fork").Pool(1) as pool:  # the patch inherited
        asked, default, said = pool.apply(_in_a_pool_worker, (str(folder),))
    assert asked == default == 4
    assert len(said) == 1 and "daemonic" in said[0] and "workers=2" in said[0]
