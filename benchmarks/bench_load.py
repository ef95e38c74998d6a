"""load(), against a bare single-process orjson parse of the same file.

Usage:
    python benchmarks/bench_load.py [--size MB] [--shapes big,dense] [--repeat N]

Two shapes of file, both ``--size`` MB (default 100):

- ``big``: ``sessiongen.write_large_session``, about 2.7 KB an entry (tool outputs,
  file reads, screenshots), branchy, compacted;
- ``dense``: the same generator with short texts in the specification's dialect (tool
  calls and results on lines of their own), about 455 bytes an entry: many small entries.

For each it prints, as ratios to the bare parse measured in the same run (best of
``--repeat``): load + entries, load + entries + graph, each stage, the CPU seconds
against the bare parse's, the first load in a fresh process, and the peak RSS of a
fresh process that loads the file (per file size, and per entry beyond the file size).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).parent))
sys.path.append(str(Path(__file__).resolve().parents[1]))  # the session generators
from machine import describe

import prime_nb
from sessiongen import write_large_session
from sessiongen._core import Converter
from sessiongen._large import Scale, _LargeGen

#: texts short enough for about 455 bytes an entry in the spec dialect
DENSE = Scale((10, 80), (20, 160), (20, 160), (20, 200), (150, 400), 0.01, (60, 120), 0)

PROBE = r"""
import json, sys, time

def hwm():
    # VmHWM: this process's own peak (ru_maxrss can carry the parent's peak over exec)
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024

path, mode = sys.argv[1], sys.argv[2]
import prime_nb
out = {"base": hwm()}
if mode == "load":
    start = time.perf_counter()
    session = prime_nb.load(path)
    session.entries
    out["first_load_entries_s"] = time.perf_counter() - start
    out["entries"] = len(session)
    out["peak_entries"] = hwm()
    session.graph
    out["peak_graph"] = hwm()
    import resource
    # ru_maxrss as well: on Linux it can keep the parent's peak over exec (VmHWM cannot)
    out["ru_maxrss"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
else:
    import orjson
    with open(path, "rb") as fh:
        for line in fh:
            orjson.loads(line)
    out["peak"] = hwm()
print(json.dumps(out))
"""


def write_dense_session(path: Path, target_bytes: int, seed: int = 0) -> Path:
    """Many small entries (about 455 bytes each): short texts, spec dialect."""
    gen = _LargeGen(seed, DENSE)
    conv = Converter(3, "spec", gen.b.new_id)
    written = 0
    with path.open("wb", buffering=1 << 20) as fh:
        lines = [orjson.dumps(conv.header(gen.b.header))]
        chunk = gen.opening()
        while True:
            for entry in chunk:
                lines.extend(orjson.dumps(x) for x in conv.convert(entry))
            data = b"\n".join(lines) + b"\n"
            fh.write(data)
            written += len(data)
            if written >= target_bytes:
                return path
            lines = []
            chunk = gen.step(1 << 30)


SHAPES: dict[str, Callable[[Path, int], Path]] = {
    "big": lambda path, size: write_large_session(path, size, seed=7),
    "dense": lambda path, size: write_dense_session(path, size, seed=7),
}


def bare_parse(path: Path) -> int:
    count = 0
    with open(path, "rb") as fh:
        for line in fh:
            orjson.loads(line)
            count += 1
    return count


def timed(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    """(wall seconds, CPU seconds, result)."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return wall, cpu, result


def best(repeat: int, fn: Callable[[], Any]) -> tuple[float, float, Any]:
    runs = []
    for _ in range(repeat):
        runs.append(timed(fn))
    wall = min(r[0] for r in runs)
    cpu = min(r[1] for r in runs)
    return wall, cpu, runs[-1][2]


def probe(path: Path, mode: str) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(path), mode],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def with_entries(path: Path) -> prime_nb.Session:
    session = prime_nb.load(path)
    session.entries  # noqa: B018 - building the table is part of the measure
    return session


def stages(path: Path) -> tuple[list[float], list[float], prime_nb.Session]:
    """Wall seconds of load, entries table and graph; CPU seconds after the entries
    table and after the graph."""
    cpu0, wall0 = time.process_time(), time.perf_counter()
    session = prime_nb.load(path)
    wall1 = time.perf_counter()
    session.entries  # noqa: B018
    wall2, cpu2 = time.perf_counter(), time.process_time()
    session.graph  # noqa: B018
    wall3, cpu3 = time.perf_counter(), time.process_time()
    return [wall1 - wall0, wall2 - wall1, wall3 - wall2], [cpu2 - cpu0, cpu3 - cpu0], session


def bench(shape: str, size_mb: float, folder: Path, repeat: int) -> None:
    path = SHAPES[shape](folder / f"{shape}.jsonl", int(size_mb * 1_000_000))
    size = path.stat().st_size
    with_entries(path)  # the page cache warm
    bare_s, bare_cpu, lines = best(repeat, lambda: bare_parse(path))
    runs = []
    for _ in range(repeat):
        runs.append(stages(path))
    session = runs[-1][2]
    le_s = min(w[0] + w[1] for w, _, _ in runs)
    leg_s = min(sum(w) for w, _, _ in runs)
    load_s, table_s, graph_s = (min(w[k] for w, _, _ in runs) for k in range(3))
    le_cpu = min(c[0] for _, c, _ in runs)
    leg_cpu = min(c[1] for _, c, _ in runs)
    n = len(session)
    cold = probe(path, "load")
    bare_rss = probe(path, "bare")
    peak = cold["peak_entries"]
    print(
        f"\n{shape}: {size / 1e6:.0f} MB, {lines:,} lines, {n:,} entries "
        f"({size / n:,.0f} bytes an entry), {len(session.leaves):,} leaves"
    )
    print(f"  bare orjson parse, 1 process  {bare_s:7.3f} s = 1.00     CPU {bare_cpu:6.2f} s")
    for label, wall, cpu in (
        ("load + entries", le_s, le_cpu),
        ("load + entries + graph", leg_s, leg_cpu),
    ):
        print(
            f"  {label:<29} {wall:7.3f} s = {wall / bare_s:4.2f} x   CPU {cpu:6.2f} s = "
            f"{cpu / bare_cpu:4.2f} x"
        )
    print(
        f"    stages: load {load_s / bare_s:.2f} x, entries table {table_s / bare_s:.2f} x, "
        f"graph {graph_s / bare_s:.2f} x (each the best of {repeat})"
    )
    print(
        f"  first load + entries in a fresh process {cold['first_load_entries_s']:.3f} s "
        f"= {cold['first_load_entries_s'] / bare_s:.2f} x"
    )
    print(
        f"  peak RSS, load + entries   {peak / 2**20:6.0f} MiB = {peak / size:.2f} x file"
        f" = file + {(peak - size) / n:,.0f} B an entry"
    )
    print(
        f"    with the graph           {cold['peak_graph'] / 2**20:6.0f} MiB = "
        f"{cold['peak_graph'] / size:.2f} x file; interpreter and imports "
        f"{cold['base'] / 2**20:.0f} MiB; bare parse peaks at {bare_rss['peak'] / 2**20:.0f} MiB"
    )
    print(
        f"    (getrusage ru_maxrss: {cold['ru_maxrss'] / 2**20:.0f} MiB, which on Linux keeps"
        " this benchmark's own peak over exec: VmHWM above is the probe's)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=float, default=100, help="MB per file")
    parser.add_argument("--shapes", default="big,dense")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(describe())
    print(f"prime_nb {prime_nb.__version__}, orjson {orjson.__version__}")
    with tempfile.TemporaryDirectory() as tmp:
        for shape in args.shapes.split(","):
            bench(shape, args.size, Path(tmp), args.repeat)


if __name__ == "__main__":
    main()
