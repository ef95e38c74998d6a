"""Small hostile files whose cost once exploded: chained compactions, many orphans, huge
tool-call arguments. Each case runs in a child process (so peak RSS is its own).

Usage: python benchmarks/bench_hostile.py [--scale K]   (default K=1: the issue's sizes
divided by nothing: 50k chained compactions, 1M orphans, a 100 MB file of 6 lines).
Chained compactions run at N and 2N: the ratio of the two times is the scaling check
(about 2 when linear, about 4 when quadratic).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from machine import describe


def chained_compactions(path: Path, n: int) -> None:
    """``n`` compactions in one chain under one user message, each keeping that message
    (7 MB at 50k): every compaction's first kept entry sits at the far end of its path."""
    with open(path, "w") as fh:
        fh.write('{"type":"session","version":3,"id":"c"}\n')
        fh.write('{"type":"message","id":"u0","parentId":null,')
        fh.write('"message":{"role":"user","content":"q"}}\n')
        previous = "u0"
        for i in range(n):
            fh.write(
                f'{{"type":"compaction","id":"c{i}","parentId":"{previous}","summary":"s",'
                f'"firstKeptEntryId":"u0","tokensBefore":9}}\n'
            )
            previous = f"c{i}"


def orphans(path: Path, n: int) -> None:
    """``n`` entries whose parents are not in the file (49 MB at 1M)."""
    with open(path, "w") as fh:
        fh.write('{"type":"session","version":3,"id":"o"}\n')
        for i in range(n):
            fh.write(f'{{"type":"custom","id":"o{i}","parentId":"gone{i}","customType":"x"}}\n')


def huge_arguments(path: Path, size: int) -> None:
    """A header and 5 assistant lines whose tool-call arguments fill ``size`` bytes."""
    each = size // 5
    with open(path, "w") as fh:
        fh.write('{"type":"session","version":3,"id":"h"}\n')
        previous = None
        for i in range(5):
            items = json.dumps([{"k": "v" * 8}] * (each // 19))
            call = (
                f'{{"type":"toolCall","id":"k{i}","name":"write","arguments":{{"items":{items}}}}}'
            )
            fh.write(
                f'{{"type":"message","id":"a{i}","parentId":{json.dumps(previous)},'
                f'"message":{{"role":"assistant","content":[{call}]}}}}\n'
            )
            previous = f"a{i}"


def current_rss_mib() -> float:
    """Resident memory now (not the peak): what the loaded session keeps."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * resource.getpagesize() / 2**20


def child(case: str, n: int) -> None:
    """Make the file, then time load + the table the case stresses; print one JSON line."""
    import prime_nb

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{case}.jsonl"
        {"chain": chained_compactions, "orphans": orphans, "args": huge_arguments}[case](path, n)
        start = time.perf_counter()
        session = prime_nb.load(path)
        loaded = time.perf_counter() - start
        rss_load = current_rss_mib()
        table = {"chain": "compactions", "orphans": "problems", "args": "tool_calls"}[case]
        start = time.perf_counter()
        rows = len(getattr(session, table))
        built = time.perf_counter() - start
        print(
            json.dumps(
                {
                    "case": case,
                    "n": n,
                    "mb": path.stat().st_size / 1e6,
                    "load_s": loaded,
                    "table": table,
                    "rows": rows,
                    "table_s": built,
                    "rss_after_load_mib": rss_load,
                    "rss_peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                }
            )
        )


def run(case: str, n: int) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", case, str(n)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every size")
    parser.add_argument(
        "--cases", default="chain,orphans,args", help="comma-separated: chain, orphans, args"
    )
    parser.add_argument("--child", nargs=2, metavar=("CASE", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]))
        return
    print(describe())
    k = args.scale
    for case, n in (
        ("chain", int(25_000 * k)),
        ("chain", int(50_000 * k)),
        ("orphans", int(1_000_000 * k)),
        ("args", int(100_000_000 * k)),
    ):
        if case not in args.cases.split(","):
            continue
        r = run(case, n)
        print(
            f"{case:8} n={r['n']:>11,} {r['mb']:7.1f} MB  load {r['load_s']:6.2f} s  "
            f"{r['table']} ({r['rows']:,} rows) {r['table_s']:6.2f} s  "
            f"RSS after load {r['rss_after_load_mib']:6.0f} MiB, peak {r['rss_peak_mib']:6.0f} MiB"
        )
        if case == "chain":
            if n == int(25_000 * k):
                half = r["table_s"]
            else:
                print(
                    f"chained compactions: table time at 2N / at N = {r['table_s'] / half:.2f} "
                    "(about 2: linear; about 4: quadratic)"
                )


if __name__ == "__main__":
    main()
