"""A corpus of generated sessions: sequential pandas vs processes vs Dask LocalCluster.

Usage: python benchmarks/bench_corpus.py [SESSIONS] [MB_PER_SESSION]   (default: 2000 0.5)
Loads every session (the one-row-per-session table) and prints MB/s for each engine as a
ratio against the sequential pandas path measured in the same run, plus the scaling
efficiency (speed-up divided by workers).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from machine import describe

from prime_nb import corpus
from prime_nb.datasets import write_large_session


def timed(label: str, fn, baseline: float | None, workers: int, size: int):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    frame = fn()
    seconds = time.perf_counter() - start
    rate = size / 1e6 / seconds
    speedup = baseline / seconds if baseline else 1.0
    print(
        f"  {label:34s} {seconds:7.2f} s {rate:7.1f} MB/s  = {speedup:.2f} x sequential"
        f"   efficiency {speedup / workers:.2f}  ({len(frame)} rows)"
    )
    return seconds


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    each_mb = float(sys.argv[2]) if len(sys.argv) > 2 else 0.5
    print(describe())
    from distributed import Client, LocalCluster

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        start = time.perf_counter()
        for k in range(count):
            write_large_session(root / f"s{k:05d}.jsonl", int(each_mb * 1_000_000), seed=k)
        size = sum(p.stat().st_size for p in root.glob("*.jsonl"))
        print(
            f"{count} sessions, {size / 1e9:.2f} GB, generated in "
            f"{time.perf_counter() - start:.0f} s"
        )
        cores = os.cpu_count() or 1
        base = timed(
            "sequential pandas (baseline)",
            lambda: corpus.load_corpus(root, workers=1, progress=False),
            None,
            1,
            size,
        )
        timed(
            f"processes ({cores} workers)",
            lambda: corpus.load_corpus(root, workers=cores, progress=False),
            base,
            cores,
            size,
        )
        for workers in (1, 2):
            with (
                LocalCluster(
                    n_workers=workers,
                    threads_per_worker=1,
                    processes=True,
                    host="127.0.0.1",
                    dashboard_address=None,
                ) as cluster,
                Client(cluster),
            ):
                timed(
                    f"Dask LocalCluster ({workers} worker{'s' if workers > 1 else ''})",
                    lambda: corpus.sessions_dask(root, files_per_partition=20).compute(),
                    base,
                    workers,
                    size,
                )


if __name__ == "__main__":
    main()
