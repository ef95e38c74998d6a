"""Worker processes started from a plain script: its top level runs once, never per worker.

A forkserver (or spawn) worker imports the caller's script again unless it is hidden;
a script without an ``if __name__ == "__main__":`` guard then runs its top level in every
worker, which starts workers of its own. Both users of worker processes (the corpus
functions and the parallel load) are run here from such a script, in a fresh interpreter.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

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
