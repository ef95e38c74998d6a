"""``prime_nb.cli.main`` called many times in one process (a notebook, the tests): CPU
seconds with the parser built once per process, against building it at each call (as
``main`` did), in the same run, on small sessions of the matrix (tests/session_matrix.py).

Usage: python benchmarks/bench_cli_main.py [--repeat N]   (default: 3, interleaved)
Both ways must print the same; the script stops if they do not.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.append(str(Path(__file__).resolve().parents[1]))  # the session generators
sys.path.append(str(Path(__file__).resolve().parents[1] / "tests"))  # the session matrix
from machine import best_of_interleaved, describe
from session_matrix import CASES, shared_file

from prime_nb.cli import _commands, build_parser, main

COMMANDS = (["info", "--json"], ["info"], ["validate", "-q"])


@contextlib.contextmanager
def parser_per_call() -> Iterator[None]:
    """The baseline: a new parser at each call."""
    kept = _commands._parser
    _commands._parser = build_parser  # type: ignore[assignment]
    try:
        yield
    finally:
        _commands._parser = kept


def calls(files: list[str]) -> tuple[float, str]:
    out = io.StringIO()
    start = time.process_time()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        for file in files:
            for command in COMMANDS:
                main([*command, file])
    return time.process_time() - start, out.getvalue()


def main_() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs of each, interleaved (3)")
    args = parser.parse_args()
    print(describe())
    files = [str(shared_file(name)) for name in CASES if name.startswith("synthetic-")]
    calls(files)
    base, once, _ = best_of_interleaved(
        lambda: calls(files), parser_per_call, args.repeat, "the commands printed something else"
    )
    print(
        f"{len(files) * len(COMMANDS)} calls of main: parser per call {base:.2f} s CPU = 1.0, "
        f"parser once {once:.2f} s = {once / base:.2f}"
    )


if __name__ == "__main__":
    main_()
