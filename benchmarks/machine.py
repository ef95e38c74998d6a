"""What a benchmark ran on, printed with its figures, and how it compares the code with
a baseline in the same run."""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TypeVar

T = TypeVar("T")


def describe() -> str:
    cpu = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = ""
    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        mem = f", {pages / 2**30:.0f} GiB RAM"
    except (ValueError, OSError):
        pass
    return (
        f"ran on: {cpu}, {os.cpu_count()} cores{mem}, {platform.system()} {platform.release()}, "
        f"Python {sys.version.split()[0]}"
    )


def best_of_interleaved(
    measure: Callable[[], tuple[float, T]],
    baseline: Callable[[], AbstractContextManager[object]],
    repeat: int,
    differ: str,
) -> tuple[float, float, T]:
    """The least CPU seconds of ``measure`` under ``baseline`` and as the code is, over
    ``repeat`` runs of each taken in turn (one after the other, so that the machine's load
    weighs on both alike), and what the last run gave. ``measure`` returns its seconds and
    its result; the script stops with ``differ`` when the two ways give different results,
    so a ratio is only ever printed for work that gives the same answer."""
    before = now = float("inf")
    for _ in range(repeat):
        with baseline():
            spent, old = measure()
        before = min(before, spent)
        spent, new = measure()
        now = min(now, spent)
        if old != new:
            raise SystemExit(differ)
    return before, now, new
