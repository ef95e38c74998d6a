"""refresh() at any byte: a session read while the agent writes equals a fresh load.

Every session of the matrix is written in three parts, cut at chosen bytes (right after
the header, before its newline, inside a line, at random), read after the first and
refreshed after each of the others; its tables must then equal a fresh ``load()``. A
file cut right after its header, before the newline, once loaded with "a second header".
"""

from __future__ import annotations

import random
import warnings
from pathlib import Path

import pytest
from same_frames import assert_same_frame
from session_matrix import CASES, write_case

import prime_nb
from prime_nb.errors import SessionFormatError

TABLES = ("entries", "tool_calls", "compactions", "leaves", "problems")


def cuts(data: bytes, rng: random.Random) -> list[tuple[int, int]]:
    """Pairs of cuts: after the header (with and without its newline), inside the second
    line, and two at random."""
    first = data.find(b"\n")
    if first < 0:
        return [(len(data), len(data))]
    second = data.find(b"\n", first + 1)
    middle = (first + 1 + (second if second > 0 else len(data))) // 2
    out = [(first, first), (first + 1, middle), (first, middle)]
    for _ in range(2):
        a = rng.randrange(first, len(data) + 1)
        out.append((a, rng.randrange(a, len(data) + 1)))
    return out


@pytest.mark.parametrize("name", CASES)
def test_a_session_refreshed_in_parts_equals_a_fresh_load(name: str, tmp_path: Path) -> None:
    """Each cut ends with the same whole file at the same path, so its fresh load (and
    the tables it computes) is made once, at the first cut that gets that far, and every
    refreshed session is compared with it."""
    data = write_case(name, tmp_path / "in").read_bytes()
    path = tmp_path / "live.jsonl"
    fresh: prime_nb.Session | None = None
    for first, second in cuts(data, random.Random(name)):
        path.write_bytes(data[:first])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                session = prime_nb.load(path)
            except SessionFormatError:  # the header is not whole yet: nothing to read
                continue
            for part in (data[first:second], data[second:]):
                with open(path, "ab") as fh:
                    fh.write(part)
                session.refresh()
            assert path.read_bytes() == data  # the whole file, as each cut ends
            if fresh is None:
                fresh = prime_nb.load(path)
        for table in TABLES:
            assert_same_frame(getattr(session, table), getattr(fresh, table))
        assert session.leaf_id == fresh.leaf_id, (first, second)
