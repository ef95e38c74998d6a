"""A long text's one scan for every pattern (``_long_scan``) answers as each pattern's own.

Texts hold a secret of every corpus kind in noise, and are cut in tiny pieces (``CHUNK``
small, ``SHORT`` and ``SHAPE_MIN`` zero) so that literals and shapes fall across pieces.
Each pattern's answer is compared with its own scan's (literal hits, shape ends) and
``finditer`` with ``pattern.finditer``, through the rules' presence and through a
finder's call that is given none.
"""

from __future__ import annotations

import random
import re

import pytest

from prime_nb.redact import _engine, _literals, _long_scan, _shape_ends
from prime_nb.redact._rules import default_rules
from prime_nb.redact._suspects import _BESIDE_WORD
from tests.redact.secret_corpus import KINDS

#: every regex ``finditer`` tries on a long text: the rules' patterns and shapes, the
#: finders' own and the suspects'
PATTERNS = tuple(
    dict.fromkeys(
        p
        for r in default_rules()
        for p in (r.pattern, *r.needed_shapes(), *_long_scan.ALSO, _BESIDE_WORD)
        if p is not None and _literals.plan_of(p) is not None
    )
)


@pytest.fixture(scope="module")
def texts() -> list[str]:
    """Secrets of every kind among base64-like noise and the characters patterns' edges
    read; the last text is wider than Latin-1 (the scan does not answer for it)."""
    r = random.Random(5)
    noise = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    edges = ["\n", " ", '"', "'", "=", ": ", "-", "_", ".", "/", "é", " + "]
    out = []
    for seed in (0, 2):
        parts = []
        for make in KINDS:
            snippet = make(random.Random(seed)).snippet
            if seed == 0 and max(snippet) > "\xff":
                continue
            parts += [snippet, r.choice(edges), "".join(r.choices(noise, k=r.randrange(40)))]
        r.shuffle(parts)
        out.append("".join(parts))
    return out


def _cut_small(monkeypatch: pytest.MonkeyPatch, chunk: int, shapes: bool) -> None:
    for module in (_engine, _shape_ends, _long_scan):
        monkeypatch.setattr(module, "CHUNK", chunk)
    monkeypatch.setattr(_literals, "SHORT", 0)
    monkeypatch.setattr(_literals, "SHAPE_MIN", 0)
    # a hit in the sample: the shape's ends (``shapes``), or never: the literals' hits
    monkeypatch.setattr(_literals, "SHAPE_WORTH", 1 << 40 if shapes else 1)
    monkeypatch.setattr(_literals, "_SAMPLED", 0 if shapes else 1 << 40)


def _spans(matches: object) -> list[tuple[tuple[int, int], tuple[str | None, ...]]]:
    return [(m.span(), m.groups()) for m in matches]  # type: ignore[attr-defined]


@pytest.mark.parametrize("shapes", [False, True])
@pytest.mark.parametrize("chunk", [61])
def test_one_scan_answers_as_each_pattern_alone(
    monkeypatch: pytest.MonkeyPatch, texts: list[str], chunk: int, shapes: bool
) -> None:
    _cut_small(monkeypatch, chunk, shapes)
    answered = found = 0
    for text in texts:
        presence = _literals.Presence(text, None)
        presence.expect(list(PATTERNS))
        wide = max(text) > "\xff"
        for pattern in PATTERNS:
            answer = presence.answer(pattern, text)
            assert (answer is None) or not wide
            if answer is not None:
                answered += 1
                _same_as_its_own_scan(pattern, text, answer)
            want = _spans(pattern.finditer(text))
            assert _spans(_literals.finditer(pattern, text, presence)) == want, pattern
            assert _spans(_literals.finditer(pattern, text)) == want, pattern  # a finder's
            found += len(want)
        del presence
    assert answered >= len(PATTERNS) * 2 // 3 * (len(texts) - 1)
    assert found > 300


def _same_as_its_own_scan(pattern: re.Pattern[str], text: str, answer: _long_scan.Answer) -> None:
    question = answer.question
    if question.kind == _long_scan.HITS:
        engine = _engine.literals(question.items)
        found = None if answer.found is None else list(answer.found)
        handled, hits = engine.positions(text, question.cap)
        assert (handled, None if hits is None else list(hits)) == (True, found), pattern
    else:
        # the same ends, less those where a piece's end stood for the character after
        # it: the longer piece reads that character (Python's regex decides in both)
        ends = _shape_ends.shape_ends(pattern)
        if answer.found is None:  # past its cap: its own scan's ends are as many or more
            assert ends.windows(text, question.cap) is None
            return
        own = ends.windows(text, 10**9) or []
        assert set(answer.found) <= {end for first, end in own for end in range(first, end + 1)}, (
            pattern
        )
        assert list(answer.found) == sorted(answer.found)


def test_hits_past_every_cap_stop_the_scan(monkeypatch: pytest.MonkeyPatch) -> None:
    """A scan that keeps reporting hits no question wants answers nothing, and each
    pattern then finds its matches alone."""
    _cut_small(monkeypatch, 64, False)
    monkeypatch.setattr(_long_scan, "SPARE", 5)
    pattern = re.compile(r"ghp_[A-Za-z0-9]{36}")
    text = "ghp_" * 50 + "ghp_" + "a" * 36
    questions = (_long_scan.Question(_long_scan.HITS, (("ghp_", _engine.EXACT),), 3),)
    assert _long_scan.scan_of(questions).answers(text) is None
    monkeypatch.setattr(_long_scan, "SPARE", 1000)
    (answer,) = _long_scan.scan_of(questions).answers(text) or []
    assert answer.found is None  # past its cap: no answer, and its own scan runs
    presence = _literals.Presence(text, None)
    presence.expect([pattern])
    assert _spans(_literals.finditer(pattern, text, presence)) == _spans(pattern.finditer(text))


def test_a_presence_gone_answers_no_later_text() -> None:
    """The answers of a text are held by its presence only: once it is gone, a finder's
    call on another text of the same length scans that text."""
    pattern = re.compile(r"ghp_[A-Za-z0-9]{36}")
    first, second = "x" * (1 << 20), "ghp_" + "b" * 36 + "x" * ((1 << 20) - 40)
    presence = _literals.Presence(first, None)
    original = _literals.SHAPE_MIN
    try:
        _literals.SHAPE_MIN = 0
        presence.expect([pattern])
        assert presence.answer(pattern, first) is not None
        assert presence.answer(pattern, second) is None
        del presence
        assert [m.span() for m in _literals.finditer(pattern, second)] == [(0, 40)]
    finally:
        _literals.SHAPE_MIN = original
