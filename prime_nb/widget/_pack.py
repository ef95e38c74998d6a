"""The exported page's compressed parts: JSON, gzipped, as base64 text, written as it comes.

gzip (not a smaller but slower format) because the page undoes it with the browser's own
``DecompressionStream``: no library, no network. Level 1: much faster than level 6, for a
page a third larger. The text is handed on in pieces as it is made (to the page's file),
so no part is ever held whole, compressed or not.
"""

from __future__ import annotations

import base64
import zlib
from collections.abc import Callable
from typing import Any

import orjson

#: zlib's window bits for the gzip container (+16), and for reading gzip or zlib (+32)
GZIP, ANY = 31, 47
LEVEL = 1
#: bytes gathered before each call to the compressor (fewer, larger calls are faster)
BATCH = 1 << 20


#: a part written a row a line: ``[``, the rows, ``]``, each on a line of its own (JSON
#: never holds a bare newline, so a line is a row). It is still one JSON array, but the
#: page can split it at its newlines and parse only the rows it is asked for (``Rows``
#: in ``standalone.ts``) rather than the whole part in one go, which blocks a frame.
ROWS_OPEN, ROWS_SEP, ROWS_CLOSE = b"[\n", b"\n,", b"\n]"


def dumps(value: Any) -> bytes:
    """JSON as the page reads it (numpy values as plain numbers)."""
    return orjson.dumps(value, option=orjson.OPT_SERIALIZE_NUMPY)


class Packer:
    """Bytes in; base64 of their gzip out, to ``sink`` in pieces of whole base64 quads."""

    def __init__(self, sink: Callable[[str], Any]) -> None:
        self._sink = sink
        self._z = zlib.compressobj(LEVEL, zlib.DEFLATED, GZIP)
        self._pending: list[bytes] = []
        self._size = 0
        self._carry = b""  # compressed bytes not yet a multiple of 3 (base64's unit)
        #: bytes taken in (JSON), for the caller's chunking
        self.taken = 0

    def write(self, data: bytes) -> None:
        self._pending.append(data)
        self._size += len(data)
        self.taken += len(data)
        if self._size >= BATCH:
            self._compress()

    def _compress(self) -> None:
        if self._pending:
            self._emit(self._z.compress(b"".join(self._pending)))
            self._pending.clear()
            self._size = 0

    def _emit(self, data: bytes, final: bool = False) -> None:
        data = self._carry + data
        cut = len(data) if final else len(data) - len(data) % 3
        self._carry = data[cut:]
        if cut:
            self._sink(base64.b64encode(data[:cut]).decode("ascii"))

    def close(self) -> None:
        """Compress what is left and end the gzip stream."""
        self._compress()
        self._emit(self._z.flush(), final=True)


def unpack(text: str) -> Any:
    """A part's text back to its value."""
    return orjson.loads(zlib.decompress(base64.b64decode(text), ANY))
