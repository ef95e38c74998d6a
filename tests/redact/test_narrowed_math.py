"""Mathematical letters narrowed (``_narrow_math.math_fold``) give the session as read whole:
secrets, keys and tokens written in them, a user's rule that pairs letters without
regard to case or names one, texts under every key; and each guard of that narrowing,
dropped, makes the oracle fail. The texts are ``test_narrowed_text.MATH``, which its
span and session oracles read too.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from math_texts import CASED, MATH, math_letters
from test_narrowed_text import (
    assert_oracle_differs,
    finder,
    redacted_both_ways,
    tiny,
)

from prime_nb.redact._embedded import StreamScrubber

_narrow = importlib.import_module("prime_nb.redact._narrow")
_narrow_math = importlib.import_module("prime_nb.redact._narrow_math")
_disguise = importlib.import_module("prime_nb.redact._disguise")
_long_scrub = importlib.import_module("prime_nb.redact._long_scrub")
_stand_in_folds = importlib.import_module("prime_nb.redact._stand_in_folds")
__all__ = ["finder", "tiny"]  # fixtures


#: a user's rule that pairs two letters without regard to case: a stand-in and its
#: partner would be paired where a mathematical letter and it are not
PAIRED: dict[str, Any] = {"rules": [re.compile(r"(?i)(\S+)=(\w)\2\b")]}
PARTNER = "Zq8vN2xL5pT7=" + math_letters("a") + "\u00c0 and more words"


@pytest.mark.usefixtures("tiny")
def test_math_letters_narrowed_give_the_session_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each text under each key the walk narrows: secrets written in mathematical
    letters are found as read whole, a token a suspect only in the folded view."""
    narrowed, before, count = redacted_both_ways(tmp_path, monkeypatch, [*MATH, *MATH])
    assert count >= len(MATH)
    assert narrowed == before
    # found in every text but where a key holds a Latin-1 letter or is upper case (kept)
    kept = [line for line in before[0].splitlines() if b"hunter2xyz" in line]
    marks = (b"p&#224;ssword", CASED.split("\n")[1].encode())
    assert len(kept) == 4 and all(any(mark in line for mark in marks) for line in kept)
    assert b"Zq8vN2xL5pT7rWk3" not in before[0]
    assert any("given by position" in row[-1] for row in before[2]), before[2]


@pytest.mark.usefixtures("tiny")
def test_math_letters_under_a_secret_key_or_read_as_they_are(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    custom = {"type": "custom", "customType": "x", "parentId": None}
    keyed = [
        {**custom, "id": f"k{i}", "data": {"api_key": text, "value": text}}
        for i, text in enumerate(MATH)
    ]
    narrowed, before, _ = redacted_both_ways(tmp_path, monkeypatch, keyed)
    assert narrowed == before


@pytest.mark.usefixtures("tiny")
def test_a_rule_pairing_letters_pairs_no_stand_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A case-insensitive rule reads a stand-in as the letter: its partner, which the
    text holds, is no other case of it."""
    narrowed, before, count = redacted_both_ways(tmp_path, monkeypatch, [PARTNER], **PAIRED)
    assert count and narrowed == before
    assert b"Zq8vN2xL5pT7" in before[0]  # the rule pairs no mathematical letter


#: user's rules naming a mathematical letter and a stand-in of one: the text is read whole
NAMED = [f"the key \U0001d400=Zq8vN2xL5pT7 {sep} \U0001d400:Xk7vN2xL5pT7 more" for sep in "ab"]
NAMING: dict[str, Any] = {
    "rules": [re.compile("\U0001d400=([A-Za-z0-9]{8,})"), re.compile("\u00c0:([A-Za-z0-9]{8,})")]
}


@pytest.mark.usefixtures("tiny")
def test_a_rule_naming_a_math_letter_or_its_stand_in_reads_the_text_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    narrowed, before, count = redacted_both_ways(tmp_path, monkeypatch, NAMED, **NAMING)
    assert count and narrowed == before
    assert b"Zq8vN2xL5pT7" not in before[0] and b"Xk7vN2xL5pT7" in before[0]


def _lower_stand_ins(math: dict[str, int], present: set[str]) -> dict[str, str] | None:
    """``_narrow_math.stand_ins`` with a lower-case stand-in for every letter."""
    free = [pair for pair in _narrow._latin_pairs() if not present.intersection(pair)]
    return {char: low for char, (low, _) in zip(sorted(math), free, strict=False)}


def _partnered_stand_ins(math: dict[str, int], present: set[str]) -> dict[str, str] | None:
    """``_narrow_math.stand_ins`` with a stand-in whose partner the text may hold."""
    free = [pair for pair in _narrow._latin_pairs() if not present.intersection(pair[:1])]
    return {char: low for char, (low, _) in zip(sorted(math), free, strict=False)}


#: the user's own rules a breakage's session is redacted with
OWN_RULES: dict[str, dict[str, Any]] = {
    "a stand-in's partner in the text": PAIRED,
    "a rule naming a mathematical letter or its stand-in kept": NAMING,
}


#: (how the guard is dropped, the session that then differs)
BREAKAGES: dict[str, tuple[Callable[[pytest.MonkeyPatch], None], list[Any]]] = {
    "a mathematical letter's fold dropped": (
        lambda mp: mp.setattr(
            _disguise, "_fold_parts", lambda _f: (_disguise._FOLDABLE, _disguise._FOLDS)
        ),
        MATH[:6],
    ),
    "a mathematical letter's case dropped": (
        lambda mp: mp.setattr(_narrow_math, "stand_ins", _lower_stand_ins),
        [CASED],
    ),
    "a stand-in's partner in the text": (
        lambda mp: mp.setattr(_narrow_math, "stand_ins", _partnered_stand_ins),
        [PARTNER],
    ),
    "a rule naming a mathematical letter or its stand-in kept": (
        lambda mp: mp.setattr(_long_scrub, "vouched", lambda *_: True),
        NAMED,
    ),
    "a Latin-1 letter decoded folded as a stand-in": (
        lambda mp: mp.setattr(_stand_in_folds.Folding, "holds", lambda *_: False),
        MATH[-1:],
    ),
}


@pytest.mark.usefixtures("tiny")
@pytest.mark.parametrize("breakage", BREAKAGES)
def test_the_oracle_fails_on_each_breakage_of_the_math_narrowing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, finder: StreamScrubber, breakage: str
) -> None:
    drop, texts = BREAKAGES[breakage]
    drop(monkeypatch)
    assert_oracle_differs(tmp_path, monkeypatch, finder, texts, OWN_RULES.get(breakage, {}))
