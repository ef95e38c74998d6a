"""A run of a class of characters (``_engine.Run``) is found by one Hyperscan pass a
piece (or, in a short text, by ``bytes.translate`` and ``bytes.find``), wherever it
stands: across a cut between two pieces, at the text's start or end, and not when it is
one character short. The regex it stands for is the oracle.
"""

from __future__ import annotations

import pytest

from prime_nb.redact import _engine, _find
from prime_nb.redact._engine import Run
from prime_nb.redact._rule import TOKEN_CHARS

_PIECE = 64
#: ``TRANSLATED``: every text read by Hyperscan, or every text here by ``bytes.find``
_WAYS = pytest.mark.parametrize("translated", [0, 1 << 20], ids=["hyperscan", "find"])


@pytest.mark.parametrize("chars", [_find.HEX_CHARS, TOKEN_CHARS, "é0"])
@pytest.mark.parametrize("after", [False, True])
@_WAYS
def test_a_run_across_a_cut_is_found(
    chars: str, after: bool, translated: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_engine, "CHUNK", _PIECE)
    monkeypatch.setattr(_engine, "TRANSLATED", translated)
    length = 20
    test = Run(chars, length, chars if after else "")
    pattern = test.pattern
    filler = "\n" if after else " "
    found = 0
    for size in (length - 1, length, length + 3):
        for at in range(0, 3 * _PIECE - size):
            text = filler * at + chars[0] * size + filler * (3 * _PIECE - at - size)
            want = pattern.search(text) is not None
            assert test.in_text(text) == want, (size, at)
            found += want
    assert found > 2 * _PIECE


@_WAYS
def test_a_wider_piece_is_read_by_the_regex(
    translated: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_engine, "CHUNK", _PIECE)
    monkeypatch.setattr(_engine, "TRANSLATED", translated)
    test = Run("ab", 5)
    assert test.in_text("\u6b00ababa" + " " * 100)
    assert test.in_text(" " * 100 + "\u6b00ababa")
    assert not test.in_text("\u6b00abab" + " " * 100 + "abab\u6b00")
