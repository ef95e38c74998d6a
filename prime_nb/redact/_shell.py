"""A long object of a line walked as a stream: the members plans read, and its keys as
hashes.

Why: the stream walk reads an object's keys before its members (a repeated key sends the
line to the tree walk; a renamed key must not meet another key). Held as a dict of every
key, an object of many short members (a tool's output of thousands of ``"name":
"value"`` pairs) cost several times its bytes, as much as the tree the stream walk
avoids. Here only the members a plan reads (``type``, ``name``, ``kty``...) are held
with their values; every key is held as its 8-byte hash, sorted, and a question that a
hash alone cannot settle (two keys with one hash, a renamed key whose hash is there) is
answered exactly by reading the object's keys again from the line.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np


class RepeatedKey(Exception):
    """An object writes one key twice."""


class Shell(dict[str, Any]):
    """An object's told members (a dict of them), and ``key in shell`` for every key."""

    __slots__ = ("_hashes", "_keys")

    def __init__(self, keys: Callable[[], Iterable[str]]) -> None:
        super().__init__()
        #: the object's keys, read again from the line
        self._keys = keys
        self._hashes: np.ndarray[Any, np.dtype[np.int64]] = np.zeros(0, np.int64)

    def seal(self, hashes: array[int]) -> None:
        """Keep the keys' ``hashes`` (in the object's order, an ``array("q")`` the shell
        takes over: they are sorted where they are, not copied); raises RepeatedKey when
        two keys are one."""
        sorted_hashes: np.ndarray[Any, np.dtype[np.int64]] = np.frombuffer(hashes, np.int64)
        sorted_hashes.sort()
        same = sorted_hashes[1:] == sorted_hashes[:-1]
        if same.any():
            shared = set(sorted_hashes[1:][same].tolist())
            counts = Counter(key for key in self._keys() if hash(key) in shared)
            if any(n > 1 for n in counts.values()):
                raise RepeatedKey
        self._hashes = sorted_hashes

    def __contains__(self, key: object) -> bool:
        if dict.__contains__(self, key):
            return True
        if not isinstance(key, str) or not len(self._hashes):
            return False
        wanted = hash(key)
        at = int(np.searchsorted(self._hashes, wanted))
        if at >= len(self._hashes) or self._hashes[at] != wanted:
            return False
        return any(k == key for k in self._keys())
