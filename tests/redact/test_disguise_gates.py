"""The disguise views' gates in C answer as the searches they stand before.

A view or a blob decoder is tried only where a test in C (a substring search, a regex
that skips to a literal, a text's bytes mapped by class) shows it can find something;
each test here compares the gated search with the plain one it stands for, on every
disguise the secret corpora write and on texts built of the characters the search keys
on.
"""

from __future__ import annotations

import base64
import json
import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from redteam3_secrets import ENCODINGS_RED3
from redteam5_places import ENCODINGS_RED5
from redteam_secrets import ENCODINGS
from secret_corpus import KINDS

from prime_nb.redact import _byte_forms, _disguise, _file, redact

#: the CSV field pattern tried at every character, as it was before its quote led it
_CSV_FIELD_AT_EVERY = re.compile(r'(?:^|(?<=[,\t\n]))"(?:[^"]|"")*"(?=[,\t\r\n]|$)')


@pytest.fixture(scope="module")
def disguised() -> list[str]:
    """Each kind of secret the corpora plant, written in every encoding they know."""
    r = random.Random(43)
    encodings = [*ENCODINGS.values(), *ENCODINGS_RED3.values(), *ENCODINGS_RED5.values()]
    texts = []
    for make in KINDS:
        snippet = make(r).snippet
        texts.append(snippet)
        texts.extend(encode(snippet) for encode in encodings)
    return texts


def _built(r: random.Random, pieces: list[str], most: int = 40) -> str:
    return "".join(r.choice(pieces) for _ in range(r.randrange(1, most)))


CSV_PIECES = ['"', '""', ",", "\t", "\n", "\r", "a", "b c", ':"', "é", "€"]
QP_NOISE = [
    "\u2010",
    "\u017f",
    "\u212a",
    "\u0130",
    "\u0131",
    " ",
    "-",
    "p",
    "P",
    "=3D",
    "=\n",
    "é",
    "-p",
    "-P",
]


def _qp_name(r: random.Random) -> str:
    """``quoted-printable`` in any case, its dash and its ``p`` sometimes another."""
    cased = "".join(c.upper() if r.random() < 0.5 else c for c in "quoted-printable")
    dash = r.choice(["-", "-", "\u2010", "", " -"])
    p = r.choice([cased[7], cased[7], "\u0440", "\uff50", "b"])
    return _built(r, QP_NOISE, 4) + cased[:6] + dash + p + cased[8:] + _built(r, QP_NOISE, 4)


URLSAFE_PIECES = ["A" * 19, "B" * 20, "x" * 30, "=", "==", "===", " ", "é", "€", "-_+/"]
URLSAFE_PIECES += ["\n", "9" * 25, '"', "%", ".", "a"]


def test_csv_field_led_by_its_quote(disguised: list[str]) -> None:
    r = random.Random(1)
    texts = [*disguised, *(_built(r, CSV_PIECES) for _ in range(3000))]
    texts += ['"a""b"', 'x,"a""b"', '"a""b",', '\n"a""b"\r\n', 'a"a""b"']
    for text in texts:
        want = [m.span() for m in _CSV_FIELD_AT_EVERY.finditer(text)]
        assert [m.span() for m in _disguise._CSV_FIELD.finditer(text)] == want, repr(text)


def test_quoted_printable_named_where_its_dash_p_stands(disguised: list[str]) -> None:
    r = random.Random(2)
    texts = [*disguised, *(_qp_name(r) for _ in range(3000))]
    texts += [_built(r, QP_NOISE, 12) for _ in range(1000)]
    texts += ["Content-Transfer-Encoding: QUOTED-PRINTABLE", "quoted-Printable", "quoted-\u017fx"]
    named = 0
    for text in texts:
        want = _disguise._QP_NAMED.search(text) is not None
        named += want
        assert _disguise._tells(text)[1]() == want, repr(text)
    assert named > 300  # the texts name it, in many cases


def test_urlsafe_runs_of_a_short_text(disguised: list[str]) -> None:
    r = random.Random(3)
    texts = [*disguised, *(_built(r, URLSAFE_PIECES, 20) for _ in range(1500))]
    found = 0
    for text in texts:
        want = [m.span() for m in _disguise._URLSAFE_RUN.finditer(text)]
        found += len(want)
        assert list(_disguise.urlsafe_runs(text)) == want, repr(text)
    assert found > 500


VIEW_PIECES = ["plain words ", "\x1b[31m", "\u200b", "&#x41;", "&amp;", "&", "\\u0042"]
VIEW_PIECES += ["\\x43", "\\xe2\\x82\\xac", "\\", "u", "x", "=3D", "=41", "=\n", "-", "p", "P"]
VIEW_PIECES += ["quoted-printable ", "QUOTED-PRINTABLE", "](<https://h/x>)", "](", '"a,""b"""']
VIEW_PIECES += ['""', "%2541", "%25", "\\\n", "\\\r\n", '"ab" "cd"', "é", "€", "tok_3f9a"]


def _views(text: str) -> list[tuple[str, list[int], list[int], list[int]]]:
    return [(v, o._at, o._from, o._to) for v, o in _disguise.views(text)]


def _ungated_tells(text: str) -> tuple[Callable[[str], bool], Callable[[], bool]]:
    """``_tells`` as the views read it before their gates: each tell by a substring
    search, the escapes' marks (searched in the first 4096 characters) as held, the
    name of quoted-printable by its search alone."""
    marks = ("&", "\\u", "\\x")
    return (lambda tell: tell in marks or tell in text), (
        lambda: _disguise._QP_NAMED.search(text) is not None
    )


def test_views_gated_are_those_of_the_plain_searches(
    disguised: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every text's views, its tells found by Hyperscan (whatever its length) or by
    ``str`` searches, are those of the searches without gates; escapes past the first
    4096 characters included."""
    r = random.Random(5)
    texts = [*disguised, *(_built(r, VIEW_PIECES, 60) for _ in range(150))]
    texts += [" " * 4096 + "&amp;&lt; \\x41", "&" + " " * 4096 + "&amp;&lt;"]
    texts += ["a" * 5000 + "\\u0041\\x42", "\\u0041" + "b" * 4100]
    alone = ["&amp;", "&#65;", "\\u0041", "\\x41", "=3D", "%2541", "](x)", '"a""b"', "\\\n"]
    texts += [_built(r, ["ab ", ",", piece], 8) for piece in alone for _ in range(20)]
    with monkeypatch.context() as plain:
        plain.setattr(_disguise, "_tells", _ungated_tells)
        want = [_views(text) for text in texts]
    told = sum(_disguise._VIEW_TELLS.present(text) is not None for text in texts)
    assert told > len(texts) // 2  # most are told by the scan
    for least in (0, 1 << 40):  # every text told by the scan, and none
        monkeypatch.setattr(_disguise, "_TOLD", least)
        assert [_views(text) for text in texts] == want


def _b64url(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


BLOB_PIECES = [" ", "\n", "=", "==", "é", "x" * 30, _b64url("password=hunter2 here"), "A" * 19]
BLOB_PIECES += [base64.b64encode(base64.b64encode(b"token abcdefgh ij").rstrip(b"=")).decode()]
BLOB_PIECES += [_b64url("\u00e9t\u00e9 " * 9), _b64url("x" * 400), "test_merge_keeps_left_order"]


def test_blobs_of_remembered_runs(disguised: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A short run's decoded texts, remembered from an earlier text, are the run's own."""
    r = random.Random(6)
    texts = [*disguised, *(_built(r, BLOB_PIECES, 12) for _ in range(400))]
    monkeypatch.setattr(_disguise, "_REMEMBERED_RUN", 0)
    want = [list(_disguise.blobs(text)) for text in texts]
    assert sum(map(len, want)) > 400
    monkeypatch.undo()
    _disguise._remembered_urlsafe.cache_clear()
    for _ in range(2):  # read once, then remembered
        assert [list(_disguise.blobs(text)) for text in texts] == want


FORM_PIECES = [" 00 ", "  |", "0000000", "\\1", "\\160", "[", "literal ", "\u2502", "\u2503", "x"]
FORM_PIECES += ["\n", " ", "41 00 42 00 43 00 44 00 ", "[112,97,115,115]", "\u20ac", "\u00e9"]


def _plain_byte_forms(text: str) -> list[tuple[int, int, str]]:
    """``byte_forms`` without its gate: each form's substring searched in the text."""
    if len(text) > _byte_forms._MAX_TEXT or len(text) < 40:
        return []
    out = []
    for tell, form in _byte_forms._FORMS:
        if tell in text:
            for start, end, raw in form(text):
                decoded = _byte_forms._text(raw[: _byte_forms._MAX_DECODED])
                if decoded is not None:
                    out.append((start, end, decoded))
    if "\u2502" in text or "\u2503" in text:
        out.extend(_byte_forms._box_tables(text))
    return out


def test_byte_forms_told_by_one_scan(disguised: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Every text's byte forms, their substrings found by Hyperscan or searched, are
    those of the plain substring searches (tables drawn in box characters, which the
    scan cannot read, included)."""
    r = random.Random(7)
    texts = [*disguised, *(_built(r, FORM_PIECES, 60) for _ in range(200))]
    texts += [_byte_forms.__doc__ or ""]
    want = [_plain_byte_forms(text) for text in texts]
    assert sum(map(len, want)) > 100
    for least in (0, 1 << 40):  # every text told by the scan, and none
        monkeypatch.setattr(_byte_forms, "_TOLD", least)
        assert [list(_byte_forms.byte_forms(text)) for text in texts] == want


def test_decoded_runs_are_forgotten_once_a_redaction_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A short base64url run's decoded text (maybe a secret) is remembered within one
    redaction only, not by the process after it: failing or not."""
    token = base64.urlsafe_b64encode(b"password=Zq8vN2xL5pT7wR3k").decode().rstrip("=")
    head = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-05T10:00:00Z"}
    message = {"role": "user", "content": f"the blob {token} in a text", "timestamp": 0}
    entry = {"type": "message", "id": "u1", "parentId": None, "message": message}
    source = tmp_path / "s.jsonl"
    source.write_text(json.dumps(head) + "\n" + json.dumps(entry) + "\n", encoding="utf-8")
    redact(source, tmp_path / "out.jsonl")
    assert _disguise._remembered_urlsafe.cache_info().currsize == 0

    def failing(*_: object) -> None:
        _disguise._remembered_urlsafe(token)
        raise OSError("the disk is full")

    monkeypatch.setattr(_file, "_redact", failing)
    with pytest.raises(OSError, match="disk is full"):
        redact(source, tmp_path / "again.jsonl")
    assert _disguise._remembered_urlsafe.cache_info().currsize == 0
