"""A long text's patterns tried only where their shape ends (``_shape_ends``) find
exactly what ``pattern.finditer`` finds, and the dispatch scan answers for hints that no
Latin-1 text can hold.

Texts are short and cut in tiny pieces (``CHUNK`` small, ``SHORT`` zero), so that the
long-text path runs and matches fall across pieces, at a piece's start and at the
farthest start a shape's end allows.
"""

from __future__ import annotations

import random
import re

import pytest

from prime_nb.redact import _literals, _shape_ends
from prime_nb.redact._rules import default_rules
from prime_nb.redact._suspects import _BESIDE_WORD
from tests.redact.secret_corpus import KINDS

#: the rules' patterns and the suspects' (the long-text finditer's callers), each with
#: literals (the others run whole)
PATTERNS = tuple(
    dict.fromkeys(
        p
        for p in [*(r.pattern for r in default_rules()), _BESIDE_WORD]
        if p is not None and _literals.plan_of(p) is not None
    )
)


@pytest.fixture(scope="module")
def texts() -> list[str]:
    """Secrets of every kind among base64-like noise, prose and the characters the
    patterns' edges read (quotes, blanks, line ends, ``=``)."""
    r = random.Random(43)
    noise = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    edges = ["\n", " ", '"', "'", "=", ": ", "-", "_", ".", "/", "é"]
    out = []
    for seed in range(3):
        parts = []
        for make in KINDS:
            snippet = make(random.Random(seed)).snippet
            if seed < 2 and max(snippet) > "\xff":
                continue  # the first texts Latin-1 (scanned), the last wider
            parts.append(snippet)
            parts.append(r.choice(edges))
            parts.append("".join(r.choice(noise) for _ in range(r.randrange(40))))
            parts.append(r.choice(edges))
        r.shuffle(parts)
        out.append("".join(parts))
    return out


def _cut_small(monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
    monkeypatch.setattr(_shape_ends, "CHUNK", chunk)
    monkeypatch.setattr(_literals, "SHORT", 0)
    monkeypatch.setattr(_literals, "SHAPE_MIN", 0)
    monkeypatch.setattr(_literals, "SHAPE_WORTH", 1 << 40)  # a hit: the shape


@pytest.mark.parametrize("chunk", [11, 257])
def test_shape_windows_find_what_the_scan_finds(
    monkeypatch: pytest.MonkeyPatch, texts: list[str], chunk: int
) -> None:
    _cut_small(monkeypatch, chunk)
    answered = found = 0
    assert max(texts[0]) <= "\xff" < max(texts[2])
    for pattern in PATTERNS:
        for text in texts:
            want = [(m.span(), m.groups()) for m in pattern.finditer(text)]
            got = [(m.span(), m.groups()) for m in _literals.finditer(pattern, text)]
            assert got == want, pattern.pattern
            found += len(want)
        answered += _shape_ends.shape_ends(pattern).windows(texts[0], 10**9) is not None
    # the shapes answer for most patterns, and the texts hold matches of them
    assert answered >= len(PATTERNS) * 2 // 3
    assert found > 300


@pytest.mark.parametrize(
    ("source", "text"),
    [
        # a match as long as the reach: it starts at the farthest start an end allows
        (r"ab[0-9]{3}", "xxab123yyyab45ab999"),
        # a negative lookbehind at the text's start and at a piece's start
        (r"(?i)(?<![a-z])key[=:][0-9]{2,4}", "key=12 akey=99 KEY:1234x.key=5678"),
        # a lookbehind read as a character, a lookahead at the end, alternatives
        (r"(?<=[ .])(?:tok|secret)_[a-z]{2}(?=[;,])", "tok_ab; secret_cd, .tok_ef;tok_gh,"),
        # an unbounded tail: only its first part is in the shape
        (r"(?<![\w-])ghp_[A-Za-z0-9]{4,}", "ghp_abcdefgh ghp_x -ghp_abcd ghp_" + "z" * 40),
        # a lazy gap and a token after it
        (
            r"(?i)(?<![a-z])pass(?![a-z])[^\n]{0,8}?(?P<t>[A-Za-z0-9]{6,})",
            "pass: abcdef9 pass1234567",
        ),
    ],
)
def test_edges_of_shape_windows(monkeypatch: pytest.MonkeyPatch, source: str, text: str) -> None:
    pattern = re.compile(source)
    assert _shape_ends.shape_ends(pattern).reach is not None
    for chunk in range(1, 12):
        _cut_small(monkeypatch, chunk)
        for at in range(len(text)):  # every offset of the text in the pieces
            shifted = "." * at + text
            want = [m.span() for m in pattern.finditer(shifted)]
            assert [m.span() for m in _literals.finditer(pattern, shifted)] == want
            assert want


def test_reach_is_the_longest_stretch() -> None:
    assert _shape_ends.form(re.compile(r"ab[0-9]{3}")) is not None
    assert _shape_ends.shape_ends(re.compile(r"ab[0-9]{3}")).reach == 5
    # a lookbehind that begins it is read, a lookahead is not
    assert _shape_ends.shape_ends(re.compile(r"(?<=xy)ab(?=c{2})")).reach == 4
    assert _shape_ends.shape_ends(re.compile(r"(?<![a-z])ab[0-9]+")).reach == 4
    # nothing bounded to begin with: no shape (literal windows instead)
    assert _shape_ends.form(re.compile(r"[a-z]*key")) is None


def test_a_text_wider_than_latin1_keeps_literal_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    _cut_small(monkeypatch, 4)
    pattern = re.compile(r"(?<![\w-])ghp_[A-Za-z0-9]{6,}")
    text = "ghp_abcdefg \u2603 ghp_hijklmn ghp_x"
    assert _shape_ends.shape_ends(pattern).windows(text, 100) is None
    assert [m.span() for m in _literals.finditer(pattern, text)] == [
        m.span() for m in pattern.finditer(text)
    ]


def test_random_base64_opens_almost_no_window() -> None:
    """The point of the shapes: short literals stand everywhere in base64, whole shapes
    almost nowhere."""
    r = random.Random(7)
    noise = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    text = "".join(r.choice(noise) for _ in range(200_000))
    twilio = re.compile(r"AC[a-z0-9]{32}")
    assert text.count("AC") > 20
    assert _shape_ends.shape_ends(twilio).windows(text, 10**9) == []


HINTS = ("truncated", "...", "\u2026")


@pytest.mark.parametrize(
    "text", ["a" * 100, "x... y", "TRUNCATED", "caf\u00e9 \u2026", "\u2026", "snow \u2603..."]
)
def test_the_scan_answers_for_a_hint_beyond_latin1(text: str) -> None:
    """A hint no Latin-1 text holds (``…``) is left out of its group, not the group
    out of the scan: a long text's hints are not then lower-cased a piece at a time."""
    hints = HINTS  # one long-lived tuple, as a rule's
    presence = _literals.Presence(text, None)
    presence.prime([(hints, 1)])
    if text.isascii() or all(ord(ch) < 256 for ch in text):
        assert presence.found() is not None
        assert presence._primed((id(hints), 1)) is not None
    assert presence.any_in(hints, 1) == any(h in text.lower() for h in hints)
