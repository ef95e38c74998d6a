"""A corpus of generated sessions: the corpus tables on one core, on every core, and on Dask.

Usage: python benchmarks/bench_corpus.py [SESSIONS] [MB_PER_SESSION] [--dir DIR] [--search-only]
(see --help)
(default: 1000 sessions of 0.5 MB; ``--dir`` keeps the generated corpus there and reuses it).

Every timing is the fastest of three runs (Dask's: of two rounds of three, the 1- and
2-worker clusters in turn). Every speed is printed as MB/s and as a ratio
to a bare ``orjson.loads`` per line of the same files on one core, measured in the same
run (``bare``). The issue's goals:
``load_corpus`` and the research tables at >= 150 MB/s and >= bare / 3 x cores used, and
Dask at >= 0.9 efficiency from 1 to 2 workers (efficiency = t(1) / (2 x t(2))).
CPU seconds of the single-core runs are printed too: on a shared machine they move less
than wall time. The full ``load()`` path (what the tables cost before the summary pass)
runs on a sample of the files, as it would take minutes on all of them.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
sys.path.append(str(Path(__file__).resolve().parents[1]))  # the session generators
import orjson
from machine import describe

from prime_nb import corpus
from prime_nb.corpus import _local, _search_index
from prime_nb.corpus._runner import usable_cores
from prime_nb.corpus._search_segment import open_segment
from sessiongen import write_large_session

#: each timing is the fastest of this many runs
REPEAT = 3
#: Dask's 1- and 2-worker timings alternate this many times (each the fastest of REPEAT)
DASK_ROUNDS = 2


def bare_parse(files: list[Path]) -> None:
    loads = orjson.loads
    for path in files:
        with open(path, "rb", buffering=1 << 20) as fh:
            for line in fh:
                loads(line)


def bare_parse_processes(files: list[Path], cores: int) -> float:
    """The bare parse split over ``cores`` processes, in seconds (the fastest of
    ``REPEAT``): how far the machine itself scales the parse, which the goal's
    "bare x cores" takes as perfect."""
    from concurrent.futures import ProcessPoolExecutor

    shares = [files[k::cores] for k in range(cores)]
    with ProcessPoolExecutor(cores) as pool:
        list(pool.map(bare_parse, [share[:1] for share in shares]))  # started and warm
        return clock(lambda: list(pool.map(bare_parse, shares)), REPEAT)[0]


def clock(fn: Callable[[], Any], repeat: int = 1) -> tuple[float, float, Any]:
    """Wall and CPU seconds of ``fn()``: the fastest of ``repeat`` runs (the machine is
    shared; the fastest run is the one least disturbed), and its result."""
    best: tuple[float, float, Any] | None = None
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        result = fn()
        timing = (time.perf_counter() - wall, time.process_time() - cpu, result)
        if best is None or timing[0] < best[0]:
            best = timing
    assert best is not None
    return best


def dask_timing(paths: list[str], workers: int) -> tuple[float, int]:
    """Seconds of ``sessions_dask(paths).compute()`` on a new local cluster of
    ``workers`` single-threaded worker processes (the fastest of ``REPEAT``, workers
    warm, as in use), and the rows it gave."""
    from distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster,
        Client(cluster) as client,
    ):
        client.run(lambda: __import__("prime_nb.corpus._dask"))
        wall, _, out = clock(lambda: corpus.sessions_dask(paths).compute(), REPEAT)
    return wall, len(out)


def bare_timing(files: list[Path]) -> tuple[float, float, Any]:
    """Wall and CPU seconds of the bare parse of ``files`` (the fastest of ``REPEAT``),
    after one untimed parse: the files in the page cache, as for every engine after it."""
    bare_parse(files)
    return clock(lambda: bare_parse(files), REPEAT)


class Report:
    """Prints a timing as MB/s and as the goal's ratio. ``scaling``: the machine's own
    scaling of the bare parse over the cores, measured in the same run; a line on more
    than one core also shows its ratio to that (``machine``), which tells what the code
    loses apart from what a shared host took from the second core at the time."""

    def __init__(self, size: int, bare_rate: float, scaling: float = 1.0) -> None:
        self.size, self.bare_rate, self.scaling = size, bare_rate, scaling

    def line(
        self, label: str, seconds: float, cores: int, rows: int, cpu: float | None = None
    ) -> float:
        rate = self.size / 1e6 / seconds
        share = rate / (self.bare_rate * cores)
        extra = f"  cpu {self.size / 1e6 / cpu:6.1f} MB/s" if cpu else ""
        if cores > 1 and self.scaling < 1.0:
            extra += f"  machine {share / self.scaling:.2f}"
        print(
            f"  {label:40s} {seconds:6.2f} s {rate:6.1f} MB/s = {share:.2f} x bare x {cores}"
            f" core{'s' if cores > 1 else ' '}{extra}  ({rows} rows)"
        )
        return seconds


def generate(root: Path, count: int, each_mb: float) -> list[Path]:
    files = sorted(root.glob("s*.jsonl"))
    if len(files) != count:
        start = time.perf_counter()
        for k in range(count):
            write_large_session(root / f"s{k:05d}.jsonl", int(each_mb * 1_000_000), seed=k)
        print(f"generated in {time.perf_counter() - start:.0f} s")
        files = sorted(root.glob("s*.jsonl"))
    return files


def run(root: Path, count: int, each_mb: float) -> None:
    files = generate(root, count, each_mb)
    size = sum(p.stat().st_size for p in files)
    cores = usable_cores()
    print(f"{len(files)} sessions, {size / 1e6:.0f} MB; {cores} usable cores")
    best = bare_timing(files)
    bare_rate = size / 1e6 / best[0]
    print(
        f"  {'bare orjson parse, 1 core':40s} {best[0]:6.2f} s {bare_rate:6.1f} MB/s"
        f"  cpu {size / 1e6 / best[1]:6.1f} MB/s"
    )
    scaling = 1.0
    if cores > 1:
        spread = bare_parse_processes(files, cores)
        scaling = best[0] / spread / cores
        print(
            f"  {f'bare orjson parse, {cores} processes':40s} {spread:6.2f} s"
            f" {size / 1e6 / spread:6.1f} MB/s = {scaling:.2f} x bare x {cores}"
            " cores (the machine's own scaling; 'machine': a ratio over it)"
        )
    report = Report(size, bare_rate, scaling)
    goal = max(150.0, bare_rate / 3 * cores)
    print(f"  goal on {cores} cores: >= {goal:.0f} MB/s (150 MB/s and bare / 3 x {cores} cores)")

    sample = files[: max(1, len(files) // 20)]
    sample_size = sum(p.stat().st_size for p in sample)
    wall, _, _ = clock(lambda: [_full_row(str(p)) for p in sample])
    print(
        f"  before: full load() per file, 1 core     {wall:6.2f} s {sample_size / 1e6 / wall:6.1f}"
        f" MB/s = {sample_size / 1e6 / wall / bare_rate:.2f} x bare (on {len(sample)} files)"
    )

    tables: list[tuple[str, Callable[..., Any]]] = [
        ("load_corpus", corpus.load_corpus),
        ("corpus_compactions", corpus.corpus_compactions),
        ("corpus_branches", corpus.corpus_branches),
    ]
    for name, fn in tables:
        wall, cpu, out = clock(lambda fn=fn: fn(files=files, workers=1, progress=False), REPEAT)
        report.line(f"{name}, 1 core", wall, 1, len(out), cpu)
    print("    (corpus_compactions parses only the files whose bytes may hold one: see below)")
    wall, _, out = clock(lambda: corpus.load_corpus(files=files, workers=cores, progress=False))
    report.line("load_corpus, processes, first call", wall, cores, len(out))
    for name, fn in tables:
        wall, _, out = clock(lambda fn=fn: fn(files=files, workers=cores, progress=False), REPEAT)
        report.line(f"{name}, {cores} processes", wall, cores, len(out))

    with tempfile.TemporaryDirectory() as caches:
        folders = [Path(caches) / str(k) for k in range(REPEAT)]
        fresh = iter(folders)

        def cached(folder: Path) -> Any:
            return corpus.load_corpus(files=files, workers=cores, progress=False, cache=folder)

        # the first run into a new folder each time; then the last folder, unchanged
        wall, _, out = clock(lambda: cached(next(fresh)), REPEAT)
        report.line("load_corpus, cache, first run", wall, cores, len(out))
        wall, _, out = clock(lambda: cached(folders[-1]), REPEAT)
        report.line("load_corpus, cache, unchanged", wall, cores, len(out))

    paths = [str(p) for p in files]  # these files alone (--dir may hold more)
    fastest: dict[int, tuple[float, int]] = {}
    for _ in range(DASK_ROUNDS):  # 1 and 2 workers in turn: a noisy spell hits both alike
        for workers in (1, 2):
            wall, rows = dask_timing(paths, workers)
            if workers not in fastest or wall < fastest[workers][0]:
                fastest[workers] = (wall, rows)
    seconds = {
        workers: report.line(
            f"Dask sessions_dask, {workers} worker{'s' if workers > 1 else ''}",
            wall,
            workers,
            rows,
        )
        for workers, (wall, rows) in fastest.items()
    }
    print(
        f"  Dask efficiency 1 -> 2 workers: {seconds[1] / (2 * seconds[2]):.2f} (goal >= 0.9;"
        f" the bare parse's own scaling in this run: {scaling:.2f})"
    )
    compacted_only(files, cores, scaling)
    dominant(root, cores, scaling)
    search_timing(files, cores, report)


#: the searches timed: a plain case-sensitive word (the raw pre-filter applies), the same
#: ignoring case (every file parsed), and a regex
SEARCHES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("rm -rf", {"case": True}),
    ("error", {}),
    (r"rm\s+-rf\s+\S+", {"regex": True}),
)


def search_timing(files: list[Path], cores: int, report: Report) -> None:
    """corpus.search on every core: the first search (no index) in MB/s and as a ratio to
    the summary pass (load_corpus) on the same files; then the index: built once (also as
    that ratio), and a search of the unchanged corpus through it (the fastest of REPEAT)."""
    summary, _, _ = clock(lambda: corpus.load_corpus(files=files, workers=cores, progress=False))
    report.line(f"summary pass (load_corpus), {cores} processes", summary, cores, len(files))
    for query, options in SEARCHES:
        wall, _, out = clock(
            lambda q=query, o=options: corpus.search(files, q, workers=cores, **o), REPEAT
        )
        report.line(f"search {query!r} {options or ''}", wall, cores, len(out))
        print(f"    = {summary / wall:.2f} x the summary pass's speed")
    with tempfile.TemporaryDirectory() as cache:
        start = time.perf_counter()
        corpus.search(files, SEARCHES[0][0], workers=cores, cache=cache, **SEARCHES[0][1])
        built = report.line(
            "search, cache: building the index", time.perf_counter() - start, cores, 0
        )
        print(f"    = {summary / built:.2f} x the summary pass's speed")
        for query, options in SEARCHES:
            wall, _, out = clock(
                lambda q=query, o=options: corpus.search(files, q, workers=cores, cache=cache, **o),
                REPEAT,
            )
            print(f"  {f'search {query!r}, cache, unchanged':40s} {wall:6.2f} s  ({len(out)} rows)")
        segment_check_timing(files, cores, Path(cache))


def _unchecked(folder: Path, name: object) -> tuple[Any, list[str]]:
    """A segment opened as before the check: mapped and read, nothing validated."""
    import json

    import pyarrow as pa

    table = pa.ipc.open_file(pa.memory_map(str(folder / str(name)))).read_all()
    return table, json.loads(table.schema.metadata[b"files"])


def segment_check_timing(files: list[Path], cores: int, cache: Path) -> None:
    """What checking each segment whole (``open_segment``) costs a search through the
    unchanged index: the searches with the check, and with segments opened unchecked
    (the same run, interleaved), and the check alone on one core."""
    index = next(cache.glob("search-*"))
    names = [p.name for p in index.glob("*.arrow")]
    size = sum((index / name).stat().st_size for name in names) / 1e6
    for query, options in SEARCHES:
        times: dict[bool, float] = {True: math.inf, False: math.inf}
        for _ in range(REPEAT):
            for checked in (True, False):
                opener = open_segment if checked else _unchecked
                _search_index.open_segment = opener  # type: ignore[attr-defined]
                try:
                    wall, _, _ = clock(
                        lambda q=query, o=options: corpus.search(
                            files, q, workers=cores, cache=cache, **o
                        )
                    )
                finally:
                    _search_index.open_segment = open_segment  # type: ignore[attr-defined]
                times[checked] = min(times[checked], wall)
        label = f"search {query!r}, index: checked / not"
        extra = times[True] / times[False] - 1
        print(f"  {label:40s} {times[True]:6.3f} s / {times[False]:.3f} s  (+{extra:.0%})")
    alone, _, _ = clock(lambda: [open_segment(index, name) for name in names], REPEAT)
    bare, _, _ = clock(lambda: [_unchecked(index, name) for name in names], REPEAT)
    print(
        f"  {'segments opened and checked, 1 core':40s} {alone:6.3f} s, unchecked {bare:.3f} s"
        f"  ({len(names)} segments, {size:.0f} MB: {size / max(alone - bare, 1e-9):,.0f} MB/s)"
    )


def compacted_only(files: list[Path], cores: int, scaling: float) -> None:
    """``corpus_compactions`` where no file can be left unparsed: only the files that
    hold a compaction (above, the others are ruled out from their bytes, so the figure
    there depends on how many sessions of a corpus ever compacted)."""
    from prime_nb.corpus._skim import may_hold_compaction

    held = [p for p in files if may_hold_compaction(p)]
    if not held:
        return
    size = sum(p.stat().st_size for p in held)
    bare = bare_timing(held)[0]
    report = Report(size, size / 1e6 / bare, scaling)
    print(
        f"files holding a compaction: {len(held)} of {len(files)}, {size / 1e6:.0f} MB"
        f" (bare {bare:.2f} s), every one parsed"
    )
    for workers in sorted({1, cores}):
        wall, _, out = clock(
            lambda w=workers: corpus.corpus_compactions(files=held, workers=w, progress=False),
            REPEAT,
        )
        label = "1 core" if workers == 1 else f"{workers} processes"
        report.line(f"corpus_compactions, {label}", wall, workers, len(out))


def dominant(root: Path, cores: int, scaling: float) -> None:
    """A corpus where one file holds most of the bytes (40 sessions of 0.5 MB beside one
    of 150 MB): one worker reads the big file while the others share the rest."""
    folder = root / "dominant"
    folder.mkdir(exist_ok=True)
    files = generate(folder, 40, 0.5)
    big = folder / "big.jsonl"
    if not big.exists():
        write_large_session(big, 150_000_000, seed=99)
    files.append(big)
    size = sum(p.stat().st_size for p in files)
    bare = bare_timing(files)[0]
    report = Report(size, size / 1e6 / bare, scaling)
    print(f"one dominant file: {len(files)} sessions, {size / 1e6:.0f} MB (bare {bare:.2f} s)")
    wall, _, out = clock(
        lambda: corpus.load_corpus(files=files, workers=cores, progress=False), REPEAT
    )
    report.line(f"load_corpus, {cores} processes", wall, cores, len(out))


def _full_row(path: str) -> dict[str, Any]:
    """The row as it was made before the summary pass: load(), its summary and entries."""
    from prime_nb.session import load

    session = load(path)
    summary = session.summary()
    entries = session.entries
    stamps = entries["timestamp"].dropna()
    users = entries.loc[entries["role"] == "user", "text"].dropna()
    row = {k: summary[k] for k in _local.CORPUS_COLUMNS if k in summary}
    row.update(
        path=path,
        started=stamps.min(),
        ended=stamps.max(),
        first_user_message=users.iloc[0] if len(users) else None,
    )
    return row


def main() -> None:
    parser = argparse.ArgumentParser(
        description="The corpus tables on one core, on every core and on Dask, "
        "as ratios to a bare orjson parse of the same files."
    )
    parser.add_argument("sessions", nargs="?", type=int, default=1000, help="(1000)")
    parser.add_argument("mb", nargs="?", type=float, default=0.5, help="MB a session (0.5)")
    parser.add_argument("--dir", help="generate the corpus here, or reuse the one found here")
    parser.add_argument(
        "--search-only", action="store_true", help="time corpus.search alone (and the summary pass)"
    )
    args = parser.parse_args()
    print(describe())
    bench = run_search_only if args.search_only else run
    if args.dir:
        Path(args.dir).mkdir(parents=True, exist_ok=True)
        bench(Path(args.dir), args.sessions, args.mb)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            bench(Path(tmp), args.sessions, args.mb)


def run_search_only(root: Path, count: int, each_mb: float) -> None:
    """The search's lines alone, with the bare parse they are measured against."""
    files = generate(root, count, each_mb)
    size = sum(p.stat().st_size for p in files)
    cores = usable_cores()
    print(f"{len(files)} sessions, {size / 1e6:.0f} MB; {cores} usable cores")
    best = bare_timing(files)
    search_timing(files, cores, Report(size, size / 1e6 / best[0]))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
