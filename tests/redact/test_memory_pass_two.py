"""What the heap holds when a long line is read: pass 2's parse against pass 1's.

Redaction reads the file twice. Between a long line's redaction and the next long line's
parse, glibc kept the heap's free blocks resident: the many small blocks the redaction
freed (pass 1's learning of a long key: its spans and cuts, about half the line) and
those a growing line buffer left where ``realloc`` moved it. A long line's parse makes
long blocks, mapped apart, which cannot reuse them; so pass 2's parse peaked above pass
1's, and a line that is one long key grew 3.25-3.3x (load: 3x). The heap's free memory
is given back once a long line is read (``_lines.give_back_freed``), and that line is
within 3x (``benchmarks/probe_redact_memory.py``). Here the same state is made at once:
free heap, resident, then a long line read.
"""

from __future__ import annotations

import ctypes
import platform
from pathlib import Path

import orjson
import pytest

from prime_nb.redact import _apart, _lines

#: the free heap left behind, and the line read after it
FREED = 8 << 20
LINE = 1 << 20


def _resident() -> int:
    with open("/proc/self/status") as fh:
        for row in fh:
            if row.startswith("VmRSS:"):
                return int(row.split()[1]) * 1024
    raise AssertionError("no VmRSS in /proc/self/status")


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's heap")
def test_reading_a_long_line_gives_the_free_heap_back(tmp_path: Path) -> None:
    """Blocks of 1 KB (each from glibc's heap, not Python's small-object pools), freed
    beneath one still held, stay resident; once a long line is read they are given
    back, and what is resident grew by the line alone, not by the free heap too."""
    path = tmp_path / "long.jsonl"
    path.write_bytes(b'{"k": "' + b"x" * LINE + b'"}\n')
    ctypes.CDLL(None).malloc_trim(0)  # what earlier tests left free: not resident now
    before = _resident()
    blocks = [bytes(1024) for _ in range(FREED // 1024)]
    held = bytes(1024)  # above the freed blocks: the heap's top is not free
    del blocks
    freed = _resident()
    assert freed - before > FREED // 2, "the freed blocks were not resident"
    with open(path, "rb") as fh:
        line = _lines.read_line(fh)
    grown = _resident() - before
    assert len(line) == LINE + 10
    assert grown < LINE + (2 << 20), f"resident grew {grown / LINE:.1f}x the line"  # 8-9x before
    del line, held


def test_a_long_key_is_decoded_apart_from_the_line() -> None:
    """A key over ``LONG_STRING`` bytes is decoded apart from the rest of the line, as a
    long value is (``_apart.py``): orjson's copy of the line is then not a copy of the
    key too, and a line that is one long key is held twice at its parse, not three
    times (parsed with the rest, the line 3x at pass 1's parse as at pass 2's)."""
    key = "password=hunter2xyz " * 4000
    line = bytearray(orjson.dumps({"type": "message", "content": {key: 1}, "id": "u1"}))
    parts: list[int] = []
    loads = orjson.loads

    def counted(data: bytes | bytearray) -> object:
        parts.append(len(data))
        return loads(data)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_apart.orjson, "loads", counted)
        got = _apart.parsed_apart(line)
    assert got == {"type": "message", "content": {key: 1}, "id": "u1"}
    assert list(got) == ["type", "content", "id"]
    assert parts and max(parts) < 1024  # what orjson parsed: the line without the key
