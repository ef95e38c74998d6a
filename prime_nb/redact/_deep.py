"""Run the scrubber where a deeply nested entry cannot exhaust the stack.

Why: the scrubber walks JSON (and JSON inside strings) by recursion, a few frames per
level, and ``load()`` reads entries nested as deep as the JSON parsers allow (about a
thousand levels). Python's default limit of a thousand frames made such an entry raise
RecursionError. The walk runs in a thread with a stack and a recursion limit that fit
the deepest entry a parser accepts, so every entry that loads can be redacted.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

#: frames enough for the deepest JSON a parser accepts (1024 levels), a few frames a
#: level, JSON in strings inside it included
RECURSION_LIMIT = 30_000
#: the thread's stack for that many frames
STACK_SIZE = 512 << 20
_lock = threading.Lock()


def with_deep_stack(call: Callable[[], T]) -> T:
    """``call()``, in a thread whose stack holds :data:`RECURSION_LIMIT` frames."""
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["value"] = call()
        except BaseException as exc:  # re-raised in the caller's thread
            outcome["error"] = exc

    with _lock:  # the limit and the stack size are the process's: one change at a time
        limit = sys.getrecursionlimit()
        size = threading.stack_size()
        try:
            threading.stack_size(STACK_SIZE)
            sys.setrecursionlimit(max(limit, RECURSION_LIMIT))
            worker = threading.Thread(target=run, name="prime-nb-redact")
            worker.start()
        finally:
            threading.stack_size(size)
        try:
            worker.join()
        finally:
            sys.setrecursionlimit(limit)
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]
