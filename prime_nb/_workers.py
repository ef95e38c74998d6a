"""Worker processes, as the parallel load and the corpus functions both start them.

Why one module: both use the same forkserver (a process has only one), so what it
imports before forking (its preload) must be the union of what both need, and both must
hide the caller's script from worker start-up. Written twice, the two drifted: the
corpus workers ran a script's top level again, once per worker.

- :func:`usable_cores`: the cores this process may run on.
- :func:`forkserver_context`: the ``forkserver`` context with every module asked for so
  far in its preload (applies when the server starts, so ask before the first use).
- :func:`without_main_script`: start workers without importing the caller's script.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from multiprocessing import get_context
from multiprocessing.context import BaseContext
from typing import Any

#: modules the forkserver imports once, so that workers forked from it start with them
_PRELOAD: set[str] = set()


def usable_cores() -> int:
    """Cores this process may run on (its affinity), not the machine's count."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


def add_preload(modules: Iterable[str]) -> None:
    """Modules the forkserver should import when it starts (added to the others)."""
    _PRELOAD.update(modules)


def context_for(method: str, preload: Iterable[str] = ()) -> BaseContext:
    """The multiprocessing context of ``method``; for ``forkserver``, with ``preload``
    added to every module asked for before (by the loader or the corpus)."""
    context = get_context(method)
    if method == "forkserver":
        add_preload(preload)
        context.set_forkserver_preload(sorted(_PRELOAD))
    return context


def forkserver_context(preload: Iterable[str] = ()) -> BaseContext:
    """The ``forkserver`` context (see :func:`context_for`). A notebook kernel has
    threads, and forking a threaded process can copy a held lock into the child."""
    return context_for("forkserver", preload)


@contextmanager
def without_main_script() -> Iterator[None]:
    """Hide the caller's script from worker start-up. A forkserver or spawn worker
    otherwise imports it again (as ``__mp_main__``), which runs the top level of a
    script that has no ``if __name__ == "__main__":`` guard a second time. The workers
    need nothing from it: they only run this package's code."""
    main = sys.modules.get("__main__")
    if main is None:
        yield
        return
    saved: dict[str, Any] = {
        key: main.__dict__[key] for key in ("__file__", "__spec__") if key in main.__dict__
    }
    main.__dict__.pop("__file__", None)
    main.__dict__["__spec__"] = None
    try:
        yield
    finally:
        main.__dict__.pop("__spec__", None)
        main.__dict__.update(saved)
