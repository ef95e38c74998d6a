"""load() (tables + graph) against a bare orjson-per-line parse of the same bytes.

Usage: python benchmarks/bench_load.py [SIZE_MB ...]   (default: 100)
Prints, per size: the ratio load / bare parse, peak RSS of a process that only loads
(as a multiple of the file size), and refresh() after one appended line as a
fraction of a full load. Baselines are measured in the same run.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).parent))
from machine import describe

import prime_nb
from prime_nb.datasets import write_large_session

RSS_PROBE = """
import sys, json

def hwm_kib():
    # VmHWM: this process's own peak (ru_maxrss can carry the parent's peak over exec)
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])

import prime_nb
base = hwm_kib()
mode = sys.argv[2]
if mode == "load":
    s = prime_nb.load(sys.argv[1]); s.entries; s.graph
else:
    import orjson
    with open(sys.argv[1], "rb") as fh:
        for line in fh:
            orjson.loads(line)
peak = hwm_kib()
print(json.dumps({"base_kib": base, "peak_kib": peak}))
"""


def bare_parse(path: Path) -> int:
    count = 0
    with open(path, "rb") as fh:
        for line in fh:
            orjson.loads(line)
            count += 1
    return count


def full_load(path: Path) -> prime_nb.Session:
    session = prime_nb.load(path)
    session.entries  # noqa: B018 - building the table is part of the measure
    session.graph  # noqa: B018
    return session


def stages(path: Path) -> tuple[float, float, float]:
    """Seconds for load alone, then the entries table, then the graph."""
    start = time.perf_counter()
    session = prime_nb.load(path)
    loaded = time.perf_counter()
    session.entries  # noqa: B018
    tabled = time.perf_counter()
    session.graph  # noqa: B018
    done = time.perf_counter()
    return loaded - start, tabled - loaded, done - tabled


def best_of(n: int, fn, *args):  # type: ignore[no-untyped-def]
    best = float("inf")
    result = None
    for _ in range(n):
        result = None  # free the previous run's session before the clock starts
        start = time.perf_counter()
        result = fn(*args)
        best = min(best, time.perf_counter() - start)
    return best, result


def rss(path: Path, mode: str) -> dict[str, int]:
    out = subprocess.run(
        [sys.executable, "-c", RSS_PROBE, str(path), mode],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(out)


def bench(size_mb: int, folder: Path) -> None:
    path = folder / f"bench-{size_mb}mb.jsonl"
    write_large_session(path, size_mb * 1_000_000, seed=size_mb)
    size = path.stat().st_size
    bare_s, lines = best_of(3, bare_parse, path)
    load_s, session = best_of(3, full_load, path)
    parts = [stages(path) for _ in range(3)]
    load_only, table_only, graph_only = (min(p[i] for p in parts) for i in range(3))
    probe_load = rss(path, "load")
    probe_bare = rss(path, "bare")
    extra = (probe_load["peak_kib"] - probe_load["base_kib"]) * 1024
    leaf = session.leaf_id
    entry = {
        "type": "message",
        "id": "feedbeef",
        "parentId": leaf,
        "timestamp": "2026-01-06T00:00:00.000Z",
        "message": {"role": "user", "content": "one more line"},
    }
    refresh_times = []
    for k in range(5):
        entry["id"] = f"feedbe{k:02x}"
        with open(path, "ab") as fh:
            fh.write(orjson.dumps(entry) + b"\n")
        entry["parentId"] = entry["id"]
        start = time.perf_counter()
        session.refresh()
        refresh_times.append(time.perf_counter() - start)
    start = time.perf_counter()
    session.entries  # noqa: B018
    rebuild_s = time.perf_counter() - start
    refresh_s = min(refresh_times)
    print(
        f"\n{size / 1e6:.0f} MB, {lines:,} lines, {len(session):,} entries, "
        f"{len(session.leaves):,} leaves"
    )
    print(f"  bare orjson parse (baseline) {bare_s:8.3f} s  = 1.00")
    print(
        f"  load + entries + graph       {load_s:8.3f} s  = {load_s / bare_s:.2f} x baseline"
        f"   (goal <= 2.0)"
    )
    print(
        f"    of which load {load_only / bare_s:.2f} x, entries table {table_only / bare_s:.2f} x,"
        f" graph {graph_only / bare_s:.2f} x (each the best of 3)"
    )
    print(
        f"  peak RSS of load             {probe_load['peak_kib'] / 1024:8.0f} MiB"
        f" = {probe_load['peak_kib'] * 1024 / size:.2f} x file size"
        f" ({extra / size:.2f} x above the interpreter's"
        f" {probe_load['base_kib'] / 1024:.0f} MiB; bare parse peaks at"
        f" {probe_bare['peak_kib'] / 1024:.0f} MiB)   (goal <= 3.0)"
    )
    print(
        f"  refresh() after 1 line       {refresh_s * 1000:8.2f} ms = "
        f"{refresh_s / load_s:.5f} x full load   (goal < 20 ms)"
    )
    print(f"  entries table after refresh  {rebuild_s * 1000:8.1f} ms (extended, on next access)")


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [100]
    print(describe())
    print(
        f"prime_nb {prime_nb.__version__}, orjson {orjson.__version__}, "
        f"max RSS so far {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MiB"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            bench(size, Path(tmp))


if __name__ == "__main__":
    main()
