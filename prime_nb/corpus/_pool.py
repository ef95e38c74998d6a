"""The corpus workers, kept between calls for a while.

Why: a notebook asks for ``load_corpus``, then ``corpus_compactions``, then
``corpus_branches`` of the same folder. A fresh pool per call forks its workers again,
and each new worker pays page faults for its heap and for every preloaded page it
touches (copy on write) before it reads at full speed: about a tenth of the time of a
300 MB corpus. Kept, the same workers serve the next call warm. A pool left idle for
:data:`IDLE_SECONDS` is shut down, so that idle workers do not hold memory for the rest
of the session; one that broke (a worker died) is never handed out again.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager

from .._workers import forkserver_context, process_pool

#: imported once in the forkserver, so that forked workers start with them loaded
PRELOAD = ["prime_nb.corpus._work"]
#: an idle pool's workers exit after this many seconds without a call
IDLE_SECONDS = 60.0


def new_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of its own, shut down by its user (``with new_pool(n) as pool``)."""
    return process_pool(workers, forkserver_context(PRELOAD))


class SharedPool:
    """One pool for the corpus calls of this process, of the size last asked for.

    ``use(n)`` hands it out (made, or remade at another size, when nobody uses it);
    a call that asks for another size while the pool is busy (another thread) gets a
    pool of its own for that call. ``discard(pool)`` retires a broken pool.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pool: ProcessPoolExecutor | None = None
        self._workers = 0
        self._owner = 0  # the pid that made it: a forked child must not use its parent's
        self._users = 0
        self._timer: threading.Timer | None = None

    @property
    def pool(self) -> ProcessPoolExecutor | None:
        """The kept pool, if one is up (for tests and diagnostics)."""
        return self._pool

    @contextmanager
    def use(self, workers: int) -> Iterator[ProcessPoolExecutor]:
        private: ProcessPoolExecutor | None = None
        with self._lock:
            self._stop_timer()
            if self._owner != os.getpid():  # a forked child: the pool is its parent's
                self._pool, self._users, self._timer = None, 0, None
            if self._pool is not None and self._workers != workers and self._users == 0:
                self._retire()
            if self._pool is None:
                self._pool, self._workers, self._owner = new_pool(workers), workers, os.getpid()
            if self._workers == workers:
                self._users += 1
                pool = self._pool
            else:
                pool = private = new_pool(workers)
        try:
            yield pool
        finally:
            if private is not None:
                private.shutdown()
            else:
                self._release(pool)

    def discard(self, pool: ProcessPoolExecutor) -> None:
        """Never hand ``pool`` out again (a worker of it died); its users finish first."""
        with self._lock:
            if self._pool is pool:
                self._pool, self._users = None, 0
        pool.shutdown(wait=False)

    def shutdown(self) -> None:
        """Stop the kept pool now (its workers exit once their tasks are done)."""
        with self._lock:
            self._stop_timer()
            if self._users == 0:
                self._retire()

    def _release(self, pool: ProcessPoolExecutor) -> None:
        with self._lock:
            if self._pool is not pool:  # discarded meanwhile
                return
            self._users -= 1
            if self._users == 0:
                self._timer = threading.Timer(IDLE_SECONDS, self._expire, (pool,))
                self._timer.daemon = True
                self._timer.start()

    def _expire(self, pool: ProcessPoolExecutor) -> None:
        with self._lock:
            if self._pool is pool and self._users == 0:
                self._timer = None
                self._retire()

    def _retire(self) -> None:
        """Shut the kept pool down (lock held)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False)
        self._pool = None

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


#: the corpus functions' pool
shared = SharedPool()
