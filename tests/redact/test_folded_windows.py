"""A long text's views of look-alike letters folded to ASCII and of hidden marks taken
off (``_disguise.py``), made a stretch at a time (``_stretches.py``), give every finder
the answer the whole views give.

Texts hold one secret of every corpus kind with some of its letters written as
mathematical or full-width letters, or with zero-width marks between them, among lines
of words, and the corpus's look-alikes. Every text is read with its views made a stretch
at a time, each reaching :data:`REACH` characters past its disguises (then on to a line's
end or a blank), and made whole: the same spans, and a session of them redacted to the
same file, report and suspects. Stretches cut short, or anywhere but at a blank, make
the comparison fail (``test_..._breakage``): the oracle can fail.
"""

from __future__ import annotations

import importlib
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from more_secrets import LOOKALIKES
from redteam_secrets import LOOKALIKES_MORE
from secret_corpus import KINDS

from prime_nb.redact import redact
from prime_nb.redact._embedded import StreamScrubber
from prime_nb.redact._file import _rules

_disguise = importlib.import_module("prime_nb.redact._disguise")
_stretches = importlib.import_module("prime_nb.redact._stretches")

HEAD = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-05T10:00:00Z"}
WORDS = ["plain", "it's", "words", "x=1", "ok;", "(see)", "42", "https://example.com/a?b=1"]
SEPARATORS = [" ", "  ", "\n", ", ", "\t"]


def _math(char: str) -> str:
    """``char`` as a mathematical bold letter or digit, or full-width (other ASCII)."""
    if "A" <= char <= "Z":
        return chr(0x1D400 + ord(char) - ord("A"))
    if "a" <= char <= "z":
        return chr(0x1D41A + ord(char) - ord("a"))
    if "0" <= char <= "9":
        return chr(0x1D7CE + ord(char) - ord("0"))
    return chr(0xFF01 + ord(char) - 0x21) if "!" <= char <= "~" else char


def _texts() -> list[str]:
    r = random.Random(17)
    out = []
    snippets = [make(random.Random(0)).snippet for make in KINDS]
    for snippet in [*snippets, *LOOKALIKES, *LOOKALIKES_MORE]:
        chars = list(snippet)
        hide = r.randrange(3) == 0  # zero-width marks, or look-alike letters
        for i in r.sample(range(len(chars)), min(len(chars), r.choice((1, 2, 4)))):
            chars[i] = chars[i] + "\u200b" if hide else _math(chars[i])
        around = [r.choice(WORDS) + r.choice(SEPARATORS) for _ in range(r.randrange(40, 80))]
        at = r.randrange(len(around) + 1)
        text = "".join(around[:at]) + "".join(chars) + r.choice(SEPARATORS)
        out.append(text + "".join(around[at:]))
    return out


#: how far a window reaches in these tests: past the longest match of the corpus (a
#: private key), and well short of a text's length
REACH = 400


@pytest.fixture(scope="module")
def whole() -> tuple[list[str], list[set[tuple[Any, ...]]]]:
    """The texts, and their spans with each folded view made whole."""
    texts = _texts()
    with pytest.MonkeyPatch.context() as monkeypatch:
        _whole(monkeypatch)
        return texts, _spans(texts)


def _windowed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every view made a stretch at a time, each reaching :data:`REACH` on, at most 4
    times that (then another begins)."""
    monkeypatch.setattr(_stretches, "WHOLE", 0)
    monkeypatch.setattr(_stretches, "REACH", REACH)
    monkeypatch.setattr(_stretches, "STRETCH", 4 * REACH)


def _whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_stretches, "WHOLE", 1 << 40)


def _spans(texts: list[str]) -> list[set[tuple[Any, ...]]]:
    """Each text's spans (a span found twice, in the text and a view, is one), by a
    finder of its own (a finder remembers what it read)."""
    finder = StreamScrubber(_rules(None, [], []))
    return [
        {(s.start, s.end, s.rule.name, s.confident, s.alias or "") for s in finder.spans(text)}
        for text in texts
    ]


def _redacted(tmp_path: Path, texts: list[str], name: str) -> tuple[bytes, Any, Any]:
    path = tmp_path / "s.jsonl"
    entries = [
        {"type": "message", "id": f"m{i}", "parentId": None, "timestamp": "2026",
         "message": {"role": "user", "content": text}}
        for i, text in enumerate(texts)
    ]  # fmt: skip
    lines = [json.dumps(HEAD), *(json.dumps(e, ensure_ascii=False) for e in entries)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    dest = tmp_path / f"{name}.jsonl"
    done = redact(path, dest, hostnames=[])
    report, suspects = (t.astype(str).values.tolist() for t in (done.report, done.suspects))
    return dest.read_bytes(), report, suspects


def test_a_folded_view_in_windows_has_the_whole_views_spans(
    monkeypatch: pytest.MonkeyPatch, whole: Any
) -> None:
    texts, want = whole
    assert sum(map(len, want)) >= len(texts)  # the disguised secrets are found
    _windowed(monkeypatch)
    have = _spans(texts)
    assert [t for t, w, h in zip(texts, want, have, strict=True) if w != h] == []


def test_a_session_read_in_windows_is_the_session_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = _texts()[::3]
    _whole(monkeypatch)
    want = _redacted(tmp_path, texts, "whole")
    _windowed(monkeypatch)
    assert _redacted(tmp_path, texts, "windows") == want
    assert len(want[1]) >= len(texts) // 2  # the disguised secrets are found


def test_a_long_text_is_read_in_stretches_its_spans_mapped_back() -> None:
    """A text over ``WHOLE`` with two letters far apart: a stretch around each, neither
    the whole text, each of its characters where it stood."""
    filler = "plain words of a long text " * 4000
    text = filler + "\U0001d429assword=hunter2xyz " + filler + "ok \uff41 " + filler
    got = [view for view in _disguise.views(text) if "\U0001d429" not in view[0]]
    assert len(got) == 2
    for view, origin in got:
        assert len(view) < 3 * _stretches.REACH
        read = text[origin.start(0) : origin.end(len(view) - 1)]
        assert view == read.replace("\U0001d429", "p").replace("\uff41", "a")
    assert "password=hunter2xyz" in got[0][0]


def test_a_dense_disguise_is_read_in_stretches_of_bounded_length() -> None:
    """Every character full-width: stretches of at most ``STRETCH`` and their reach, which
    together cover the text."""
    text = "\uff41\uff42\uff43 " * 100_000
    got = list(_disguise.views(text))
    assert len(got) > 1
    assert all(len(view) <= _stretches.STRETCH + 2 * _stretches.REACH for view, _ in got)
    assert "".join(view for view, _ in got).count("abc") >= 100_000


def test_the_folded_view_is_each_look_alike_folded() -> None:
    """``_folded`` (a translation) gives the view and origins of folding each match of
    ``_FOLDABLE`` by ``_fold``."""
    chars = "".join(
        chr(code) for low, high in ((0xFF01, 0xFF5E), (0x1D400, 0x1D7FF), (0x2460, 0x24FF))
        for code in range(low, high + 1)
    )  # fmt: skip
    text = "a " + " x".join(chars) + " z"
    view, origin = _disguise._folded(text)
    want, want_origin = _disguise._replaced(text, _disguise._FOLDABLE, _disguise._fold)
    assert view == want
    assert all(origin.start(i) == want_origin.start(i) for i in range(len(view)))


def _unshifted(text: str, start: int, end: int, make: Any) -> Any:
    """A stretch whose view's positions are not moved to the text's."""
    start, end = _stretches.line_start(text, start), _stretches.line_end(text, end)
    return make(text[start:end])


#: how a stretch is made wrong: cut short of the longest match, or its spans not mapped
#: back to where they are in the text
BREAKAGES: dict[str, Callable[[pytest.MonkeyPatch], Any]] = {
    "a stretch short of a match": lambda mp: mp.setattr(_stretches, "REACH", 40),
    "a stretch's spans not mapped back": lambda mp: mp.setattr(_stretches, "_stretch", _unshifted),
}


@pytest.mark.parametrize("breakage", BREAKAGES)
def test_the_oracle_fails_on_each_breakage(
    monkeypatch: pytest.MonkeyPatch, whole: Any, breakage: str
) -> None:
    texts, want = whole
    _windowed(monkeypatch)
    BREAKAGES[breakage](monkeypatch)
    assert _spans(texts) != want, breakage
