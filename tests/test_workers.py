"""Worker processes started from a plain script: its top level runs once, never per worker.

A forkserver (or spawn) worker imports the caller's script again unless it is hidden;
a script without an ``if __name__ == "__main__":`` guard then runs its top level in every
worker, which starts workers of its own. Both users of worker processes (the corpus
functions and the parallel load) are run here from such a script, in a fresh interpreter.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from research_sessions import branchy, compacted

from prime_nb import _workers


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
    root = Path(__file__).resolve().parents[1]
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


def test_corpus_workers_do_not_run_the_script_again(tmp_path: Path) -> None:
    for k in range(6):
        (branchy if k % 2 else compacted)(tmp_path / f"s{k}.jsonl")
    done, runs = run_script(
        tmp_path,
        f"""
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


def test_parallel_load_workers_do_not_run_the_script_again(tmp_path: Path) -> None:
    compacted(tmp_path / "one.jsonl")
    done, runs = run_script(
        tmp_path,
        f"""
        from prime_nb.session import _parallel
        _parallel.SETTINGS.threshold = 0
        _parallel.SETTINGS.min_entries = _parallel.SETTINGS.cold_min_entries = 0
        _parallel.SETTINGS.processes = 2
        _parallel.SETTINGS.start_method = "forkserver"
        _parallel.SETTINGS.server_start = 0.0
        _parallel.SETTINGS.chunks = 1000
        _parallel.SETTINGS.chunks_here = 1
        import prime_nb
        session = prime_nb.load({str(tmp_path / "one.jsonl")!r})
        print(len(session.entries), session._load_report.processes)
        """,
    )
    assert done.returncode == 0, done.stderr
    assert len(runs) == 1, f"the script's top level ran {len(runs)} times"
    assert done.stdout.split() == ["14", "2"]


def test_the_forkserver_preloads_what_both_users_asked_for() -> None:
    before = set(_workers._PRELOAD)
    try:
        _workers.context_for("forkserver", ["json"])
        _workers.context_for("forkserver", ["csv"])
        assert {"json", "csv"} <= _workers._PRELOAD
        _workers.context_for("spawn", ["never.imported"])
        assert "never.imported" not in _workers._PRELOAD
    finally:
        _workers._PRELOAD.clear()
        _workers._PRELOAD.update(before)


def test_usable_cores_follow_the_affinity() -> None:
    assert _workers.usable_cores() == len(os.sched_getaffinity(0))


class FakeLibc:
    """Records glibc calls (the real ones change this test process's heap)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, int]] = []

    def mallopt(self, param: int, value: int) -> int:
        self.calls.append(("mallopt", param, value))
        return 1

    def malloc_trim(self, pad: int) -> int:
        self.calls.append(("malloc_trim", pad, 0))
        return 1


def test_roomy_heap_undoes_eager_trimming_and_puts_it_back() -> None:
    libc = FakeLibc()
    environ = {"MALLOC_TRIM_THRESHOLD_": "65536"}  # as Dask sets in its workers
    with _workers.roomy_heap(environ, libc):
        with _workers.roomy_heap(environ, libc):  # nested: one change
            assert libc.calls == [
                ("mallopt", _workers._M_TRIM_THRESHOLD, _workers._ROOMY_TRIM),
                ("mallopt", _workers._M_MMAP_THRESHOLD, _workers._ROOMY_MMAP),
            ]
        assert len(libc.calls) == 2
    assert libc.calls[2:] == [
        ("mallopt", _workers._M_TRIM_THRESHOLD, 65536),
        ("mallopt", _workers._M_MMAP_THRESHOLD, 128 * 1024),
        ("malloc_trim", 0, 0),
    ]


def test_roomy_heap_restores_even_after_an_error_and_keeps_a_set_mmap_threshold() -> None:
    libc = FakeLibc()
    environ = {"MALLOC_TRIM_THRESHOLD_": "0", "MALLOC_MMAP_THRESHOLD_": "4096"}
    try:
        with _workers.roomy_heap(environ, libc):
            raise KeyError("boom")
    except KeyError:
        pass
    assert libc.calls[-3:] == [
        ("mallopt", _workers._M_TRIM_THRESHOLD, 0),
        ("mallopt", _workers._M_MMAP_THRESHOLD, 4096),
        ("malloc_trim", 0, 0),
    ]
    assert _workers._heap_users == 0


def test_roomy_heap_changes_nothing_in_a_process_that_did_not_ask_for_trimming() -> None:
    libc = FakeLibc()
    with _workers.roomy_heap({}, libc):
        pass
    with _workers.roomy_heap({"MALLOC_TRIM_THRESHOLD_": "lots"}, libc):
        pass
    assert libc.calls == []


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
            _workers.end_quietly_on_interrupt()
            assert signal.getsignal(signal.SIGINT) == want
    finally:
        signal.signal(signal.SIGINT, before)


def _in_a_pool_worker(folder: str, big: str) -> tuple[int, int, list[str], Any, int]:
    """Run in a daemonic worker of a multiprocessing Pool: the corpus with workers asked
    for and by default, and a big file the loader would read in chunks."""
    import warnings

    import prime_nb
    from prime_nb.corpus import load_corpus

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        asked = load_corpus(folder, workers=2, progress=False)
        default = load_corpus(folder, progress=False)
    session = prime_nb.load(big)
    said = [str(w.message) for w in caught]
    report = session._load_report
    return len(asked), len(default), said, (report.processes, report.fell_back), len(session)


def test_a_daemonic_pool_worker_reads_in_its_own_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """multiprocessing refuses children to a Pool's workers (an AssertionError that names
    no way out): the corpus and the loader read in that process instead, and a corpus
    call that asked for workers says so."""
    import multiprocessing

    import prime_nb
    from prime_nb.corpus import _runner
    from prime_nb.session import _parallel
    from sessiongen import write_large_session

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for k in range(4):
        (branchy if k % 2 else compacted)(corpus / f"s{k}.jsonl")
    big = write_large_session(tmp_path / "large.jsonl", 300_000, seed=5)
    for name, value in [
        ("threshold", 0),
        ("min_entries", 0),
        ("cold_min_entries", 0),
        ("processes", 2),
        ("chunks", 8),
        ("server_start", 0.0),  # wait for the workers' server
        ("chunks_here", 1),  # workers read every chunk but the first
    ]:
        monkeypatch.setattr(_parallel.SETTINGS, name, value)
    monkeypatch.setattr(_runner, "workers_pay_off", lambda size: True)
    assert prime_nb.load(big)._load_report.processes > 1  # here, it reads in chunks
    with multiprocessing.get_context("fork").Pool(1) as pool:  # settings inherited
        asked, default, said, processes, entries = pool.apply(
            _in_a_pool_worker, (str(corpus), str(big))
        )
    assert asked == default == 4
    assert len(said) == 1 and "daemonic" in said[0] and "workers=2" in said[0]
    assert processes == (1, None) and entries > 0  # one pass: no failed try at workers
