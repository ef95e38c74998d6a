"""Dataset rows of deep and wide trees: work against output, and the refusals.

For each shape and size: the CPU time of ``from_sessions`` per unit, as a ratio to
``load`` of the same file in the same run, and the rows and messages made, or the
refusal (``max_messages``) and how long finding it took. Work linear in the output
keeps the ratio per message flat as the depth doubles; the rows of a deep chain's turns
(output quadratic in depth) are refused before they are built.

Shapes: ``chain`` (user and assistant in turn), ``compactions`` (a compaction every
other entry: short contexts on a long path), ``comb`` (a leaf forked at every step).

Usage: python benchmarks/bench_hostile_datasets.py [--sizes 2000,4000,8000]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from machine import describe

UNITS = ("leaf", "compaction", "turn")


def _cpu(step: object) -> tuple[float, object]:
    start = time.process_time()
    try:
        result = step()  # type: ignore[operator]
    except Exception as exc:
        result = exc
    return time.process_time() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="2000,4000,8000")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    import sessiongen
    from prime_nb import load
    from prime_nb.datasets import from_sessions

    shapes = {"chain": "linear", "compactions": "chained_compactions", "comb": "comb"}
    print(describe())
    print(f"{'shape':12} {'entries':>8} {'unit':10} {'rows':>7} {'messages':>11} {'x load':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for name, shape in shapes.items():
            for size in map(int, args.sizes.split(",")):
                path = sessiongen.write_shape(Path(tmp) / f"{name}{size}.jsonl", shape, size)
                took_load, session = _cpu(lambda path=path: load(path))
                for unit in UNITS:
                    took, table = _cpu(
                        lambda unit=unit, session=session: from_sessions(
                            session, unit=unit, progress=False, on_error="raise"
                        )
                    )
                    if isinstance(table, Exception):
                        said = f"refused: {str(table).split(' would hold about ')[1][:30]}..."
                        print(f"{name:12} {size:>8} {unit:10} {said:>28} {took / took_load:>7.2f}x")
                        continue
                    rows = table.num_rows  # type: ignore[attr-defined]
                    messages = sum(table.column("n_messages").to_pylist())  # type: ignore[attr-defined]
                    ratio = took / took_load
                    print(f"{name:12} {size:>8} {unit:10} {rows:>7} {messages:>11} {ratio:>7.2f}x")


if __name__ == "__main__":
    main()
