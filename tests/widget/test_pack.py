"""The gzip + base64 stream of the page's parts: what goes in comes out, however it is fed."""

from __future__ import annotations

import base64
import gzip
import random

import numpy as np
import pytest

from prime_nb.widget import _pack
from prime_nb.widget._pack import Packer, unpack

VALUES = [None, [], {}, "", "x" * 10, {"a": [1, 2.5, None, "é<\u2028/script>"]}, list(range(5000))]


def pack(value: object) -> str:
    """One value as a part's text, as the page writer packs it."""
    out: list[str] = []
    packer = Packer(out.append)
    packer.write(_pack.dumps(value))
    packer.close()
    return "".join(out)


@pytest.mark.parametrize("value", VALUES)
def test_round_trip(value: object) -> None:
    text = pack(value)
    assert set(text) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")
    assert unpack(text) == value
    # a gzip container: what the browser's DecompressionStream("gzip") reads
    assert gzip.decompress(base64.b64decode(text)) == _pack.dumps(value)


def test_streamed_in_batches_and_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    """Many compressor calls, each piece handed on whole base64 quads but the last."""
    monkeypatch.setattr(_pack, "BATCH", 1000)
    rng = random.Random(7)
    items = [{"k": rng.random(), "t": rng.randbytes(rng.randrange(300)).hex()} for _ in range(3000)]
    pieces: list[str] = []
    packer = Packer(pieces.append)
    packer.write(b"[")
    for k, item in enumerate(items):
        packer.write(b"," + _pack.dumps(item) if k else _pack.dumps(item))
    packer.write(b"]")
    packer.close()
    assert len(pieces) > 5
    assert all(len(p) % 4 == 0 for p in pieces[:-1])
    assert unpack("".join(pieces)) == items
    assert packer.taken == len(_pack.dumps(items))


def test_numpy_values_are_plain_numbers() -> None:
    assert unpack(pack({"a": np.arange(3, dtype=np.int32)})) == {"a": [0, 1, 2]}
