"""A pattern tried only where one of its literals allows a match (``_literals``) finds
exactly what ``pattern.finditer`` finds: the same spans and groups, in the same order, at
window edges, in overlapping windows, for matches longer than any window, in non-ASCII
text that ``re.IGNORECASE`` folds, across the pieces a long text is folded in, and when
a literal is so common that the whole scan is cheaper."""

from __future__ import annotations

import random
import re

import pytest

from prime_nb.redact._literals import SHORT, finditer, fold, plan_of


def _found(pattern: re.Pattern[str], text: str) -> tuple[list[tuple[object, ...]], int]:
    want = [(m.span(), m.groups()) for m in pattern.finditer(text)]
    got = [(m.span(), m.groups()) for m in finditer(pattern, text)]
    assert got == want, pattern.pattern
    return want, len(want)


#: patterns with each shape the plan reads: a literal after a bounded lead, behind a
#: lookbehind, inside a lookahead, in alternatives, under (?i) scoped or whole, with an
#: unbounded tail, with a back-reference and a conditional
SHAPES = [
    r"(?<![\w-])ghp_[A-Za-z0-9]{8,}",
    r"[a-z]{0,6}key[=:][a-z0-9]+",
    r"(?i)(?<![a-z])(?:token|secret|pass(?:word)?)\s*[=:]\s*(\S{4,40})",
    r"(?=[a-z]{0,10}?(?i:pw|kk))[a-z]+=\d+",
    r"(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{4,}",
    r"\d{2,4}:[a-z]{3}(?![a-z])",
    r"(?P<q>['\"])ab(?P=q)",
    r"(?P<q>')?xy(?(q)'|z)",
    r"(?:^|\s)AKC[a-z]{3,}",
    r"(?m)^kv[a-z]*$",
    r"(?i)s\.[a-z]{3}",
    r"(?i)(?<!x)id[a-z]{2}",
]


def _noise(r: random.Random, size: int, alphabet: str) -> str:
    return "".join(r.choice(alphabet) for _ in range(size))


@pytest.mark.parametrize("seed", range(6))
def test_windows_find_what_the_scan_finds_in_random_text(seed: int) -> None:
    r = random.Random(seed)
    pieces = [
        "ghp_",
        "key=",
        "key:",
        "TOKEN = ",
        "Pass:",
        "password=",
        "sk_live_",
        "rk_test_",
        "12:",
        "1234:",
        "'ab'",
        '"ab"',
        "'xy'",
        "xyz",
        " AKC",
        "\nkv",
        "s.",
        "S.",
        "\u017f.",  # long s: (?i) s
        "\u0130d",  # dotted capital I: (?i) i, and one more character when lower-cased
        "\u0131d",  # dotless i
        "K",  # Kelvin sign: (?i) k
        "pw",
        "KK",
    ]
    alphabet = "abcdefxyz0123456789 =:_-'\"\n.KS\u00e9"
    total = 0
    for size in (SHORT + 100, 60_000):
        text = "".join(
            r.choice(pieces) if r.random() < 0.2 else _noise(r, r.randint(1, 12), alphabet)
            for _ in range(size // 6)
        )
        for source in SHAPES:
            total += _found(re.compile(source), text)[1]
    assert total > 500  # the texts do hold matches


def test_every_shape_is_planned() -> None:
    # each shape is tried in windows: none falls back to the whole scan by accident
    assert all(plan_of(re.compile(s)) is not None for s in SHAPES)
    assert plan_of(re.compile(r"[a-z]*@[a-z]+")) is None  # no bound before its literal
    assert plan_of(re.compile(r"x*")) is None  # an empty match


def test_a_match_at_the_window_edges() -> None:
    pattern = re.compile(r"(?<![a-z])[a-z]{0,6}key=[0-9]+")
    filler = "." * (SHORT * 2)
    # the literal at the farthest lead, at the text's start and end, hits one character
    # apart (windows that overlap), and a match that ends where the next window starts
    text = (
        "abcdefkey=1"
        + filler
        + "zkey=2key=3"
        + filler
        + "key=44keykey=5"
        + filler
        + "abcdefgkey=6"  # a lead of 7 letters: past the pattern's, no match
        + filler
        + "key=7"
    )
    found, n = _found(pattern, text)
    assert n == 6
    assert text[found[0][0][0] : found[0][0][1]] == "abcdefkey=1"


def test_a_match_longer_than_any_window() -> None:
    pattern = re.compile(r"(?<![\w-])ghp_[A-Za-z0-9]{30,}(?![\w-])")
    token = "ghp_" + "a1" * 300_000  # 600 KB: a match that runs past every window
    text = "x " * SHORT + token + " and ghp_" + "b" * 40 + " ghp_" + "c" * 10 + "-"
    found, n = _found(pattern, text)
    assert n == 2
    assert found[0][0] == (2 * SHORT, 2 * SHORT + len(token))


def test_a_literal_cut_between_two_folded_pieces() -> None:
    # a long text is lower-cased a mebibyte at a time; a literal across the cut is found
    pattern = re.compile(r"(?i)(?<![a-z])secret=[a-z0-9]{4}")
    cut = 1 << 20
    for offset in range(1, 7):
        text = "." * (cut - offset) + "SECRET=abcd" + "." * 100
        assert _found(pattern, text)[1] == 1


def test_non_ascii_text_is_folded_as_the_regex_folds_it() -> None:
    pattern = re.compile(r"(?i)(?<![a-z])(?:key|sig)=[a-z]{3}")
    # the Kelvin sign and long s match k and s under (?i); U+0130 lowers to two
    # characters, which must not shift where the literals are looked for
    text = ("\u0130" * 50 + " \u212aEY=abc \u017fIG=def \u00e9key=ghi ") * 300
    assert len(text) > SHORT and _found(pattern, text)[1] == 900


def test_a_common_literal_falls_back_to_the_whole_scan() -> None:
    pattern = re.compile(r"\d{8,10}:[0-9A-Za-z_-]{35}")
    text = ("a: b " * 20_000) + "123456789:" + "x" * 35
    assert _found(pattern, text)[1] == 1


def test_texts_of_a_mebibyte() -> None:
    r = random.Random(9)
    words = ["the", "key", "token", "pass", "sk_live_", "AKIA", "ghp_", "=", ":", " ", "\n"]
    text = "".join(r.choice(words) for _ in range(200_000))
    text += "".join(r.choice("abcdef0123456789") for _ in range(1 << 19))
    assert len(text) > 1_000_000
    for source in SHAPES:
        _found(re.compile(source), text)


def test_fold_is_the_lower_casing_that_re_ignorecase_reads() -> None:
    """``fold`` turns the dotted and dotless i and the long s into ASCII letters (which
    ``re.IGNORECASE`` matches them to) and lower-cases the rest, one character for one:
    what ``str.translate`` of those three, then ``str.lower``, gives, in texts of every
    mix of them, other letters that lower-case (the Kelvin sign, Latin-1, Greek) and
    ASCII."""
    table = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s"})
    letters = "\u0130\u0131\u017f\u212aK\u00c9\u00e9\u0391a Z1"
    r = random.Random(11)
    for _ in range(300):
        text = "".join(r.choice(letters) for _ in range(r.randint(0, 40)))
        folded = fold(text)
        assert folded == text.translate(table).lower(), text
        assert len(folded) == len(text)
