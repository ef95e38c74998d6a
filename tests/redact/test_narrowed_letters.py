"""A long text with letters of two UTF-8 bytes or a hidden mark in it, narrowed one for
one (``_narrow.letter_pair``, ``HIDDEN_MARKS``), gives every finder the answer the text
itself gives: the letters and stand-ins, and the guards that read such a text whole.

The oracle of ``test_narrowed_text.py`` (its texts hold such letters and marks too)
compares spans, file, report and suspects; here each guard of the narrowing one for one,
dropped, makes one of those comparisons fail.
"""

from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_narrowed_text import (
    SPECIAL,
    _narrowed,
    assert_oracle_differs,
    redacted_both_ways,
    tiny,  # noqa: F401 (a fixture, used by name)
)

from prime_nb.redact._embedded import StreamScrubber
from prime_nb.redact._file import _rules
from prime_nb.redact._narrow import letter_pair

_narrow = importlib.import_module("prime_nb.redact._narrow")
_letter_pairs = importlib.import_module("prime_nb.redact._letter_pairs")
_long_scrub = importlib.import_module("prime_nb.redact._long_scrub")
_apart = importlib.import_module("prime_nb.redact._apart")


@pytest.fixture(scope="module")
def finder() -> StreamScrubber:
    return StreamScrubber(_rules(None, [], []))


@pytest.mark.usefixtures("tiny")
def test_a_letter_of_two_bytes_is_narrowed_to_a_latin1_letter_of_its_case() -> None:
    """Each pair of letters (lower and upper) as a pair of Latin-1 letters the text
    lacks; none where a letter has no such pair (Hebrew), is a look-alike the disguise
    finder folds, or shares its case with a third (sigma, theta)."""
    greek = _narrowed("\u03bb plain \u039b words \u00e0 " * 20)  # à in it: not a stand-in
    assert greek is not None and greek.narrow == "\u00e1 plain \u00c1 words \u00e0 " * 20
    assert (
        greek.letters == "\u039b\u03bb"
        and greek.whole() == "\u03bb plain \u039b words \u00e0 " * 20
    )
    mixed = _narrowed("😀 \u0436 plain \u0151 words " * 20)
    assert mixed is not None and mixed.narrow == "¦ \u00e1 plain \u00e0 words " * 20
    hidden = _narrowed("a\u200bb plain \u200b words " * 20)
    assert hidden is not None and hidden.narrow == "a\u00adb plain \u00ad words " * 20
    assert _narrowed("a\u200bb \u200c plain words " * 20) is None  # two kinds of mark
    assert _narrowed("a\u200bb \u00ad plain words " * 20) is None  # a soft hyphen in it
    assert _narrowed("\ufeffa plain text with words " * 20) is None  # a byte-order mark
    for kept in ("\u05e9", "\u0430", "\u03c3", "\u03b8", "\u03a9", "\u0131", "\u00ff"):
        assert _narrowed(f"{kept} plain words and more plain words " * 20) is None, kept
    pairs = _narrow._latin_pairs()
    assert ("\u00e5", "\u00c5") not in pairs and ("\u00f1", "\u00d1") not in pairs
    many = "".join(chr(0x0561 + i) for i in range(len(pairs) + 1))  # Armenian: one too many
    assert _narrowed(f"{many} plain words " * 200) is None


def test_a_letter_and_its_stand_in_match_their_pair_alone_ignoring_case() -> None:
    """``re``'s IGNORECASE matches a letter narrowed, and a letter standing for one, with
    its pair alone, in all the BMP: a pattern ignoring case reads them alike."""
    bmp = "".join(chr(code) for code in range(0x10000) if not 0xD800 <= code < 0xE000)
    letters = {letter_pair(chr(code)) for code in range(0x100, 0x800)} - {None}
    assert len(letters) > 150  # Latin Extended, Greek, Cyrillic, Armenian
    for pair in [*letters, *_narrow._latin_pairs()]:
        assert pair is not None
        assert set(re.findall(re.escape(pair[0]), bmp, re.IGNORECASE)) == set(pair), pair


#: as ``WIDE``, with a Greek letter (narrowed to a Latin-1 letter) for the emoji
_LETTERED = "Zq8\u03bbvN2xL5pT7rWk3J9mB4c"
WIDE_LETTERS = [
    {"type": "custom", "id": "wl", "customType": "x", "data": {"password": _LETTERED}},
    f"later \u03bb the same {_LETTERED} again, bare",
    "password=hun\u03bbter2xyz and then \u03bb more",
    "the same \u03bb password=hun\u03bbter2xyz \U0001d7ce (read whole: a mathematical digit)",
]
#: a user's rule that names a Greek letter (the narrowed text lacks it), and a text
LETTER_RULE = re.compile("\u03bb=([A-Za-z0-9]{8,})")
LETTER_KEYED = "the key \u03bb=Zq8vN2xL5pT7 \u0151 it's here"
LETTER_OWN: dict[str, Any] = {"rules": [LETTER_RULE, re.compile(r"password=\S+")]}


@pytest.mark.usefixtures("tiny")
def test_a_letter_in_a_value_or_a_rule_reads_the_text_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file-wide value with a letter narrowed, a password with one (a span over its
    stand-in), a user's rule that names one."""
    (tmp_path / "rule").mkdir()
    narrowed, before, count = redacted_both_ways(
        tmp_path, monkeypatch, [*WIDE_LETTERS, SOFT_HYPHENED]
    )
    assert count >= 2 and narrowed == before
    for value in (_LETTERED, "hun\u03bbter2xyz"):
        assert value.encode() not in before[0]
    narrowed, before, count = redacted_both_ways(
        tmp_path / "rule", monkeypatch, [LETTER_KEYED, *SPECIAL], **LETTER_OWN
    )
    assert count and narrowed == before
    assert b"Zq8vN2xL5pT7" not in before[0]


#: texts beyond ASCII not narrowed (a letter with no case, beyond the BMP, a look-alike,
#: Latin-1 alone), held as narrowed texts with nothing narrowed (``_narrow.kept_whole``)
KEPT = [
    "\u05e9\u05dc\u05d5\u05dd password=hunter2xyz and then more (Hebrew)",
    "\U0001d7ce math password=hun\U0001d7ceter2xyz and ghp_Zq8vN2xL5pT7rWk3J9mB4cY6hD1fG0sA2eR8",
    "\u0440\u0430ssword=hunter2xyz \u03bb (a look-alike) \u2019s",
    "\u4e2d\u6587 token ghp_Zq8vN2xL5pT7rWk3J9mB4cY6hD1fG0sA2eR8 ok \u200b\u200c",
    "caf\u00e9 na\u00efve password=hunter2xyz \u00bfqu\u00e9? (Latin-1 alone)",
]


@pytest.mark.usefixtures("tiny")
def test_a_text_kept_whole_is_redacted_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under each of six keys in turn (a line kept as it is, written anew, a secret's key
    among them): the same file, report and suspects as the text read as a ``str``."""
    kept = [0]
    real = _apart.kept_whole

    def counted(text: str) -> Any:
        kept[0] += 1
        return real(text)

    monkeypatch.setattr(_apart, "kept_whole", counted)
    narrowed, before, _ = redacted_both_ways(tmp_path, monkeypatch, KEPT * 3)
    assert kept[0] >= len(KEPT) * 3  # each, in each pass
    assert narrowed == before
    assert b"hunter2xyz" not in before[0]


#: a text read whole (a span over a stand-in) that holds a soft hyphen and a hidden mark
SOFT_HYPHENED = "password=hun\u200bter2xyz \u00ad then \u00ad more plain words"


def _soft_hyphen_free(monkeypatch: pytest.MonkeyPatch) -> None:
    """The soft hyphen taken as a hidden mark's stand-in where the text holds it."""
    real = _narrow._letter_stand_ins
    monkeypatch.setattr(
        _narrow, "_letter_stand_ins", lambda letters, present: real(letters, present - {"\xad"})
    )


def _looks_none(monkeypatch: pytest.MonkeyPatch) -> None:
    """No look-alike letter kept from narrowing (and ``letter_pair`` made anew)."""
    fresh = functools.lru_cache(_letter_pairs.letter_pair.__wrapped__)
    for module in (_letter_pairs, _narrow):
        monkeypatch.setattr(module, "_looks", frozenset)
        monkeypatch.setattr(module, "letter_pair", fresh)


def _first_stand_in(real: Callable[..., bool], narrow: str, stand_ins: str, spans: Any) -> bool:
    """``_over_stand_in`` of the symbols' stand-in alone (the letters' left out)."""
    return real(narrow, stand_ins[:1], spans)


#: (how the guard is dropped, the session that then differs; None: the spans differ)
BREAKAGES: dict[str, tuple[Callable[[pytest.MonkeyPatch], None], list[Any] | None]] = {
    "a soft hyphen the text holds taken as a stand-in": (_soft_hyphen_free, [SOFT_HYPHENED]),
    "a look-alike letter narrowed": (_looks_none, None),
    "a span over a letter's stand-in kept": (
        lambda mp: mp.setattr(
            _long_scrub,
            "_over_stand_in",
            functools.partial(_first_stand_in, _long_scrub._over_stand_in),
        ),
        WIDE_LETTERS[2:],
    ),
    "a file-wide value with a letter kept": (
        lambda mp: mp.setattr(
            _long_scrub.LongTextScrubber,
            "_wide_forms",
            lambda self, chars, real=_long_scrub.LongTextScrubber._wide_forms: real(
                self, chars[:1]
            ),
        ),
        WIDE_LETTERS[:2],
    ),
    "a rule naming a letter kept": (
        lambda mp: mp.setattr(
            _long_scrub, "vouched", lambda rules, *_, real=_long_scrub.vouched: real(rules)
        ),
        [LETTER_KEYED],
    ),
}


@pytest.mark.usefixtures("tiny")
@pytest.mark.parametrize("breakage", BREAKAGES)
def test_the_oracle_fails_on_each_breakage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, finder: StreamScrubber, breakage: str
) -> None:
    drop, texts = BREAKAGES[breakage]
    drop(monkeypatch)
    options = LETTER_OWN if texts == [LETTER_KEYED] else {}
    assert_oracle_differs(tmp_path, monkeypatch, finder, texts, options)
