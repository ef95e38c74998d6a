"""A long line's scans answer as the plain regexes they stand for.

The long-line path finds what a regex would find with cheaper passes (NumPy over a
line's quotes, a Hyperscan pre-check); these tests compare each with the regex it
replaces, on texts built to cut every case (escaped quotes, runs of backslashes,
blanks before a colon, pieces cut anywhere), with the pieces made small so that short
texts cross many of them.
"""

from __future__ import annotations

import json
import random
import re

import pytest

from prime_nb.redact import _disguise, _encodings, _key_count
from prime_nb.redact._stream import _KEYED_STRING

WORDS = ['"', "\\", '\\"', "\\\\", ":", '":', ' ": ', "a", "é", "{", "}", "k", "\n"]


def _regex_count(body: bytes) -> int:
    return [m.group(1) for m in _KEYED_STRING.finditer(body)].count(b":")


def _value(r: random.Random, depth: int) -> object:
    pick = r.random()
    if depth > 3 or pick < 0.4:
        return "".join(r.choice(WORDS) for _ in range(r.randrange(12)))
    if pick < 0.7:
        return [_value(r, depth + 1) for _ in range(r.randrange(4))]
    return {
        "".join(r.choice(WORDS) for _ in range(r.randrange(5))): _value(r, depth + 1)
        for _ in range(r.randrange(5))
    }


@pytest.mark.parametrize("chunk", [1, 3, 64])
def test_quoted_key_count_is_the_regex_count(monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
    monkeypatch.setattr(_key_count, "CHUNK", chunk)
    r = random.Random(chunk)
    for n in range(60):
        value = _value(r, 0)
        indent = None if n % 3 else 1
        separators = (", ", " : ") if n % 5 == 0 else None
        body = json.dumps(value, indent=indent, separators=separators).encode()
        assert _key_count.quoted_key_count(body) == _regex_count(body), body


def test_a_run_of_backslashes_across_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    """A quote after a run of backslashes longer than a piece: escaped when odd."""
    monkeypatch.setattr(_key_count, "CHUNK", 4)
    for run in range(0, 21):
        body = json.dumps({"a" + "\\" * run + '"': 1, "b": ["\\" * run + '":']}).encode()
        assert _key_count.quoted_key_count(body) == _regex_count(body) == 2


@pytest.mark.parametrize(
    "head",
    ["", "ABCDEFGHIJKLMNOP", "ABCDEFGHIJKLMNOPQ==", "ABCDEFGHIJKLMNOP=======", "ABCDEFGHIJKLMNOPa"],
)
def test_base32_runs_of_a_long_text(monkeypatch: pytest.MonkeyPatch, head: str) -> None:
    """A long text's base32 runs, the Hyperscan pre-check first: those of the regex,
    a run at the text's start (it follows no character) included."""
    monkeypatch.setattr(_disguise, "_SCANNED", 64)
    r = random.Random(len(head))
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    body = "".join(r.choice(alphabet) for _ in range(400))
    for tail in ("", " then MFRGGZDFMZTWQ2LKNNWG23TPOBYXE43UOV3HO6DZPI====== and more"):
        text = head + body + tail
        want = [m.span() for m in _disguise._BASE32_RUN.finditer(text)]
        assert list(_disguise.base32_runs(text)) == want


def test_long_runs_of_backslashes() -> None:
    """Runs longer than the steps measured at once, odd and even, at the text's start."""
    for run in (7, 8, 9, 16, 17, 63, 64, 65, 1000, 1001):
        body = json.dumps(["\\" * run + '":x', {"\\" * run: "\\" * run}]).encode()
        assert _key_count.quoted_key_count(body) == _regex_count(body) == 1
        assert _key_count._run_before(b"\\" * run + b'"', run) == run
        assert _key_count._run_before(b'a"' + b"\\" * run + b'"', run + 2) == run


URLSAFE_PIECES = ["A" * 19, "B" * 20, "x" * 30, "=", "==", "===", " ", "é", "-_+/", "\n", "9" * 25]


@pytest.mark.parametrize("seed", range(6))
def test_urlsafe_runs_of_a_long_text(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """A long text's base64url runs, found in its bytes by class a piece at a time:
    those of the regex, runs cut by pieces, padding and a wider piece included."""
    monkeypatch.setattr(_disguise, "_SCANNED", 16)
    monkeypatch.setattr(_encodings, "PIECE", 7 + seed)  # the pieces of `class_runs`
    r = random.Random(seed)
    pieces = URLSAFE_PIECES + (["€"] if seed % 2 else [])
    for _ in range(40):
        text = "".join(r.choice(pieces) for _ in range(r.randrange(1, 30)))
        want = [m.span() for m in _disguise._URLSAFE_RUN.finditer(text)]
        assert list(_disguise.urlsafe_runs(text)) == want, text


BASE64_PIECES = ["A" * 19, "QUJD" * 5, "\nQUJDQUJD", "\r\nQUJD=", "x", "=", "==", "==="]
BASE64_PIECES += ["\n", "\r\n", "\r", " ", "_", "-", "é"]


@pytest.mark.parametrize("seed", range(6))
def test_base64_runs_of_a_long_text(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """A long text's base64 runs, found in its bytes by class a piece at a time, with the
    pattern's end worked out after: those of the regex, wrapped runs, padding, runs cut
    by pieces and a wider piece included."""
    monkeypatch.setattr(_encodings, "LONG", 16)
    monkeypatch.setattr(_encodings, "PIECE", 5 + seed)
    r = random.Random(seed)
    pieces = BASE64_PIECES + (["€"] if seed % 2 else [])
    for _ in range(60):
        text = "".join(r.choice(pieces) for _ in range(r.randrange(1, 30)))
        want = [m.span() for m in _encodings.BASE64_RUN.finditer(text)]
        assert list(_encodings.base64_runs(text)) == want, repr(text)


CLASS_PIECES = ["c" * 19, "c" * 20, "c" * 41, "c", ".", "..", "cc.c", "é", "€"]


@pytest.mark.parametrize("least", [1, 2, 20])
@pytest.mark.parametrize("piece", [1, 3, 7, 20, 64])
def test_class_runs_of_at_least(monkeypatch: pytest.MonkeyPatch, least: int, piece: int) -> None:
    """Runs of one class found by ``bytes.find`` of ``least`` of them, a piece at a time:
    those a regex finds, runs cut by pieces, at the ends, and a wider piece included."""
    monkeypatch.setattr(_encodings, "PIECE", piece)
    table = bytes(0x63 if chr(b) == "c" else 0x2E for b in range(256))
    r = random.Random(least * 100 + piece)
    for _ in range(80):
        text = "".join(r.choice(CLASS_PIECES) for _ in range(r.randrange(1, 12)))
        wide = next((i for i, ch in enumerate(text) if ord(ch) > 255), len(text))
        cut = wide // piece * piece  # the first piece wider than Latin-1 starts here
        want = [m.span() for m in re.finditer(f"c{{{least},}}", text) if m.end() < cut]
        if wide < len(text):  # then the run being read at the cut, or the piece's start
            before = re.search(r"c+$", text[:cut])
            want.append((before.start() if before else cut, -1))
        else:
            want = [m.span() for m in re.finditer(f"c{{{least},}}", text)]
        assert list(_encodings.class_runs(text, table, least)) == want, (text, least, piece)
