"""Does every cost grow linearly? Each operation on each session shape at 1x, 2x, 4x, 8x.

Usage: python benchmarks/bench_scaling.py [--quick] [--base N] [--shapes a,b] [--ops x,y]

For each shape of ``sessiongen.SHAPES`` (linear chat, branchy, chained compactions,
comb of leaves, siblings in reverse time order, orphan roots) a file of N, 2N, 4N and 8N
entries is written; every operation (load, each table, context at the active leaf, the
widget's data, search, export_html, compaction forensics...) is timed on a freshly loaded
session, best of a few runs, and the log-log slope of time against size is fitted: about 1
when linear, about 2 when quadratic. Each exponent must be <= 1.15; the last table says
PASS or FAIL per operation and shape (exit status 1 on any FAIL).

Times are printed as ratios to a bare orjson-per-line parse of the same file, measured in
the same run, in CPU seconds of this process by default (``--clock wall`` for wall time):
on a shared machine, other jobs change wall times by a factor of several. An operation
that takes under ``--min-ms`` at 8N is reported as "fast": its slope would be noise.
``--quick`` (N = 200) runs in well under a minute.
"""

from __future__ import annotations

import argparse
import gc
import math
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import orjson

sys.path.insert(0, str(Path(__file__).parent))
sys.path.append(str(Path(__file__).resolve().parents[1]))  # the session generators
from machine import describe

import prime_nb
from prime_nb import analysis
from prime_nb.widget._data import SessionData
from prime_nb.widget._export import export_html
from prime_nb.widget._offline import offline_data
from prime_nb.widget._static import static_html
from sessiongen import SHAPES, write_shape

LIMIT = 1.15
FACTORS = (1, 2, 4, 8)
QUICK_BASE = 200
FULL_BASE = 4_000


def _widget(s: prime_nb.Session, _tmp: Path) -> Any:
    """What SessionWidget sends up front: the `_tree` trait and the offline answers."""
    data = SessionData(s)
    return data.tree(), offline_data(data)


def _search(s: prime_nb.Session, _tmp: Path) -> Any:
    """The widget's first search (it builds every entry's search text)."""
    return SessionData(s).search("the file")


def _export(s: prime_nb.Session, tmp: Path) -> Any:
    out = tmp / "export.html"
    out.unlink(missing_ok=True)
    return export_html(s, out, progress=False)


def _table(name: str) -> Callable[[prime_nb.Session, Path], Any]:
    return lambda s, _tmp: getattr(s, name)


#: name -> what it runs on a loaded session (``load`` is timed apart)
OPERATIONS: dict[str, Callable[[prime_nb.Session, Path], Any]] = {
    **{
        name: _table(name)
        for name in (
            "entries",
            "messages",
            "tool_calls",
            "compactions",
            "leaves",
            "problems",
            "labels",
            "label_table",
            "git_states",
            "child_usage",
            "bash_runs",
            "custom_entries",
            "branch_summaries",
        )
    },
    "state": lambda s, _t: (s.name, s.state, s.agent_status, s.agent_status_at()),
    "summary": lambda s, _t: (s.summary(), repr(s)),
    "path": lambda s, _t: s.path(),
    "context": lambda s, _t: s.context(),
    "widget_data": _widget,
    "widget_static": lambda s, _t: static_html(SessionData(s)),
    "search": _search,
    "export_html": _export,
    "compaction_forensics": lambda s, _t: analysis.compaction_forensics(s),
    "branches": lambda s, _t: analysis.branches(s),
    "fork_points": lambda s, _t: analysis.fork_points(s),
    "branch_segments": lambda s, _t: analysis.branch_segments(s),
    "abandoned_share": lambda s, _t: analysis.abandoned_share(s),
    "context_frame": lambda s, _t: analysis.context_frame(s),
    "graph": _table("graph"),
}
ALL_OPERATIONS = ("load", *OPERATIONS)


@dataclass
class Series:
    """One operation on one shape: seconds per size, and the fitted exponent."""

    seconds: list[float] = field(default_factory=list)
    exponent: float = math.nan
    built_graph: bool = False


@dataclass
class ShapeResult:
    sizes: list[int]
    bare: Series
    ops: dict[str, Series]


def bare_parse(path: Path) -> None:
    with open(path, "rb") as fh:
        for line in fh:
            orjson.loads(line)


#: the clock figures are read from: CPU seconds of this process (the default: other
#: jobs on a shared machine barely move it) or wall seconds (counts worker processes)
CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}
clock = CLOCKS["cpu"]


def best(repeat: int, fn: Callable[[], Any]) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        start = clock()
        fn()
        times.append(clock() - start)
    return min(times)


def time_op(op: str, path: Path, tmp: Path) -> tuple[float, bool]:
    """Seconds of ``op`` on a freshly loaded session; did it build the graph?"""
    if op == "load":
        return best(1, lambda: prime_nb.load(path)), False
    session = prime_nb.load(path)
    gc.collect()
    start = clock()
    OPERATIONS[op](session, tmp)
    seconds = clock() - start
    return seconds, op != "graph" and "graph" in session.__dict__


def fit(sizes: Sequence[int], seconds: Sequence[float]) -> float:
    """Slope of log(seconds) against log(size)."""
    x = np.log(np.asarray(sizes, dtype=np.float64))
    y = np.log(np.maximum(np.asarray(seconds, dtype=np.float64), 1e-9))
    return float(np.polyfit(x, y, 1)[0])


def run_shape(
    shape: str,
    base: int,
    ops: Sequence[str],
    repeat: int,
    tmp: Path,
    progress: Callable[[str], None] = lambda _: None,
) -> ShapeResult:
    """Every operation at every size; the sizes take turns within each repeat, so that a
    busy spell of the machine weighs on all of them rather than on one."""
    sizes = [base * f for f in FACTORS]
    paths = [write_shape(tmp / f"{shape}-{n}.jsonl", shape, n) for n in sizes]
    result = ShapeResult(sizes, Series(), {op: Series() for op in ops})
    result.bare.seconds = [math.inf] * len(sizes)
    for series in result.ops.values():
        series.seconds = [math.inf] * len(sizes)
    for turn in range(repeat):
        for k, path in enumerate(paths):
            seconds = best(1, lambda: bare_parse(path))  # noqa: B023
            result.bare.seconds[k] = min(result.bare.seconds[k], seconds)
        for op in ops:
            progress(f"{shape} {op} (run {turn + 1} of {repeat})")
            series = result.ops[op]
            for k, path in enumerate(paths):
                seconds, built = time_op(op, path, tmp)
                series.seconds[k] = min(series.seconds[k], seconds)
                series.built_graph = series.built_graph or built
    for path in paths:
        path.unlink()
    result.bare.exponent = fit(sizes, result.bare.seconds)
    for series in result.ops.values():
        series.exponent = fit(sizes, series.seconds)
    return result


def verdict(series: Series, min_seconds: float) -> str:
    if series.seconds[-1] < min_seconds:
        return "fast"
    return "PASS" if series.exponent <= LIMIT else "FAIL"


def report_shape(shape: str, result: ShapeResult, min_seconds: float) -> list[str]:
    bare = result.bare.seconds
    head = " ".join(f"{f'{f}x':>9}" for f in FACTORS)
    lines = [
        "",
        f"== {shape}: {', '.join(f'{n:,}' for n in result.sizes)} entries; "
        f"bare parse {bare[0] * 1e3:.1f} .. {bare[-1] * 1e3:.1f} ms "
        f"(exponent {result.bare.exponent:.2f})",
        f"{'operation':22} {head}  {'8x ms':>9} {'exponent':>8}  verdict   (times: x bare parse)",
    ]
    for op, series in result.ops.items():
        ratios = " ".join(f"{t / b:9.2f}" for t, b in zip(series.seconds, bare, strict=True))
        note = "  (built the graph!)" if series.built_graph else ""
        lines.append(
            f"{op:22} {ratios}  {series.seconds[-1] * 1e3:9.1f} {series.exponent:8.2f}  "
            f"{verdict(series, min_seconds):7}{note}"
        )
    return lines


def summary_table(results: dict[str, ShapeResult], min_seconds: float) -> tuple[list[str], int]:
    shapes = list(results)
    ops = list(next(iter(results.values())).ops) if results else []
    width = max(10, *(len(s) for s in shapes)) if shapes else 10
    lines = [
        "",
        f"== exponents (PASS <= {LIMIT}; 'fast': under {min_seconds * 1e3:.0f} ms at 8x)",
        f"{'operation':22} " + " ".join(f"{s:>{width}}" for s in shapes),
    ]
    failures = 0
    for op in ops:
        cells = []
        for shape in shapes:
            series = results[shape].ops[op]
            v = verdict(series, min_seconds)
            failures += v == "FAIL" or series.built_graph
            cells.append(f"{f'{series.exponent:.2f} {v}':>{width}}")
        lines.append(f"{op:22} " + " ".join(cells))
    lines.append(
        f"{'bare parse':22} "
        + " ".join(f"{f'{results[s].bare.exponent:.2f}':>{width}}" for s in shapes)
    )
    lines.append("")
    lines.append("RESULT: " + ("PASS" if failures == 0 else f"FAIL ({failures} failing)"))
    return lines, failures


def main(argv: Sequence[str] | None = None, out: Callable[[str], None] = print) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help=f"base size {QUICK_BASE}, 1 run")
    parser.add_argument("--base", type=int, help=f"entries at 1x (default {FULL_BASE})")
    parser.add_argument("--shapes", default=",".join(SHAPES), help="comma-separated")
    parser.add_argument("--ops", default=",".join(ALL_OPERATIONS), help="comma-separated")
    parser.add_argument("--repeat", type=int, help="runs per figure, best kept (3; quick: 1)")
    parser.add_argument("--min-ms", type=float, default=20.0, help="below this at 8x: 'fast'")
    parser.add_argument(
        "--clock", choices=list(CLOCKS), default="cpu", help="cpu (this process) or wall"
    )
    parser.add_argument("--progress", action="store_true", help="say what runs, on stderr")
    args = parser.parse_args(argv)
    base = args.base or (QUICK_BASE if args.quick else FULL_BASE)
    repeat = args.repeat or (1 if args.quick else 3)
    shapes = [s for s in args.shapes.split(",") if s]
    ops = [o for o in args.ops.split(",") if o]
    unknown = [s for s in shapes if s not in SHAPES] + [o for o in ops if o not in ALL_OPERATIONS]
    if unknown:
        parser.error(f"unknown shape or operation: {', '.join(unknown)}")
    min_seconds = args.min_ms / 1e3
    global clock
    clock = CLOCKS[args.clock]

    def progress(text: str) -> None:
        if args.progress:
            print(text, file=sys.stderr, flush=True)

    gc.collect()
    gc.freeze()  # the imports' objects: each measure's collection then skips them
    out(describe())
    out(
        f"base {base} entries, sizes x{'/'.join(map(str, FACTORS))}, best of {repeat}, "
        f"{args.clock} seconds"
    )
    results: dict[str, ShapeResult] = {}
    with tempfile.TemporaryDirectory(prefix="prime-nb-scaling-") as folder:
        for shape in shapes:
            results[shape] = run_shape(shape, base, ops, repeat, Path(folder), progress)
            for line in report_shape(shape, results[shape], min_seconds):
                out(line)
    lines, failures = summary_table(results, min_seconds)
    for line in lines:
        out(line)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
