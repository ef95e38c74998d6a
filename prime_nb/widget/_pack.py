"""The exported page's compressed parts: JSON, gzipped, as base64 text, written as it comes.

gzip (not a smaller but slower format) because the page undoes it with the browser's own
``DecompressionStream``: no library, no network. Level 1: at 100k entries it writes a
page about half the session file in size, in much less time than level 6, which writes a
third less. The text is handed on in pieces as it is made (to the page's file), so no
part is ever held whole, compressed or not. Given a one-thread pool, a packer runs the
compressor there (zlib lets go of the GIL while it works), so compressing one batch
overlaps reading and encoding the next.
"""

from __future__ import annotations

import base64
import zlib
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import Executor, Future
from typing import Any

import orjson

#: zlib's window bits for the gzip container (+16), and for reading gzip or zlib (+32)
GZIP, ANY = 31, 47
LEVEL = 1
#: bytes gathered before each call to the compressor (fewer, larger calls are faster)
BATCH = 1 << 20
#: batches a packer lets wait for the compressor before it waits itself (bounds memory)
IN_FLIGHT = 4


#: a part written a row a line: ``[``, the rows, ``]``, each on a line of its own (JSON
#: never holds a bare newline, so a line is a row). It is still one JSON array, but the
#: page can split it at its newlines and parse only the rows it is asked for (``Rows``
#: in ``standalone.ts``) rather than the whole part in one go, which blocks a frame.
ROWS_OPEN, ROWS_SEP, ROWS_CLOSE = b"[\n", b"\n,", b"\n]"


def dumps(value: Any) -> bytes:
    """JSON as the page reads it (numpy values as plain numbers)."""
    return orjson.dumps(value, option=orjson.OPT_SERIALIZE_NUMPY)


class Packer:
    """Bytes in; base64 of their gzip out, to ``sink`` in pieces of whole base64 quads.

    ``pool``: a one-thread executor to compress in (shared by packers, so that each
    compressor is only ever used by one thread at a time); None compresses here.
    """

    def __init__(self, sink: Callable[[str], Any], pool: Executor | None = None) -> None:
        self._sink = sink
        self._pool = pool
        self._z = zlib.compressobj(LEVEL, zlib.DEFLATED, GZIP)
        self._pending: list[bytes] = []
        self._size = 0
        self._compressed: deque[Future[bytes]] = deque()
        self._carry = b""  # compressed bytes not yet a multiple of 3 (base64's unit)
        #: bytes taken in (JSON), for the caller's chunking
        self.taken = 0

    def write(self, data: bytes) -> None:
        self._pending.append(data)
        self._size += len(data)
        self.taken += len(data)
        if self._size >= BATCH:
            self._compress()

    def array(self, items: Iterable[Any]) -> None:
        """A JSON array, item by item (never the whole list as text)."""
        self.write(b"[")
        for k, item in enumerate(items):
            self.write(b"," + dumps(item) if k else dumps(item))
        self.write(b"]")

    def rows(self, items: Iterable[Any]) -> None:
        """A JSON array a row a line (see ``ROWS_OPEN``), item by item."""
        self.write(ROWS_OPEN)
        for k, item in enumerate(items):
            self.write(ROWS_SEP + dumps(item) if k else dumps(item))
        self.write(ROWS_CLOSE)

    def _compress(self) -> None:
        if self._pending:
            batch = b"".join(self._pending)
            self._pending.clear()
            self._size = 0
            if self._pool is None:
                self._emit(self._z.compress(batch))
            else:
                self._compressed.append(self._pool.submit(self._z.compress, batch))
                self._collect(wait=len(self._compressed) > IN_FLIGHT)

    def _collect(self, wait: bool) -> None:
        """Hand on the batches compressed so far, in order (``wait``: at least one)."""
        while self._compressed and (wait or self._compressed[0].done()):
            self._emit(self._compressed.popleft().result())
            wait = False

    def _emit(self, data: bytes, final: bool = False) -> None:
        data = self._carry + data
        cut = len(data) if final else len(data) - len(data) % 3
        self._carry = data[cut:]
        if cut:
            self._sink(base64.b64encode(data[:cut]).decode("ascii"))

    def close(self) -> None:
        """Compress what is left and end the gzip stream."""
        self._compress()
        while self._compressed:
            self._collect(wait=True)
        self._emit(self._z.flush(), final=True)


def pack(value: Any) -> str:
    """One value as a part's text, in memory (for small values and tests)."""
    out: list[str] = []
    packer = Packer(out.append)
    packer.write(dumps(value))
    packer.close()
    return "".join(out)


def unpack(text: str) -> Any:
    """A part's text back to its value."""
    return orjson.loads(zlib.decompress(base64.b64decode(text), ANY))
