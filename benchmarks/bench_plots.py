"""Every figure of ``prime_nb.plots`` over the session matrix (tests/session_matrix.py):
CPU seconds with each trace given to its figure as a dict (checked once, by the
figure), against the same traces made as ``go.Bar``/``go.Scatter``/``go.Box`` objects
first (checked when made, then again when the figure copies them), in the same run.

Usage: python benchmarks/bench_plots.py [--repeat N]   (default: 3, interleaved)
Both ways must give the same figures (their JSON, key by key); the script stops if not.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
sys.path.append(str(Path(__file__).resolve().parents[1]))  # the session generators
sys.path.append(str(Path(__file__).resolve().parents[1] / "tests"))  # the session matrix
import plotly.graph_objects as go
from machine import best_of_interleaved, describe
from session_matrix import CASES, shared_file

import prime_nb
from prime_nb import plots

CLASSES = {"bar": go.Bar, "scatter": go.Scatter, "box": go.Box}


@contextmanager
def trace_objects() -> Iterator[None]:
    """The baseline: each trace made as its plotly object before the figure reads it."""
    names = vars(plots)  # plots' own name for the trace maker, ``_trace``
    as_dict = names["_trace"]

    def as_object(kind: str, **props: Any) -> Any:
        return CLASSES[kind](**props)

    names["_trace"] = as_object
    try:
        yield
    finally:
        names["_trace"] = as_dict


def figures(sessions: list[prime_nb.Session]) -> tuple[float, list[Any]]:
    start = time.process_time()
    made: list[go.Figure] = []
    for session in sessions:
        for leaf in [None, *list(session.leaves.index)[:1]]:
            made.append(plots.context_timeline(session, leaf))
            made.append(plots.model_changes(session, leaf))
        made += [
            plots.cost_by_branch(session),
            plots.tool_usage(session),
            plots.turn_timeline(session),
            plots.compaction_report(session),
            plots.retention_by_kind(session),
        ]
    spent = time.process_time() - start
    return spent, [json.loads(figure.to_json()) for figure in made]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs of each, interleaved (3)")
    args = parser.parse_args()
    print(describe())
    sessions = [prime_nb.load(shared_file(name)) for name in CASES]
    figures(sessions)  # the sessions' tables, computed lazily, are not what is measured
    base, dicts, new = best_of_interleaved(
        lambda: figures(sessions),
        trace_objects,
        args.repeat,
        "the figures differ from those of trace objects",
    )
    print(
        f"{len(new):,} figures of {len(sessions)} sessions: trace objects {base:.2f} s CPU = "
        f"1.0, trace dicts {dicts:.2f} s = {dicts / base:.2f}"
    )


if __name__ == "__main__":
    main()
