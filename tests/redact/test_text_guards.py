"""A per-text pattern skipped by a test in C finds what the pattern finds: the runs of
base32, base64url and base64, the escapes a view decodes, a diff's hunk, a token beside
a secret's word, a CSV field's doubled quotes, on random texts
dense in the characters each pattern reads, and at their edges (a run one short, at a
text's start and end, next to a character wider than Latin-1)."""

from __future__ import annotations

import random

import pytest

from prime_nb.redact._disguise import (
    _BASE32_RUN,
    _CSV_FIELD,
    _DOUBLED,
    _ESCAPE,
    _ESCAPE_MARKS,
    _URLSAFE_RUN,
    _csv_doubled,
    base32_runs,
    urlsafe_runs,
)
from prime_nb.redact._encodings import BASE64_RUN, DIFF_HUNK, base64_runs
from prime_nb.redact._find import _BASE64_LEAST, _DIFF_MARK
from prime_nb.redact._suspects import _BESIDE_WORD, _TOKEN_RUN, may_be_beside

#: characters the patterns read, and some they stop at (a blank, a line break, ``=``,
#: ``.``, a Latin-1 letter, letters wider than Latin-1: the Kelvin sign folds to ``k``)
_ALPHABETS = [
    "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567=",
    "ABCXYZabcxyz0189+/_-= \n",
    "AZaz09+/=_-.~ \n\u00e9\u212a\u4e2d",
    "&#;xX0aF\\ux \namplt",
    "@@ -0123\n+",
]
#: pieces of the escapes ``_ESCAPE`` reads, and of a diff's hunk, joined at random
_PIECES = [
    ["&amp;", "&#x4", "1;", "&#", "\\u", "\\x", "00", "e2", "8a", "\\", "&", "u", " "],
    ["@@ -", "\n@@ -", "@@", "1", "1", "\n", "+", "-"],
    # a word a suspect follows, then a token (the Kelvin sign and long s fold to ASCII)
    ['"', '""', ",", "\t", "\n", "a", "{"],
    ["token ", "key=", "Sig:", "Ab3", "x" * 9, "\u212a" * 7, "\u017f" * 5, "=", "\n", ".."],
]


def _texts() -> list[str]:
    r = random.Random(43)
    out = []
    for alphabet in _ALPHABETS:
        for _ in range(150):
            n = r.choice([0, 1, 15, 16, 19, 20, 21, 40, 120])
            # runs: a character repeated, so that long runs of one class are common
            out.append("".join(r.choice(alphabet) * r.choice([1, 1, 3, 8]) for _ in range(n))[:n])
    for pieces in _PIECES:
        out += ["".join(r.choices(pieces, k=r.randrange(16))) for _ in range(150)]
    edges = ["A" * 15, "A" * 16, "A" * 16 + "a", "a" + "B" * 16, "\u212a" + "A2" * 8]
    edges += ["x" * 19, "x" * 20, "-" * 20 + "=", "é" + "a" * 20 + "é", "a" * 20 + "\u4e2d"]
    edges += ["&amp;&lt;", "\\\\u00411\\x41", "&#x41;" * 3, "@@ -1 +1 @@", "\n@@ -2"]
    edges += ['"a""b"', '"{""k"": 1}",x', 'a,"b""c"\n', '"a"""']
    return out + edges


TEXTS = _texts()


def _doubled(text: str) -> list[tuple[int, int]]:
    """``_csv_doubled`` as the pattern alone gives it."""
    out = []
    for field in _CSV_FIELD.finditer(text):
        if '""' in field.group()[1:-1]:
            out += [m.span() for m in _DOUBLED.finditer(text, field.start() + 1, field.end() - 1)]
    return out


@pytest.mark.parametrize("chunk", range(4))
def test_guarded_runs_are_the_patterns(chunk: int) -> None:
    for text in TEXTS[chunk::4]:
        assert list(base32_runs(text)) == [m.span() for m in _BASE32_RUN.finditer(text)], text
        assert list(urlsafe_runs(text)) == [m.span() for m in _URLSAFE_RUN.finditer(text)], text
        assert list(base64_runs(text)) == [m.span() for m in BASE64_RUN.finditer(text)], text
        if not _BASE64_LEAST.in_text(text):  # ``_base64_spans`` skips the text
            assert BASE64_RUN.search(text) is None, text
        if _ESCAPE_MARKS.search(text, 0, 4096) is None:  # ``views`` decodes no escape
            assert _ESCAPE.findall(text, 0, 4096) == [], text
        if _DIFF_MARK not in text:  # ``find`` reads no diff
            assert DIFF_HUNK.search(text) is None, text
        assert [m.span() for m in _csv_doubled(text)] == _doubled(text), text
        if not may_be_beside(text):  # ``suspect_spans`` skips it
            assert _BESIDE_WORD.search(text) is None, text


def test_texts_reach_every_pattern() -> None:
    """The random texts hold matches of each pattern, and texts that a guard passes
    though the pattern does not match: neither side of a guard goes untried."""
    for pattern in (_BASE32_RUN, _URLSAFE_RUN, BASE64_RUN, _ESCAPE, DIFF_HUNK, _BESIDE_WORD):
        assert sum(pattern.search(t) is not None for t in TEXTS) >= 10, pattern.pattern
    assert any(_BASE64_LEAST.in_text(t) and BASE64_RUN.search(t) is None for t in TEXTS)
    assert any(_ESCAPE_MARKS.search(t) and not _ESCAPE.findall(t) for t in TEXTS)
    assert any(not _TOKEN_RUN.in_text(t) and _BESIDE_WORD.search(t) for t in TEXTS)  # wide
    assert sum(bool(_doubled(t)) for t in TEXTS) >= 10
