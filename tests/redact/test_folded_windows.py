"""A long text's folded view (look-alike letters folded to ASCII, ``_disguise.py``) read
a window at a time gives every finder the answer the whole view gives.

Texts hold one secret of every corpus kind with some of its letters written as
mathematical or full-width letters, among words, and the corpus's look-alikes. Every text
is read with its folded view made a window at a time, each window reaching a few
characters past its letters (then on to a blank), and made whole: the same spans, and a
session of them redacted to the same file, report and suspects. Windows cut anywhere
but at a blank make the comparison fail (``test_..._breakage``): the oracle can fail.
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
        for i in r.sample(range(len(chars)), min(len(chars), r.choice((1, 2, 4)))):
            chars[i] = _math(chars[i])
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
    """Every folded view made a window at a time, each reaching :data:`REACH` on."""
    monkeypatch.setattr(_disguise, "_FOLD_WHOLE", 0)
    monkeypatch.setattr(_disguise, "_FOLD_REACH", REACH)


def _whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_disguise, "_FOLD_WHOLE", 1 << 40)


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


def test_a_long_text_is_folded_in_windows_its_spans_mapped_back() -> None:
    """A text over ``_FOLD_WHOLE`` with two letters far apart: a window around each,
    neither the whole text, each of its characters where it stood."""
    filler = "plain words of a long text " * 4000
    text = filler + "\U0001d429assword=hunter2xyz " + filler + "ok \uff41 " + filler
    got = list(_disguise._folded_views(text))
    assert len(got) == 2
    for view, origin in got:
        assert len(view) < 3 * _disguise._FOLD_REACH
        start = origin.start(0)
        read = text[start : origin.end(len(view) - 1)]
        assert view == read.replace("\U0001d429", "p").replace("\uff41", "a")
    assert "password=hunter2xyz" in got[0][0]


#: how a window is made wrong: cut short of the longest match, or cut anywhere (not at a
#: line's end or a blank)
BREAKAGES: dict[str, Callable[[pytest.MonkeyPatch], Any]] = {
    "a window short of a match": lambda mp: mp.setattr(_disguise, "_FOLD_REACH", 40),
    "a window cut anywhere": lambda mp: (
        mp.setattr(_disguise, "_blank_before", lambda _text, at: max(at, 0)),
        mp.setattr(_disguise, "_blank_after", lambda text, at: min(at, len(text))),
    ),
}


@pytest.mark.parametrize("breakage", BREAKAGES)
def test_the_oracle_fails_on_each_breakage(
    monkeypatch: pytest.MonkeyPatch, whole: Any, breakage: str
) -> None:
    texts, want = whole
    _windowed(monkeypatch)
    BREAKAGES[breakage](monkeypatch)
    assert _spans(texts) != want, breakage
