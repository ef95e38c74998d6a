"""refresh() after 1, 100 and 10,000 appended lines on a ~100 MB session.

Usage: python benchmarks/bench_refresh.py [SIZE_MB]   (default: 100)
Each figure is a fraction of a full load of the same file measured in the same run,
both for refresh() alone (what a watcher pays) and for refresh() plus rebuilding the
entries table (what the next look at the table pays).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).parent))
sys.path.append(str(Path(__file__).resolve().parents[1]))  # the session generators
from machine import describe

import prime_nb
from sessiongen import large_session_entries, write_large_session


def appended_lines(count: int, parent: str, seed: int) -> bytes:
    """``count`` realistic entries chained under ``parent``, as the agent would append them."""
    out = []
    entries = large_session_entries(count, seed=seed)
    next(entries)  # its header
    previous = parent
    for k, entry in enumerate(entries):
        entry["id"] = f"{seed:02x}{k:06x}"
        entry["parentId"] = previous
        previous = entry["id"]
        out.append(orjson.dumps(entry) + b"\n")
    return b"".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(
        description="refresh() after 1, 100 and 10,000 appended lines, as a fraction of a "
        "full load of the same file."
    )
    parser.add_argument("size_mb", nargs="?", type=int, default=100, help="file size (100)")
    size_mb = parser.parse_args().size_mb
    print(describe())
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "refresh.jsonl"
        write_large_session(path, size_mb * 1_000_000, seed=7)
        start = time.perf_counter()
        session = prime_nb.load(path)
        session.entries  # noqa: B018
        full = time.perf_counter() - start
        print(
            f"{path.stat().st_size / 1e6:.0f} MB, {len(session):,} entries; "
            f"full load + entries table (baseline) {full:.3f} s = 1.0"
        )
        for seed, count in enumerate((1, 100, 10_000), start=1):
            data = appended_lines(count, session.leaf_id or "", seed)
            with open(path, "ab") as fh:
                fh.write(data)
            start = time.perf_counter()
            added = session.refresh()
            refresh = time.perf_counter() - start
            session.entries  # noqa: B018
            with_table = time.perf_counter() - start
            assert added == count, (added, count)
            print(
                f"  +{count:>6,} lines ({len(data) / 1e6:7.2f} MB): "
                f"refresh {refresh * 1000:8.2f} ms"
                f" = {refresh / full:.4f} x full load; with entries table "
                f"{with_table * 1000:8.2f} ms = {with_table / full:.4f} x"
            )


if __name__ == "__main__":
    main()
