"""When each xdist worker ran its last test, in the run's summary.

Two workers that end far apart leave a core idle for the difference, so the run's wall
is set by the later one: the line this prints (``workers ended: gw0 at 301 s, gw1 at
287 s``) tells a scheduling imbalance (tests/xdist_spread.py's order and costs) from a
machine that was merely slow. The times count from the start of the test session on
the controller, to the end of each worker's last test report.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest


class WorkerEnds:
    """A controller-side plugin: the last report time of each worker."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.start = clock()
        self.ends: dict[str, float] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        node: Any = getattr(report, "node", None)  # xdist sets it on workers' reports
        if node is not None:
            self.ends[str(node.gateway.id)] = self.clock() - self.start

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.ends:
            ends = ", ".join(f"{w} at {t:.0f} s" for w, t in sorted(self.ends.items()))
            terminalreporter.write_line(f"workers ended: {ends}")


def register(config: pytest.Config) -> None:
    """Add :class:`WorkerEnds` on an xdist controller (not on its workers, nor without
    xdist)."""
    if hasattr(config, "workerinput") or config.getoption("numprocesses", None) in (None, 0):
        return
    config.pluginmanager.register(WorkerEnds(), "worker-ends")
