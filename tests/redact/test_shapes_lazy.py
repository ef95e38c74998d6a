"""The shapes' database (``_prefilter.Shapes``) is compiled at the first text its scan
can answer for, not when the dispatch is built: a file of one long line never compiles
it. Its answers are those of the patterns read whole (an oracle over random texts), and a
form Hyperscan refuses among the others is reported as matching in every text, so that
the rules it gates still run.
"""

from __future__ import annotations

import random
import re
from typing import Any

import hyperscan
import pytest

from prime_nb.redact import _prefilter
from prime_nb.redact._engine import CHUNK
from prime_nb.redact._prefilter import Shapes

_PATTERNS = (
    re.compile(r"key[=:][A-Za-z0-9]{8}"),
    re.compile(r"(?i)token\s+[a-f0-9]{6}"),
    re.compile(r"\bpass(?:word)?=\S{4}"),
    re.compile(r"[A-Z]{3}-[0-9]{3}"),
)
_PIECES = ["key=", "key:", "token ", "TOKEN\t", "pass=", "password=", "ABC-", "123", "abcd"]
_PIECES += ["EF12", "a1b2c3", " ", "-", "x", "\xe9"]


def _texts(count: int) -> list[str]:
    r = random.Random(7)
    return ["".join(r.choice(_PIECES) for _ in range(r.randrange(1, 12))) for _ in range(count)]


def _assert_answers_as_the_patterns(db: Shapes, texts: list[str]) -> int:
    """Every pattern that matches a text is in its scan's answer; the matches seen."""
    seen = 0
    for text in texts:
        found = db.matching(text)
        assert found is not None
        for i, pattern in enumerate(_PATTERNS):
            if pattern.search(text) is not None:
                assert i in found, (pattern.pattern, text)
                seen += 1
    return seen


@pytest.fixture
def compiles(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The sizes of the shapes' databases compiled while the test runs."""
    sizes: list[int] = []
    original = _prefilter._database

    def counted(items: list[tuple[int, bytes]]) -> Any:
        sizes.append(len(items))
        return original(items)

    monkeypatch.setattr(_prefilter, "_database", counted)
    return sizes


def test_the_database_waits_for_a_text_the_scan_answers(compiles: list[int]) -> None:
    db = Shapes(_PATTERNS)
    assert db.answered == frozenset(range(len(_PATTERNS)))
    assert compiles == []  # built, not compiled
    assert db.matching("k" * (CHUNK + 1)) is None  # too long to answer: still not compiled
    assert db.matching("key=\u2026") is None  # wider than Latin-1: likewise
    assert compiles == []
    assert db.matching("key=abcdEFGH") == {0}
    assert compiles == [len(_PATTERNS)]
    assert _assert_answers_as_the_patterns(db, _texts(400)) >= 20
    assert compiles == [len(_PATTERNS)]  # once


def test_a_form_refused_among_the_others_matches_every_text(
    compiles: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hyperscan refuses the whole set; each form is then tried alone and the one it
    refuses again is left out of the database, yet named in every answer."""
    refused = _prefilter.presence_form(_PATTERNS[3])
    original = _prefilter._database

    def refusing(items: list[tuple[int, bytes]]) -> Any:
        if any(expr == refused for _, expr in items):
            raise hyperscan.error("refused")
        return original(items)

    monkeypatch.setattr(_prefilter, "_database", refusing)
    monkeypatch.setattr(_prefilter, "_compiles", lambda expr: expr != refused)
    db = Shapes(_PATTERNS)
    assert db.answered == frozenset(range(len(_PATTERNS)))
    assert db.matching("nothing here") == {3}
    assert db.matching("key=abcdEFGH") == {0, 3}
    assert _assert_answers_as_the_patterns(db, _texts(200)) >= 10
