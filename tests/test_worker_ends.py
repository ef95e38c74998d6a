"""The summary line of each xdist worker's end (tests/worker_ends.py)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from worker_ends import WorkerEnds


def report(worker: str | None) -> Any:
    """A test report as the controller gets it: from a worker (``node``) or not."""
    if worker is None:
        return SimpleNamespace()
    return SimpleNamespace(node=SimpleNamespace(gateway=SimpleNamespace(id=worker)))


def test_each_worker_ends_at_its_last_report() -> None:
    # a clock of its own: patching time.monotonic would stop the event loops of the
    # servers and clusters other tests of the worker left running
    clock = iter([100.0, 130.4, 190.6, 160.2])
    ends = WorkerEnds(lambda: next(clock))  # the session starts at 100 s
    for worker in ("gw0", "gw1", "gw0", None):
        ends.pytest_runtest_logreport(report(worker))
    lines: list[str] = []
    ends.pytest_terminal_summary(SimpleNamespace(write_line=lines.append))
    assert lines == ["workers ended: gw0 at 60 s, gw1 at 91 s"]
