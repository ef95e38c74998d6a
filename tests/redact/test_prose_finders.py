"""The finders that read long prose through windows find what their whole scan finds.

A finder that reads a long text with ``_literals.finditer`` (not its pattern's own
``finditer``) tries the pattern only around its literals, or, where they stand
everywhere (a ``-``, ``_`` or ``.`` in prose), only where the pattern's first part ends.
Each such finder is compared with itself reading the text whole, on random prose full of
tokens and on adversarial text (tokens at a piece's edges, bodies longer than any
window, prefixes that are no token's, separators everywhere), read in both ways a long
text is windowed.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator

import pytest

from prime_nb.redact import (
    _encodings,
    _engine,
    _exposures,
    _find,
    _literals,
    _long_scan,
    _shape_ends,
)
from prime_nb.redact._exposures import HEX_TOKEN
from prime_nb.redact._generic import PREFIXED_TOKEN

Finder = Callable[[str], Iterator[tuple[int, int]]]
#: the finders, each with its module (whose ``finditer`` the whole scan replaces)
FINDERS = [(_exposures, _exposures.hex_token_spans)]


def _token(r: random.Random) -> str:
    prefix = r.choice(["ghp", "fc", "dapi", "ghp", "x" * 12, "a1", "Zz9", "sha", "b" * 13])
    hexes = "0123456789abcdef" if r.random() < 0.9 else "0123456789"
    body = "".join(r.choices(hexes, k=r.choice([31, 32, 36, 40, 64, 65, 300])))
    before = r.choice(["", "", "", ".", "=", "~", "-", "é", "/"])
    return before + prefix + r.choice("_-") + body + r.choice(["", "", "", "-", "+", "\n"])


def _prose(r: random.Random, size: int) -> str:
    words = ["the", "deploy", "failed.", "a-b", "x_y", "log", "line", "-p", "v1.2", "\n"]
    parts: list[str] = []
    while sum(map(len, parts)) < size:
        parts.append(_token(r) if r.random() < 0.2 else r.choice(words))
        parts.append(r.choice([" ", " ", "", "\t"]))
    return "".join(parts)


def _whole(
    module: object, finder: Finder, text: str, monkeypatch: pytest.MonkeyPatch
) -> list[tuple[int, int]]:
    with monkeypatch.context() as patch:
        patch.setattr(module, "finditer", lambda pattern, text: pattern.finditer(text))
        return sorted(finder(text))


@pytest.mark.parametrize("shapes", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_windows_find_what_the_whole_scan_finds(
    monkeypatch: pytest.MonkeyPatch, seed: int, shapes: bool
) -> None:
    r = random.Random(seed)
    text = _prose(r, 50_000)
    if shapes:  # the pattern's first part's ends, in pieces of 61 characters
        _shapes_only(monkeypatch, 61)
    for module, finder in FINDERS:
        want = _whole(module, finder, text, monkeypatch)
        assert len(want) > 20
        assert sorted(finder(text)) == want


def test_adversarial_tokens_at_every_offset(monkeypatch: pytest.MonkeyPatch) -> None:
    r = random.Random(7)
    _shapes_only(monkeypatch, 64)
    # a token starting at each offset of a piece, separators crowding it, and bodies
    # that run past the form's reach
    text = "".join(" " * (i % 67) + "._-" * (i % 3) + " " * (i % 2) + _token(r) for i in range(800))
    text += "a_" + "0123456789abcdef" * 40 + "\u2014 ghp_" + "ab12" * 9  # then wide
    for module, finder in FINDERS:
        want = _whole(module, finder, text, monkeypatch)
        assert len(want) > 40
        assert sorted(finder(text)) == want


@pytest.mark.parametrize("seed", range(4))
def test_hex_runs_are_the_patterns_matches(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """A long text's hex runs, found by class in pieces of 50 characters, are
    ``HEX_RUN``'s matches: runs of 19, 20 and more digits, across a piece's edge, at
    the text's ends, and past a character wider than Latin-1 (the pattern from there)."""
    monkeypatch.setattr(_find, "LONG", 0)
    monkeypatch.setattr(_encodings, "PIECE", 50)
    r = random.Random(seed)
    parts = []
    for _ in range(600):
        length = r.choice([1, 5, 19, 20, 21, 40, 49, 50, 51, 130])
        parts.append("".join(r.choices("0123456789abcdefABCDEF", k=length)))
        parts.append(r.choice([" ", "g", "-", "\n", "é", "x" * r.randrange(60)]))
    text = "".join(parts)
    if seed == 3:  # wider than Latin-1 half-way: the pattern reads the rest
        half = len(text) // 2
        text = text[:half] + "\u2014" + text[half:]
    want = [m.span() for m in _encodings.HEX_RUN.finditer(text)]
    assert len(want) > 100
    assert list(_find.hex_runs(text)) == want


def _shapes_only(monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
    """Every text tried where its patterns' shapes end, in pieces of ``chunk``, however
    many ends a short text holds."""
    for module in (_engine, _shape_ends, _long_scan):
        monkeypatch.setattr(module, "CHUNK", chunk)
    monkeypatch.setattr(_long_scan, "ends_budget", lambda text, ends: 1 << 20)
    monkeypatch.setattr(_literals, "SHORT", 0)
    monkeypatch.setattr(_literals, "SHAPE_MIN", 0)
    monkeypatch.setattr(_literals, "SHAPE_WORTH", 1 << 40)  # a hit: the shape
    monkeypatch.setattr(_literals, "_SAMPLED", 0)


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        # a form begun at the separator after a word: the match starts up to the
        # left-out width before it, at the farthest in the last
        (
            PREFIXED_TOKEN,
            "a dp.st.prd_" + "Ab1" * 11 + " x_" + "Q9" * 15 + " " + "y" * 12 + "_" + "k7" * 15,
        ),
        (HEX_TOKEN, "fc-" + "ab12" * 9 + " .fc-" + "ab12" * 8 + " xxxxxxxxxxxx_" + "9f" * 16),
        # a repeat that ends the pattern, cut to its least count
        (re.compile(r"(ghp|gho)_[A-Za-z0-9_]{36}"), "ghp_" + "a1" * 18 + " gho_" + "b2" * 30),
        (re.compile(r"[a-z]{0,6}key[=:][a-z0-9]+"), "apikey=ab1 key:9 xx-abcdefkey=zz"),
    ],
)
def test_edges_of_forms_begun_later(
    monkeypatch: pytest.MonkeyPatch, pattern: re.Pattern[str], text: str
) -> None:
    ends = _shape_ends.shape_ends(pattern)
    assert ends.answered()
    for chunk in (1, 2, 3, 5, 8, 13, 40):
        _shapes_only(monkeypatch, chunk)
        for at in range(0, 90, 7):  # the text at many offsets of the pieces
            shifted = "." * at + text
            want = [m.span() for m in pattern.finditer(shifted)]
            assert [m.span() for m in _literals.finditer(pattern, shifted)] == want
            assert want


def test_a_form_begins_at_the_separator() -> None:
    # the generic token's form begins at its separator, not where every word does
    made = _shape_ends.form(PREFIXED_TOKEN)
    assert made is not None and made[0].startswith(b"[\\x2d-\\x2e\\x5f]")
    # a literal start stays: ``ghp`` is rarer than ``_``; its repeat is cut to 32
    made = _shape_ends.form(re.compile(r"(ghp|gho)_[A-Za-z0-9_]{36}"))
    assert made is not None and made[0].startswith(b"(?:[\\x67]") and made[1] == 36
    ends = _shape_ends.shape_ends(re.compile(r"(ghp|gho)_[A-Za-z0-9_]{36}"))
    assert len(ends.windows("ghp_" + "a" * 40, 100) or []) == 1
