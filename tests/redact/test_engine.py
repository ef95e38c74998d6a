"""The one-pass literal search (``_engine``) answers as the ``str`` tests it replaces:
which literals a text holds and where each starts, as written, lower-cased and folded as
``re.IGNORECASE`` folds, in ASCII and Latin-1 text with NUL characters, and literals cut
by the pieces a long text is scanned in; wider text (4-byte characters, lone
surrogates, the Kelvin sign) is left to the ``str`` tests, and so are runs."""

from __future__ import annotations

import random
import re

import pytest

from prime_nb.redact import _engine, _find
from prime_nb.redact._engine import EXACT, FOLD, LOWER, Literals, Run
from prime_nb.redact._literals import TOKEN_CHARS, fold

LITERALS = ["key", "pw", "://", "ghp_", "akia", "\u00e9t", "\xa05", "s", "ki", "\x00x"]
ALPHABET = [
    *"akeyipwsghp_:/ AKEYIPWS",
    "\u212a",  # Kelvin sign: (?i) k
    "\u017f",  # long s
    "\u0131",  # dotless i
    "\u0130",  # dotted capital I: two characters when lower-cased
    "\u00e9",
    "\x85",
    "\x00",
    "\u20ac",  # 3 bytes in UTF-8
    "\U0001f600",  # 4 bytes
    "\ud800",  # a lone surrogate (JSON may hold one)
    # in UTF-32 these hold the bytes of "k", "i" and "s" across two characters
    "\u6b00",
    "\u0100",
    "\u6900",
    "\u736b",
]


def _want(text: str, literal: str, mode: int) -> list[int]:
    hay = text if mode == EXACT else text.lower() if mode == LOWER else fold(text)
    out, at = [], hay.find(literal)
    while at >= 0:
        out.append(at)
        at = hay.find(literal, at + 1)
    return out


@pytest.mark.parametrize("alphabet", ["ascii", "latin", "wide"])
def test_positions_and_presence_are_those_of_str(
    alphabet: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_engine, "CHUNK", 997)  # many pieces, literals cut between them
    r = random.Random(alphabet)
    chars = [c for c in ALPHABET if c.isascii()] if alphabet == "ascii" else ALPHABET
    if alphabet == "latin":
        chars = [c for c in ALPHABET if ord(c) < 256]
    checked = found = 0
    for size in (50, 5000, 20_000):
        text = "".join(
            r.choice(LITERALS) if r.random() < 0.1 else r.choice(chars) for _ in range(size)
        )
        for mode in (EXACT, LOWER, FOLD):
            items = tuple((lit, mode) for lit in LITERALS if mode == EXACT or lit.isascii())
            engine = Literals(items)
            handled, hits = engine.positions(text, len(text))
            present = engine.present(text)
            if not all(ord(c) < 256 for c in text):
                assert not handled and present is None  # the caller's str tests answer
                continue
            assert handled and hits is not None and present is not None
            want = sorted(at for lit, _ in items for at in _want(text, lit, mode))
            assert list(hits) == want, (alphabet, mode, size)
            assert present == {i for i, (lit, _) in enumerate(items) if _want(text, lit, mode)}
            checked += 1
            found += len(want)
    if alphabet == "wide":
        assert checked == 0  # every text holds a wider character: left to str
    else:
        assert checked == 9 and found > 1000


def test_a_budget_stops_the_scan() -> None:
    engine = Literals((("ab", EXACT),))
    assert engine.positions("ab" * 100, 10) == (True, None)
    handled, hits = engine.positions("ab" * 10, 10)
    assert handled and hits is not None and list(hits) == list(range(0, 20, 2))


def test_a_literal_it_cannot_mirror_is_left_to_str() -> None:
    # a case-insensitive literal that is not ASCII: the caller tests it itself
    engine = Literals((("\u00e9t\u00e9", LOWER),))
    assert engine.positions("\u00c9T\u00c9", 5) == (False, None)
    assert engine.present("x") is None


def test_a_text_wider_than_latin_1_is_left_to_str() -> None:
    # found out at the piece that is wider: no answer, however much came before
    engine = Literals((("k", EXACT), ("k", FOLD)))
    assert engine.present("k" * 10 + "\u6b00") is None
    assert engine.positions("\u212a", 10) == (False, None)
    assert engine.present("\u00e9k") == {0, 1}


@pytest.mark.parametrize("chars", [_find.HEX_CHARS, TOKEN_CHARS])
def test_a_run_is_found_as_its_regex_finds_it(chars: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_engine, "CHUNK", 997)  # runs cut between pieces
    r = random.Random(chars)
    others = [c for c in ALPHABET if c not in chars]
    checked = held = 0
    for length in (3, 8, 20):
        pattern = re.compile(f"[{re.escape(chars)}]{{{length}}}")
        for size in (10, 3000):
            for density in (0.5, 0.8, 0.95):
                text = "".join(
                    r.choice(chars) if r.random() < density else r.choice(others)
                    for _ in range(size)
                )
                want = pattern.search(text) is not None
                assert Run(chars, length).in_text(text) == want, (length, size, density)
                checked += 1
                held += want
                # and after a character that is not one of the run's
                after = re.compile(f"[^{re.escape(chars)}]{pattern.pattern}")
                want = after.search(text) is not None
                assert Run(chars, length, chars).in_text(text) == want, (length, size)
                held += want
    assert 0 < held < 2 * checked


def test_no_latin_1_character_lowers_or_folds_to_another_ascii_letter() -> None:
    """Why matching ASCII case alone mirrors ``str.lower`` and ``fold`` on Latin-1."""
    for code in range(0x80, 0x100):
        char = chr(code)
        assert not any(c.isascii() for c in char.lower() + fold(char)), hex(code)


#: characters at the edges of base32 and base64 runs: in and out of each run's set and
#: its lookarounds' (``=``, ``_``, ``-``), a line break, wider characters
RUN_ALPHABET = [*"AZ27az18+/=_- \n.", "\u00e9", "\u212a", "\x00"]


def _run_texts(seed: int, count: int) -> list[str]:
    """Texts of runs (of base32 letters, of ``=``) and single characters between them."""
    r = random.Random(seed)
    texts = []
    for _ in range(count):
        parts = []
        for _ in range(r.randrange(6)):
            kind = r.randrange(3)
            if kind == 0:
                parts.append("".join(r.choices("AZ27", k=r.choice([15, 16, 17, 30]))))
            elif kind == 1:
                parts.append("=" * r.randrange(8))
            else:
                parts.append("".join(r.choices(RUN_ALPHABET, k=r.randrange(3))))
        texts.append("".join(parts))
    return texts


def test_base32_runs_are_the_patterns_matches(monkeypatch: pytest.MonkeyPatch) -> None:
    """``_disguise.base32_runs`` (a pattern that is skipped ahead on in C, after one
    pass of Hyperscan over a long text) finds the spans its lookbehind pattern finds, at
    a text's start, after every character, in long texts scanned in pieces that cut
    runs (and with characters wider than Latin-1)."""
    from prime_nb.redact import _disguise

    monkeypatch.setattr(_engine, "CHUNK", 997)
    monkeypatch.setattr(_disguise, "_SCANNED", 4096)  # the scan's bound, for shorter texts
    texts = _run_texts(11, 3000)
    r = random.Random(13)
    filler = ["a" * 3000, "=" * 3000, "A" * 3000, "7" * 4100]
    long = ["".join(r.sample(texts, 800)) for _ in range(20)]
    long += [f + t for f in filler for t in ("", " ABCDEFGHIJKLMNOP", "\u4e2dABCDEFGHIJKLMNOP")]
    found = 0
    for text in [*texts, *long]:
        want = [m.span() for m in _disguise._BASE32_RUN.finditer(text)]
        assert list(_disguise.base32_runs(text)) == want, text[:200]
        found += len(want)
    assert found > 300
    assert sum(len(t) > _disguise._SCANNED for t in long) >= 20


def test_base64_whole_is_the_padding_test() -> None:
    """``_encodings.base64_whole`` answers as ``_PADDING_INSIDE`` over a run, with the
    run anywhere in a text."""
    from prime_nb.redact import _encodings

    r = random.Random(12)
    answers = set()
    for text in _run_texts(12, 3000):
        start = r.randrange(len(text) + 1)
        end = r.randrange(start, len(text) + 1)
        breaks = text.count("\n", start, end) + text.count("\r", start, end)
        inside = _encodings._PADDING_INSIDE.search(text, start, end)
        want = not (end - start - breaks) % 4 and inside is None
        assert _encodings.base64_whole(text, start, end) == want, (text, start, end)
        answers.add(want)
    assert answers == {True, False}


def _views(text: str) -> list[tuple[str, list[int], list[int], list[int]]]:
    from prime_nb.redact import _disguise

    return [(v, o._at, o._from, o._to) for v, o in _disguise.views(text)]


def test_a_long_texts_views_are_those_of_its_str_tests(monkeypatch: pytest.MonkeyPatch) -> None:
    """The disguise views of a long text, told by one scan which disguises it may show,
    are those its ``in`` tests and ``_QP_NAMED``'s search give: each tell alone, cut by
    the scan's pieces, in another case, beside characters wider than Latin-1."""
    from prime_nb.redact import _disguise

    monkeypatch.setattr(_engine, "CHUNK", 997)
    monkeypatch.setattr(_disguise, "_SCANNED", 4096)  # the scan's bound, for shorter texts
    tells = [
        "a \\\n  b",
        "a \\\r\n b",
        "%2541%2542",
        "[x](http://h/p)",
        '"a ""b"" c",d',
        "pass=3Dword",
        "Content-Transfer-Encoding: Quoted-Printable\n\npass=\nword",
        "x-y QUOTED-PRINTABLE",
        "x-y quoted-pr\u0131ntable",
        "x-y quoted-printabl",
    ]
    r = random.Random(14)
    texts = []
    for tell in tells:
        for at in (0, 996 - len(tell) // 2, 3000):
            filler = "".join(r.choices("abc -=%]\"'\\\n", k=5000))
            filler = filler.replace("%2", "").replace("](", "").replace('""', "")
            filler = filler.replace("\\\n", "").replace("=3", "")
            texts.append(filler[:at] + tell + filler[at:])
    texts += [t + "\u00e9" for t in texts[:6]] + [t + "\u4e2d" for t in texts[:6]]
    shown = 0
    for text in texts:
        assert len(text) > _disguise._SCANNED
        got = _views(text)
        with monkeypatch.context() as m:
            m.setattr(_disguise, "_SCANNED", 1 << 40)
            assert got == _views(text), text[:80]
        shown += bool(got)
    assert shown >= 20
