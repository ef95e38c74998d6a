"""``from_sessions`` rows of a large session: CPU seconds with each entry read once for
all the rows' contexts (``Session.context_reader``), against rebuilding each row's
context from the file (``session.context`` per row), in the same run.

Usage: python benchmarks/bench_datasets.py [SIZE_MB] [--repeat N]   (default: 10 MB, 3)
Both ways must give the same rows; the script stops if they do not.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.append(str(Path(__file__).resolve().parents[1]))  # the session generators
from machine import best_of_interleaved, describe

import prime_nb
from prime_nb.datasets import from_sessions
from sessiongen import write_large_session

UNITS = ("leaf", "compaction", "turn")


@contextmanager
def per_row_contexts() -> Iterator[None]:
    """The baseline: every row's context read anew from the file, as ``context`` does."""
    reader = prime_nb.Session.context_reader

    def fresh(self: prime_nb.Session) -> Callable[[str | None], prime_nb.Context]:
        return self.context

    prime_nb.Session.context_reader = fresh  # type: ignore[method-assign]
    try:
        yield
    finally:
        prime_nb.Session.context_reader = reader  # type: ignore[method-assign]


def cpu_of(path: Path, unit: str) -> tuple[float, list[dict[str, object]]]:
    start = time.process_time()
    rows = from_sessions(path, unit, progress=False).to_pylist()
    return time.process_time() - start, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("size_mb", nargs="?", type=float, default=10, help="file size (10)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each, interleaved (3)")
    args = parser.parse_args()
    print(describe())
    with tempfile.TemporaryDirectory() as tmp:
        path = write_large_session(Path(tmp) / "large.jsonl", int(args.size_mb * 1e6), seed=3)
        session = prime_nb.load(path)
        print(
            f"{path.stat().st_size / 1e6:.1f} MB, {len(session):,} entries, "
            f"{len(session.leaves)} leaves, {len(session.compactions)} compactions"
        )
        for unit in UNITS:
            base, once, new = best_of_interleaved(
                partial(cpu_of, path, unit),
                per_row_contexts,
                args.repeat,
                f"{unit}: the rows differ from the per-row contexts'",
            )
            print(
                f"{unit:>10} ({len(new):,} rows): per row {base:.2f} s CPU = 1.0, "
                f"read once {once:.2f} s = {once / base:.2f}"
            )


if __name__ == "__main__":
    main()
