"""The suspect beside a secret's word, looked for near long runs only, is what the
pattern finds in the whole text: on random texts of words, gaps up to and past its
reach, runs one short of a token and long ones, matches that meet and follow on."""

from __future__ import annotations

import random

import pytest

from prime_nb.redact import _run_windows as run_windows
from prime_nb.redact._run_windows import run_matches
from prime_nb.redact._suspects import (
    _BESIDE_LEAD,
    _BESIDE_REACH,
    _BESIDE_WORD,
    _TOKEN_CLASS,
    suspect_spans,
)

_WORDS = ["token", "KEY", "Signature", "passwd", "password", "api", "xkey", "sig", "Bearer"]
_GAPS = [" ", ": ", "=", "\n", "-", ". ", "a b c d e f g h i j k l ", "x" * 9, ""]
_TOKEN = "ABCabc0189+/_-.=~"


def _texts() -> list[str]:
    r = random.Random(7)
    out = []
    for _ in range(600):
        parts = []
        for _ in range(r.randrange(1, 16)):
            kind = r.randrange(4)
            if kind == 3:  # a word, a gap, a run: a match when the run is long enough
                parts += [
                    r.choice(_WORDS),
                    r.choice(_GAPS),
                    r.choice(_TOKEN) * r.choice([19, 20, 30]),
                ]
            if kind == 0:
                parts.append(r.choice(_WORDS))
            elif kind == 1:
                parts.append(r.choice(_GAPS))
            else:  # a run: often just short of a token's 20, sometimes long
                n = r.choice([5, 19, 20, 21, 40])
                parts.append("".join(r.choice(_TOKEN) for _ in range(n)))
        out.append("".join(parts))
    # the longest word and the widest gap: a match starts its whole reach before its run
    out += [f"-{w}{' ' * gap}{'a' * 20}" for w in ("Signature", "key") for gap in (23, 24, 25)]
    return out


TEXTS = _texts()


def _spans(matches: object) -> list[tuple[tuple[int, int], ...]]:
    return [(m.span(), m.span("word"), m.span("token")) for m in matches]  # type: ignore[attr-defined]


def _near(text: str, reach: tuple[int, int] = _BESIDE_REACH) -> object:
    return run_matches(_BESIDE_WORD, _BESIDE_LEAD, text, _TOKEN_CLASS, reach)


@pytest.mark.parametrize("chunk", range(3))
def test_run_windows_find_what_the_pattern_finds(
    chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(run_windows, "_DENSEST", 1)  # no text left to the scan for its runs
    for text in TEXTS[chunk::3]:
        near = _near(text)
        assert near is not None, text
        assert _spans(near) == _spans(_BESIDE_WORD.finditer(text)), text


def test_latin1_is_read_near_runs() -> None:
    assert _near("token " + "ab\u4e2d" * 40 + "a" * 30) is None  # wider than Latin-1
    assert _near("token é " + "a" * 30) is not None  # Latin-1


def test_texts_hold_matches_and_near_misses() -> None:
    found = [len(list(_BESIDE_WORD.finditer(t))) for t in TEXTS]
    assert sum(n > 0 for n in found) >= 100
    assert sum(n > 1 for n in found) >= 10  # matches that follow on in one text


def test_a_suspect_is_reported_as_before() -> None:
    """Through ``suspect_spans``: a random token after a word, in a short ASCII text."""
    token = "aB3dE5gH7jK9mN1pQ3sT5vX7"
    assert [why for *_, why in suspect_spans(f"the secret is {token} ok")] == [
        "random token of 24 characters after 'secret'"
    ]
    assert list(suspect_spans(f"the secret is a long way away from {token}")) == []


def test_a_text_of_many_runs_is_left_to_the_scan() -> None:
    """Wrapped base64 past 4 KB: a run every 77 characters costs more than the scan."""
    assert _near("\n".join(["QUJD" * 19] * 100)) is None
    assert _near("\n".join(["QUJD" * 19] * 50)) is not None
