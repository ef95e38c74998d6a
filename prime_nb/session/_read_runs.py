"""Rows to read back from disk, grouped into runs of nearby bytes: a read per run.

Why: a context or a table of the whole path reads back most of the file, and one seek and
read per row cost more than parsing it; a run skips small gaps only, so a few rows
scattered over a big file are still read one by one.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

#: a run of rows spans up to this many bytes, read at once
READ_RUN = 4 << 20
#: a run takes in the next row only if fewer than this many bytes lie between them
READ_GAP = 64 << 10


def byte_runs(
    rows: list[int], offsets: Sequence[int], lengths: Sequence[int]
) -> Iterator[tuple[int, list[int]]]:
    """Rows (in file order) grouped into runs to read at once: ``(first byte, rows)``;
    a run spans at most :data:`READ_RUN` bytes (unless it is one row) and no gap of
    :data:`READ_GAP` bytes or more."""
    k = 0
    while k < len(rows):
        start = offsets[rows[k]]
        end = start + lengths[rows[k]]
        j = k + 1
        while j < len(rows):
            at = offsets[rows[j]]
            stop = at + lengths[rows[j]]
            if at - end > READ_GAP or stop - start > READ_RUN:
                break
            end = max(end, stop)
            j += 1
        yield start, rows[k:j]
        k = j
