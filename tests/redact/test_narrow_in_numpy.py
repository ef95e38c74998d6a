"""Narrowing and slicing a narrowed text with NumPy (``_narrow.py``) give what the
plain reading gives: the stand-ins, where each wide character stood and its code, the
choice not to narrow, and every slice of the text, on random and adversarial texts.

The reference here is the plain reading, one Python step a character: it pins what
held before NumPy read the pieces (these tests passed on that code too).
"""

from __future__ import annotations

import importlib
import random

import pytest

from prime_nb.redact._narrow import (
    HIDDEN_MARKS,
    HIDDEN_STAND_IN,
    STAND_INS,
    alike,
    letter_pair,
    narrowed_in_place,
)

_narrow = importlib.import_module("prime_nb.redact._narrow")

#: what the texts are drawn from: ASCII, Latin-1 (stand-ins too), symbols and marks that
#: narrow (emoji, curly quotes, a dash, a bullet, the variation selector), letters
#: narrowed one for one (Cyrillic, Greek of both cases; a Latin-1 letter that stands for
#: one), hidden marks and the soft hyphen, a look-alike letter (kept), a box bar (named:
#: kept), a mathematical letter (never narrowed)
_ALPHABET = [
    *"abc XYZ_019=/.-'\"",
    "\u00e9",
    "\u00a6",
    "\u00a9",
    "\U0001f600",
    "\U0001f44d",
    "\u2019",
    "\u201c",
    "\u2014",
    "\u2022",
    "\u2705",
    "\ufe0f",
    "\u0436",
    "\u03bb",
    "\u039b",
    "\u00e0",
    "\u200b",
    "\u200c",
    "\u00ad",
    "\u0430",
    "\u2502",
]


def plain_narrowing(text: str) -> tuple[str, str, list[int], list[int], str] | None:
    """The narrowing, one character at a time: the narrowed text, its stand-in, where
    each wide character stood, its code and the table; None where it is not narrowed."""
    wide = [char for char in text if char > "\xff"]
    if not wide:
        return None
    narrowed = {char for char in wide if alike(char)}
    if any(char > "\uffff" and char not in narrowed for char in wide):
        return None
    lettered = _one_for_one(text, {char for char in wide if char not in narrowed})
    stand_in = next((char for char in STAND_INS if char not in text), None)
    widest = any(char not in narrowed and char not in lettered for char in wide)
    kind = 4 if any(char > "\uffff" for char in narrowed) else 2
    count, many = len(text), sum(char in narrowed or char in lettered for char in wide)
    if stand_in is None or (1 + widest * 2) * count + many * 8 >= kind * count:
        return None
    table = "".join(sorted(narrowed | lettered.keys()))
    where = [i for i, char in enumerate(text) if char in table]
    codes = [table.index(text[i]) for i in where]
    narrow = "".join(lettered.get(char, stand_in) if char in table else char for char in text)
    return narrow, stand_in, where, codes, table


def _one_for_one(text: str, others: set[str]) -> dict[str, str]:
    """The letters and hidden mark of ``text`` narrowed one for one, and their stand-ins:
    none unless every other wide character is one, their pairs are no more than the
    Latin-1 pairs the text lacks, and there is one kind of mark and no soft hyphen."""
    marks = others & HIDDEN_MARKS
    pairs = sorted({pair for char in others if (pair := letter_pair(char)) is not None})
    free = [pair for pair in _narrow._latin_pairs() if not set(pair) & set(text)]
    if any(letter_pair(char) is None and char not in marks for char in others):
        return {}
    if len(pairs) > len(free) or len(marks) > 1 or (marks and HIDDEN_STAND_IN in text):
        return {}
    stands = {HIDDEN_STAND_IN: HIDDEN_STAND_IN}
    for (low, up), (low_in, up_in) in zip(pairs, free, strict=False):
        stands[low], stands[up] = low_in, up_in
    return {char: stands.get(char, HIDDEN_STAND_IN) for char in others}


def _texts() -> list[str]:
    r = random.Random(43)
    texts = []
    for _ in range(150):  # mostly ASCII, each with a few of the wide characters
        weights = [20 if char.isascii() else r.choice([0, 0, 1]) for char in _ALPHABET]
        texts.append("".join(r.choices(_ALPHABET, weights, k=r.randrange(1, 400))))
    texts += [  # adversarial: wide at both ends, all stand-ins, dense, at the threshold
        "\U0001f600" + "a" * 50 + "\u2019",
        "\u00a6\u00a9\u00ae\u00b0 \U0001f600 ok",
        "\u2019" * 300,
        ("a" * 7 + "\u2019") * 40,
        ("a" * 6 + "\u2019") * 40,
        ("ab" * 30 + "\U0001f600") * 20,
        "x" * 100 + "\U0001d7ce" + "\U0001f600",
        "\u0436" * 5 + "\u2014" + "a" * 200,
        "\u03bb" + "a" * 30 + "\u200b" + "a" * 30 + "\u039b",  # letters and a mark alone
        "\u03bb \u00e0\u00c0 " + "a" * 30,  # the first Latin-1 pair in the text
        "\u200b\u00ad " + "a" * 30,  # a soft hyphen in it: the mark kept
        "\u200b\u200c " + "a" * 30,  # two kinds of mark
        "\u0430\u03bb " + "a" * 30,  # a look-alike letter kept
    ]
    return texts


@pytest.fixture
def small_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pieces and blocks of a few characters, so that every text crosses many."""
    monkeypatch.setattr(_narrow, "PIECE_BYTES", 13)
    monkeypatch.setattr(_narrow, "BLOCK", 17)


@pytest.mark.usefixtures("small_pieces")
def test_narrowing_is_the_plain_narrowing() -> None:
    narrowed_some = 0
    for text in _texts():
        buffer = bytearray(text.encode("utf-8"))
        got = narrowed_in_place(memoryview(buffer), 0, len(buffer))
        want = plain_narrowing(text)
        if want is None:
            assert got is None, text
            continue
        narrowed_some += 1
        assert got is not None, text
        narrow, stand_in, where, codes, table = want
        assert (got.narrow, got.stand_in) == (narrow, stand_in)
        assert (list(got._positions), list(got._codes), got._table) == (where, codes, table)
    assert narrowed_some > 50


@pytest.mark.usefixtures("small_pieces")
def test_every_slice_is_the_text_s() -> None:
    r = random.Random(7)
    for text in _texts():
        buffer = bytearray(text.encode("utf-8"))
        got = narrowed_in_place(memoryview(buffer), 0, len(buffer))
        if got is None:
            continue
        assert got.whole() == text
        at = 0
        while at < len(text):  # in order, as the writer and the suspects read it
            step = r.randrange(1, 30)
            assert got[at : at + step] == text[at : at + step]
            at += step
        for _ in range(30):  # anywhere, backwards, past the end
            a, b = sorted(r.randrange(-5, len(text) + 5) for _ in range(2))
            assert got[a:b] == text[a:b]


def test_a_wide_digit_past_the_first_piece_stops_the_narrowing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_narrow, "PIECE_BYTES", 16)
    text = "\u2019" + "a" * 100 + "\U0001d7ce"
    buffer = bytearray(text.encode("utf-8"))
    assert narrowed_in_place(memoryview(buffer), 0, len(buffer)) is None
    assert bytes(buffer) == text.encode("utf-8")
