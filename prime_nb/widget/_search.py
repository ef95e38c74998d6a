"""The widget's search: every word of the query in an entry's full text (the agent's rule).

Why its own index: the full text of every entry (tool-call arguments included) is read
back from the file, which at 100k entries takes seconds. So the index is built once, in
a background thread as soon as a big session's widget is made, and a search waits for a
build already under way rather than starting its own. Typing narrows: when every word of
the last query is inside a word of the new one, only the last hits can match, so each
further keystroke scans the hits, not the session.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable


def narrows(old: list[str], new: list[str]) -> bool:
    """Can ``new`` only match entries that ``old`` matched? (each old word within a new one)"""
    return bool(old) and all(any(o in n for n in new) for o in old)


class SearchIndex:
    """Lower-cased texts of every row, built once (``build``), searched by words."""

    def __init__(self, build: Callable[[], list[str]]) -> None:
        self._build = build
        self._texts: list[str] | None = None
        self._generation = 0
        self._building = threading.Lock()
        self._last: tuple[list[str], list[int], int] | None = None

    def warm(self) -> threading.Thread:
        """Build in the background now (a daemon thread); returns the thread."""
        thread = threading.Thread(target=self._warm, name="prime_nb-search-index", daemon=True)
        thread.start()
        return thread

    def _warm(self) -> None:
        # a failed build (say, the file vanished) is left to the next search to report
        with contextlib.suppress(Exception):
            self.texts()

    def invalidate(self) -> None:
        """The rows changed: build again on the next search (a build under way is dropped)."""
        self._generation += 1
        self._texts = None
        self._last = None

    def texts(self) -> list[str]:
        with self._building:  # one build at a time; a search waits for the one under way
            texts = self._texts
            if texts is None:
                generation = self._generation
                texts = self._build()
                if generation == self._generation:
                    self._texts = texts
            return texts

    def search(self, query: str) -> list[int]:
        """Rows whose text holds every word of the query, in row order."""
        words = query.lower().split()
        if not words:
            return []
        texts = self.texts()
        last = self._last
        if last is not None and last[2] == len(texts) and narrows(last[0], words):
            candidates: list[int] | range = last[1]
        else:
            candidates = range(len(texts))
        hits = [i for i in candidates if all(w in texts[i] for w in words)]
        self._last = (words, hits, len(texts))
        return hits
