"""A long text with emoji, narrowed (``_narrow.py``), gives every finder the answer the
text itself gives, and a session redacted so is the session redacted as before.

Texts hold one secret of every corpus kind (as it is, and encoded every way the corpus
encodes), look-alikes, JSON with secrets in a string, a diff, a wrapped key, among words
with emoji, symbols, Latin-1 letters, apostrophes, URLs and quotes. Each is narrowed a
few bytes at a time (pieces cut between characters) and its spans compared with the
text's. Then a session of them is redacted with every string over 16 bytes decoded
apart (so that each is narrowed), and with none narrowed: the same bytes and report.
Each guard of the narrowing, dropped, makes one of these comparisons fail
(``test_..._breakage``): the oracle can fail.
"""

from __future__ import annotations

import ast
import functools
import importlib
import json
import random
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from math_texts import MATH
from more_secrets import LOOKALIKES
from redteam3_secrets import ENCODINGS_RED3
from redteam_secrets import ENCODINGS, LOOKALIKES_MORE
from secret_corpus import KINDS

from prime_nb.redact import redact
from prime_nb.redact._embedded import StreamScrubber
from prime_nb.redact._file import _rules
from prime_nb.redact._find import Span
from prime_nb.redact._narrow import (
    STAND_INS,
    Narrowed,
    alike,
    letter_pair,
    narrowed_in_place,
)
from prime_nb.redact._stand_in_folds import StandInDecoded, folding

_narrow = importlib.import_module("prime_nb.redact._narrow")
_apart = importlib.import_module("prime_nb.redact._apart")
_lines = importlib.import_module("prime_nb.redact._lines")
_long_scrub = importlib.import_module("prime_nb.redact._long_scrub")
_stream = importlib.import_module("prime_nb.redact._stream")
_json_bytes = importlib.import_module("prime_nb.redact._json_bytes")

#: words around each secret: emoji (one with a skin tone, one with a selector), symbols
#: of the BMP, Latin-1 letters, apostrophes, quotes, URLs, digits, typographic marks
#: (curly quotes, dashes, a bullet, brackets), and those a finder names (an ellipsis)
WORDS = [
    "plain", "it's", "😀", "🎉🎉", "👍🏽", "❤️", "✅", "→", "café", "naïve", "don't",
    '"quoted"', "https://example.com/a?b=1&c=2", "42", "x=1", "a😀b", "ok;", "(see)", "it\u2019s",
    "\u201cquoted\u201d", "\u2018single\u2019", "a\u2014b", "\u2013", "\u2022 item", "wait\u2026",
    "\u300cja\u300d", "\u2019", "x\u2032",
    # letters of two UTF-8 bytes: narrowed to Latin-1 letters, both cases
    "\u03bb", "\u039b\u03bbx", "\u0436\u0416", "\u0151r\u0150", "\u0543\u0573", "\u015fe\u015e",
    # hidden marks: one kind in a text narrowed to the soft hyphen
    "a\u200bb", "\u200b", "👨\u200d👩", "\u200e",
    # letters with no case and tags beyond the BMP: narrowed one for one to the BMP's
    "\U00020000", "a\U00020003b", "\U00012000\U00020000", "\U000e0041\U000e0042", "x\U000e007f",
]  # fmt: skip
#: a secret with an ideograph in it (a span over its stand-in), and bare in a text read
#: whole (a mathematical digit in it)
ASTRAL_SPAN = "password=Zq8vN2\U00020000xL5pT7rWk3 and then \U00020000 more"
ASTRAL_BARE = "again Zq8vN2\U00020000xL5pT7rWk3, bare \U0001d7ce (math digit: read whole)"

SEPARATORS = [" ", "  ", "\t", " 😀 ", ", ", "\n", "😀", " ✅ ", " \u2014 ", "\u2019", "\u201d "]
#: texts that read a stand-in where a wide character stood, or that are not narrowed
SPECIAL = [
    "password=hun😀ter2xyz and then 😀 more",  # a span over a wide character
    'note 😀 {"user": "app 😀", "password": "Zq8vN2xL5pT7", "n": 3} end',
    "--- a/.env\n+++ b/.env\n@@ -1 +1 @@\n-A=1\n+DB_PASSWORD=hunter2xyz 😀\n",
    "key: ghp_Zq8vN2xL5pT7rWk3J9mB4c\nY6hD1fG0sA2eR8 😀 wrapped",
    "ghp_Zq8vN2xL5pT7rWk3J9mB4cY6hD1fG0sA2eR8😀 glued to an emoji",
    "\u0440\u0430ssword=hunter2xyz 😀 (Cyrillic letters: kept as they are)",
    "\u0440\u0430ssword=hunter2xyz \u03bb (look-alikes kept, no letter narrowed)",
    "password=hun\u03bbter2xyz and then \u03bb more",  # a span over a letter's stand-in
    "pass\u0416word=hunter2xyz \u0436 a word with a letter in it",
    "\u03c3\u03c2 \u03b8\u03d1 \u03a9 password=hunter2xyz (letters sharing a case: kept)",
    "\u03bb \u00e0\u00c0 \u00e1 password=hunter2xyz (a Latin-1 letter the text holds)",
    "pass\u200bword=hunter2xyz and \u200b then (a span over a hidden mark's stand-in)",
    "pass\u200bword=hunter2xyz \u00ad a soft hyphen in it: the mark kept",
    "two marks \u200b \u200c password=hunter2xyz (kept)",
    "👨\u200d👩\u200d👧 a family password=hunter2xyz \u2019s",
    "".join(chr(0x1D3B9 + ord(c)) for c in "password") + "=hunter2xyz 😀 (math: narrowed)",
    "¦ © ® ° all four stand-ins 😀 password=hunter2xyz",
    # letters and tags beyond the BMP: a secret next to, inside and across one
    "password=hunter2xyz\U00020000 next to an ideograph \U00020000",
    ASTRAL_SPAN,
    ASTRAL_BARE,
    "ghp_Zq8vN2xL5pT7rWk3J9mB4cY6hD1fG0sA2eR8\U00020000 glued to an ideograph",
    "ghp_Zq8vN2xL5pT7rWk3J9m\U00020000B4cY6hD1fG0sA2eR8 across",
    "pass\U000e0041word=hunter2xyz \U000e0041 a tag in a word",
    "api_key: Zq8vN2xL5pT7\U000e0041rWk3J9mB4cY6 \U000e0042 a tag in a token",
    "\u00aa \u00ba \U00020000 \U00020003 password=hunter2xyz (ideographs stand in)",
    "\U00020000\U00020002\U00020003 three kinds token=Zq8vN2xL5pT7rWk3J9m then",
    "".join(map(chr, range(0xE0041, 0xE0051))) + " password=hunter2xyz (more tags than marks)",
    "\U0001d429\U0001d41a\U00020000 password=hunter2xyz (math and an ideograph: narrowed)",
    "\U00020001 \U00020000 password=hunter2xyz (an ideograph with a numeric value: kept)",
    "\x80 \x81 \U000e0041 pass\U000e0042word=hunter2xyz (controls of Latin-1 in it)",
    "symbols ¦ and © in it 😀 password=hunter2xyz",
    "😀😀🎉 dense 👍👍 password=hunter2xyz 🎉🎉🎉🎉",
    "password=\u201chun\u2019ter2xyz\u201d and then \u2014 more",  # a span over a quote
    "the token Zq8vN2xL5pT7rWk3J9mB4cY6hD1f\u2026 \u2014 cut 😀",  # an ellipsis (named)
    "a table \u2014 \u201cit\u2019s\u201d 😀\n"  # box bars (named) around a token cut in two
    "\u2502 ghp_Zq8vN2xL5pT7rWk3J9m \u2502 a \u2502\n\u2502 B4cY6hD1fG0sA2eR8 \u2502 b \u2502\n",
]


#: masked values (a mask is no secret): the narrowed text finds a value where the text
#: finds none, a span over a stand-in, so the text is read whole (``MASKS``)
MASKED = [
    "password=\u2022\u2022\u2022\u2022\u2022\u2022 (masked) then token=Zq8vN2xL5pT7rWk3 😀",
    'DB_PASSWORD="\u2022\u2022\u2022" api_key: x\u2022\u2022\u2022\u2022 '
    "secret=ab\u2022cd\u2022ef12 \u2014 ok",
]


def _texts() -> list[str]:
    r = random.Random(13)
    snippets = [make(random.Random(0)).snippet for make in KINDS]
    encodings = [*ENCODINGS.values(), *ENCODINGS_RED3.values()]
    encoded = [encode(snippet) for snippet in snippets[::19] for encode in encodings]
    looks = [*LOOKALIKES[::2], *LOOKALIKES_MORE[::2]]
    out = []
    for snippet in [*snippets, *encoded, *looks]:
        around = [r.choice(WORDS) + r.choice(SEPARATORS) for _ in range(r.randrange(2, 12))]
        at = r.randrange(len(around) + 1)
        out.append("".join(around[:at]) + snippet + r.choice(SEPARATORS) + "".join(around[at:]))
    bmp = ["".join(char for char in text if char <= "\uffff") for text in out[::4]]
    return out + bmp + SPECIAL + MATH  # without emoji, a ``str`` of two bytes a character


def _narrowed(text: str) -> Narrowed | None:
    data = bytearray(text.encode())
    with memoryview(data) as view:
        return narrowed_in_place(view, 0, len(data))


def _key(span: Span, stand_ins: str, narrow: str) -> tuple[Any, ...]:
    """What must be equal: where, by which rule; and what its value tells (confident,
    a wrapped key's joined value) where it holds no stand-in."""
    where = (span.start, span.end, span.rule.name)
    if any(char in narrow[span.start : span.end] for char in stand_ins):
        return where
    return (*where, span.confident, span.alias is None, span.alias or "")


def span_differences(finder: StreamScrubber, texts: list[str]) -> tuple[list[str], int]:
    """The texts whose narrowed text's spans are not the text's, and how many were
    narrowed."""
    wrong, narrowed = [], 0
    for text in texts:
        got = _narrowed(text)
        if got is None:
            continue
        narrowed += 1
        assert got.whole() == text, text
        want = sorted(_key(s, "", text) for s in finder.spans(text))
        try:  # its mathematical letters' stand-ins folded as they are, as the scrubber does
            with folding(got.folds, got.narrow):
                found = finder.spans(got.narrow)
        except StandInDecoded:
            continue  # a stand-in decoded: the scrubber reads the text whole
        have = sorted(_key(s, got.stand_ins, got.narrow) for s in found)
        if len(want) != len(have) or any(w[: len(h)] != h for w, h in zip(want, have, strict=True)):
            wrong.append(text)
    return wrong, narrowed


@pytest.fixture(scope="module")
def finder() -> StreamScrubber:
    return StreamScrubber(_rules(None, [], []))


@pytest.fixture
def tiny(monkeypatch: pytest.MonkeyPatch) -> None:
    """Texts narrowed a few bytes at a time, every string over 16 bytes decoded apart
    (and so narrowed), every line read into a buffer narrowed in place."""
    monkeypatch.setattr(_narrow, "PIECE_BYTES", 7)
    monkeypatch.setattr(_apart, "LONG_STRING", 16)
    monkeypatch.setattr(_lines, "KEEP_RAW", 16)
    monkeypatch.setattr(_lines, "READ_PIECE", 64)


@pytest.fixture
def streamed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every line over 16 bytes walked as a stream (``_stream.py``), each value over 16
    bytes alone, its strings over 16 bytes narrowed in a copy of their UTF-8 decoded a
    few bytes at a time."""
    monkeypatch.setattr(_lines, "STREAM_MIN", 16)
    monkeypatch.setattr(_lines, "VALUE_COST", 1 << 40)
    monkeypatch.setattr(_stream, "NARROWED", 16)
    monkeypatch.setattr(_stream, "SMALL", 16)
    monkeypatch.setattr(_apart, "PIECE", 5)


def test_the_stand_ins_are_alike_to_what_they_stand_for() -> None:
    assert all(alike(char) for char in STAND_INS)
    assert all(alike(char) for char in "😀🎉👍🏽❤\ufe0f✅→\u2019\u201c\u201d\u2014\u2013\u2022")
    assert not any(  # a letter, a look-alike, a hidden mark, a named one, a space, a joiner
        alike(char) for char in "\u0440a\U0001d429\u24b6\u200d\u2026\u2502é_1 \u2003\u203f"
    )


#: a character beyond ASCII named in a string, as itself or as an escape
_NAMED_IN = re.compile(r"[^\x00-\x7f]|\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8}|\\x[89a-fA-F][0-9a-fA-F]")


def test_no_character_a_finder_names_is_narrowed() -> None:
    """Every character beyond Latin-1 that the package's code names in a string (a
    pattern, a hint, a test of a character), not its docstrings, is one ``alike`` keeps:
    a finder that names a character would not find it in the narrowed text."""
    named: set[str] = set()
    for source in Path(_narrow.__file__).parent.glob("*.py"):
        tree = ast.parse(source.read_text(encoding="utf-8"))
        docs = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
            and node.body
            and isinstance(node.body[0], ast.Expr)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if id(node) in docs or source.name in ("_narrow.py", "_letter_pairs.py"):
                    continue
                for m in _NAMED_IN.finditer(node.value):
                    text = m.group()
                    char = text if len(text) == 1 else chr(int(text[2:], 16))
                    if char not in WRITTEN or source.name not in WRITTEN[char]:
                        named.add(char)

    assert "\u2502" in named and "\u2026" in named  # the scan finds what it looks for
    assert sorted(char for char in named if alike(char)) == sorted(MASKS)
    # a letter named (the disguise finder's look-alikes) is never one narrowed, nor one
    # of Latin-1 that stands for one (those named are left out of them)
    assert [char for char in named if letter_pair(char) is not None] == []
    assert [char for char in named if char in _latin_letters()] == []
    assert "\u0440" in named and "\u00f1" in named  # the scan finds what it looks for
    assert not named.intersection(*_narrow._astral_pools().values())  # nor one beyond the BMP's


def test_no_finder_reads_what_a_stand_in_beyond_the_bmp_differs_in() -> None:
    """A letter beyond the BMP with no case and its stand-in of Latin-1 (``ª``, ``º``)
    differ only in NFKC (``ª`` is ``a``), which the package applies only in ``_narrow``
    (and ``_letter_pairs``, its pairs of letters) and in the disguise finder's fold of
    ``_FOLDABLE``'s characters (neither of these); a tag and its control of Latin-1 only
    in the category, which only ``_narrow`` and ``_long_scrub`` (of a rule's pattern)
    read."""
    sources = {p.name: p.read_text("utf-8") for p in Path(_narrow.__file__).parent.glob("*.py")}
    folds = {name for name, text in sources.items() if "normalize(" in text}
    kinds = {name for name, text in sources.items() if "category(" in text}
    # (``_narrow_math`` reads a mathematical letter's category, to narrow it to its case)
    narrowing = {"_narrow.py", "_narrow_math.py", "_letter_pairs.py"}
    assert folds == {"_narrow.py", "_letter_pairs.py", "_disguise.py"}
    assert kinds == {*narrowing, "_long_scrub.py"}
    disguise = importlib.import_module("prime_nb.redact._disguise")
    assert disguise._FOLDABLE.search(_narrow.LATIN_LETTERS) is None
    assert all(_narrow.astral_kind(c) is None for c in "\U0001d400\U0001d41a\U0001d7ce")


def _latin_letters() -> str:
    return "".join(char for pair in _narrow._latin_pairs() for char in pair)


#: characters a finder names that are narrowed all the same: a mask's bullet, which makes
#: a value no secret (``_values.stand_in``). The stand-in is no mask's, so the narrowed
#: text finds a masked value the text does not: a span over a stand-in, read whole
#: (``MASKED``)
MASKS = "\u2022"
#: characters the package writes into values before any finder reads them, and the
#: modules that may name them: U+FFFD, what a lone surrogate of a line is read as
WRITTEN = {"\ufffd": ("_lines.py", "_file.py")}


@pytest.mark.usefixtures("tiny")
def test_a_text_is_narrowed_where_that_holds_it_in_less() -> None:
    """A byte a character (two where a letter of the BMP stays) and 8 a wide one,
    against the ``str``'s 4 a character (2 where no character is beyond the BMP)."""
    assert _narrowed("😀 plain words " * 20) is not None
    assert _narrowed("😀😀 a" * 20) is None  # 2 in 4: its ``str`` is the smaller
    quoted = _narrowed("😀 it\u2019s plain " * 20)  # a curly apostrophe: a byte too
    assert quoted is not None and quoted.narrow == "¦ it¦s plain " * 20
    assert _narrowed("😀 it\u2019s\u2019 " * 20) is None  # 3 in 8: its ``str`` is the smaller
    cyrillic = _narrowed("😀 \u0434a plain words " * 20)  # a letter of the BMP: two bytes
    assert cyrillic is not None and cyrillic.narrow == "¦ \u0434a plain words " * 20
    assert _narrowed("😀 \u0434a " * 20) is None  # 1 in 5: two bytes and 8 against 4
    # no 4-byte character: a ``str`` of two bytes a character, narrowed where a wide
    # character is under 1 in 8 and no letter of the BMP stays
    assert _narrowed("it\u2019s plain words " * 20) is not None
    assert _narrowed("it\u2019s " * 20) is None
    assert _narrowed("it\u2019s plain \u0434a words " * 20) is None
    assert _narrowed("caf\u00e9 plain words " * 20) is None  # Latin-1: a byte already
    got = _narrowed("é😀ab" * 3)  # pieces of 7 bytes: a character never cut
    assert got is not None and got.whole() == "é😀ab" * 3 and got.narrow == "é¦ab" * 3
    # beyond the BMP, one for one: a letter with no case to one of Latin-1 the text lacks,
    # then to a CJK ideograph of the BMP; a tag to a mark of format of the BMP; a
    # mathematical letter (which the disguise finder folds) not, nor more tags than marks
    ideograph = _narrowed("\U00020000 plain words " * 20)
    assert ideograph is not None and ideograph.narrow == "\u00aa plain words " * 20
    both = _narrowed("\u00aa\u00ba \U00020000\U00020002 plain words and more " * 20)
    want = "\u00aa\u00ba \u4e01\u4e02 plain words and more " * 20
    assert both is not None and both.narrow == want
    tag = _narrowed("\U000e0041 plain words " * 20)
    assert tag is not None and tag.narrow == "\x80 plain words " * 20
    assert tag.whole() == "\U000e0041 plain words " * 20
    math = _narrowed("\U0001d400 plain words " * 20)  # to a letter of Latin-1 of its case
    assert math is not None and math.narrow == "\u00c0 plain words " * 20
    assert math.folds == {"\u00c0": "A"} and math.whole() == "\U0001d400 plain words " * 20
    assert _narrowed("\U0001d7ce plain words " * 20) is None  # a mathematical digit
    alphabet = "".join(map(chr, range(0x1D400, 0x1D434)))  # 52 kinds: pairs of the BMP too
    dense = _narrowed(alphabet + " plain words" * 100)
    assert dense is not None and dense.narrow[:52].count("\u0101") == 1  # ``ā``, bold ``c``
    assert dense.whole() == alphabet + " plain words" * 100
    tags = "".join(map(chr, range(0xE0041, 0xE0041 + len(_narrow._astral_pools()["Cf"]) + 1)))
    assert _narrowed(tags + " plain words" * 100) is None


@pytest.mark.usefixtures("tiny")
def test_a_narrowed_text_has_the_spans_of_the_text(finder: StreamScrubber) -> None:
    texts = _texts()
    wrong, narrowed = span_differences(finder, texts)
    assert wrong == []
    assert narrowed >= len(texts) * 2 // 3  # most are narrowed: the test can fail


HEAD = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-05T10:00:00Z"}
_RANDOM = "Zq8😀vN2xL5pT7rWk3J9mB4c"
#: a secret with an emoji in it, learned file-wide from a short value, and texts that hold
#: it bare and as a password with an emoji in it (a span over a stand-in)
WIDE = [
    {"type": "custom", "id": "w", "customType": "x", "data": {"password": _RANDOM}},
    f"later 😀 the same {_RANDOM} again, bare",
    "password=hun😀ter2xyz and then 😀 more",
    "the same 👍 password=hun😀ter2xyz 😀 \U0001d7ce (read whole: a mathematical digit)",
]
#: a secret with an ideograph beyond the BMP in it, learned file-wide, and a text that
#: holds it bare; one with the ideograph's stand-in (``ª``) in it, and a text holding
#: another value that the narrowed text would read as it
ASTRAL_SECRET = "Zq8\U00020000vN2xL5pT7"
ASTRAL_WIDE = [
    {"type": "custom", "id": "a", "customType": "x", "data": {"password": ASTRAL_SECRET}},
    f"later \U00020000 the same {ASTRAL_SECRET} again, bare",
    {"type": "custom", "id": "b", "customType": "x", "data": {"password": "Xk7\u00aavN2xL5pT7"}},
    "later \U00020002 not the same Xk7\U00020002vN2xL5pT7 \U000e0041",
]
#: a user's rule that names an emoji (the narrowed text lacks it), and a text it reads
EMOJI_RULE = re.compile(r"🔑 ?([A-Za-z0-9]{8,})")
KEYED = "the key 🔑 Zq8vN2xL5pT7 😀 it's here"
#: the user's own rules in place of the defaults (a few, compiled at once)
OWN: dict[str, Any] = {"rules": [EMOJI_RULE, re.compile(r"password=\S+")]}


def _entries(texts: list[Any]) -> Iterator[dict[str, Any]]:
    """An entry for each text (a dict is an entry already), the text under one key of
    six in turn: a message's content, a text block beside a short secret (its line
    changes, this text does not), a custom entry's description beside one, a tool
    call's command, an item of a list, a compaction's summary."""
    for i, text in enumerate(texts):
        if isinstance(text, dict):
            yield text
            continue
        base = {"id": f"m{i}", "parentId": f"m{i - 1}" if i else None, "timestamp": "2026"}
        content: Any = text
        if i % 6 == 1:
            content = [{"type": "text", "text": text}, {"type": "text", "text": "pw=x"}]
        elif i % 6 == 3:
            content = [{"type": "toolCall", "id": "t", "name": "x", "arguments": {"command": text}}]
        custom = {**base, "type": "custom", "customType": "x"}
        if i % 6 == 2:
            yield {**custom, "data": {"description": text, "n": "password=Zq8vN2xL5pT7"}}
        elif i % 6 == 4:
            yield {**custom, "data": {"items": [1, text]}}
        elif i % 6 == 5:
            yield {**base, "type": "compaction", "summary": text, "tokensBefore": 3}
        else:
            yield {**base, "type": "message", "message": {"role": "user", "content": content}}


#: a text under each key whose value the walk reads as it is (a format field, an id, a
#: member an object's plan reads, a pair's value, an image's data) or under a secret's
#: key: each is put in the tree whole
READ = "it\u2019s 😀 a long value \u2014 of plain words 😀 " * 2
#: a value no secret's key makes a secret (a URL), which its stand-in name would look like
URL = "https://example.com/😀/it\u2019s/a/page" * 3


def _read_as_they_are() -> list[Any]:
    secret = "password=Zq8vN2xL5pT7"  # a short secret: each line is written anew
    block = {"type": "text", "text": secret}

    def message(**fields: Any) -> dict[str, Any]:
        return {"type": "message", "id": f"r{len(fields)}", "parentId": None, **fields}

    return [
        message(id=READ, message={"role": "user", "content": [block]}),
        message(message={"role": READ, "content": [block]}),
        message(message={"role": "user", "content": [{"type": "image", "data": READ}, block]}),
        message(message={"role": "user", "content": [{"type": "toolCall", "name": READ}, block]}),
        {"type": "custom", "id": "c1", "data": {"name": "X-Api-Key", "value": URL, "n": secret}},
        {"type": "custom", "id": "c2", "data": {"LARAVEL_APP_KEY": URL, "n": secret}},
        {"type": "custom", "id": "c3", "data": {"kty": READ, "d": "abcdefgh12345678", "n": secret}},
    ]


def redacted_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, texts: list[Any], **options: Any
) -> tuple[tuple[bytes, Any, Any], tuple[bytes, Any, Any], int]:
    """A session of ``texts`` redacted narrowed (a text not narrowed held as a narrowed
    text all the same, ``_narrow.kept_whole``), and not (the file, the report, the
    suspects); how many were narrowed."""
    path = tmp_path / "s.jsonl"
    lines = [json.dumps(HEAD), *(json.dumps(e, ensure_ascii=False) for e in _entries(texts))]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    count = 0
    real = narrowed_in_place

    def counted(view: memoryview, start: int, end: int) -> Narrowed | None:
        nonlocal count
        got = real(view, start, end)
        count += got is not None
        return got

    out: list[tuple[bytes, Any, Any]] = []
    for narrowing in (counted, lambda *_: None):
        monkeypatch.setattr(_apart, "narrowed_in_place", narrowing)
        if narrowing is not counted:  # nor held as a narrowed text with nothing narrowed
            monkeypatch.setattr(_apart, "kept_whole", lambda text: text)
        dest = tmp_path / f"out{len(out)}.jsonl"
        done = redact(path, dest, hostnames=[], **options)
        report, suspects = (t.astype(str).values.tolist() for t in (done.report, done.suspects))
        out.append((dest.read_bytes(), report, suspects))
    return out[0], out[1], count


def _walked(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, walk: str
) -> list[int]:
    """Lines read as trees (``tiny``), or as streams; how many texts the stream walk
    narrowed, once the session is redacted."""
    request.getfixturevalue("tiny")
    copies: list[int] = [0]
    if walk == "stream":
        request.getfixturevalue("streamed")
        real = _apart.narrowed_copy

        def counted(view: memoryview, start: int, end: int) -> Narrowed | None:
            got = real(view, start, end)
            copies[0] += got is not None
            return got

        monkeypatch.setattr(_apart, "narrowed_copy", counted)
    return copies


@pytest.mark.parametrize("walk", ["tree", "stream"])
def test_a_session_redacted_narrowed_is_the_session_redacted_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest, walk: str
) -> None:
    """A secret kind or look-alike in four (encoded ones too), each kept, or
    replaced, or beside a short secret that changes its line; the lines read as trees,
    or as streams."""
    copies = _walked(request, monkeypatch, walk)
    texts = _texts()
    session = texts[::4] + SPECIAL + MASKED + MATH
    narrowed, before, count = redacted_both_ways(tmp_path, monkeypatch, session)
    assert count >= len(texts) // 4
    assert narrowed == before
    assert (copies[0] >= len(texts) // 4) == (walk == "stream")


#: a text with a replacement and a suspect of each pattern after the first (a quoted
#: token given by position, a known prefix): each pattern reads the new text again
SUSPECTED = (
    "password=hunter2xyz 😀 then access-production-0b7e4c1a-2f6d-4e8b-9a3c-5d1e7f2a4b6c 😀 "
    'and client.run("Qm9vdHN0cmFwVG9rZW5Yd3Z6UXA4") 😀 end'
)


#: a suspect read only in a decoded view: a token given by position to a call, URL-encoded
IN_VIEWS = (
    "see 😀 https://example.com/run?q=client.run%28%22Qm9vdHN0cmFwVG9rZW5Yd3Z6UXA4%22%29 😀 "
    "\u2019s end"
)


@pytest.mark.usefixtures("tiny")
@pytest.mark.parametrize(("text", "listed"), [(SUSPECTED, 3), (IN_VIEWS, 1)])
def test_a_narrowed_text_has_every_suspect(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, listed: int
) -> None:
    """A replacement and a suspect of each pattern after the first; a suspect only a
    decoded view shows."""
    narrowed, before, count = redacted_both_ways(tmp_path, monkeypatch, [text])
    assert count  # narrowed (in each pass)
    assert len(before[2]) == listed, before[2]
    assert narrowed == before


@pytest.mark.usefixtures("tiny")
def test_a_wide_value_reads_the_text_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file-wide value with an emoji, a password with one (a span over a stand-in)."""
    texts = [*WIDE, *ASTRAL_WIDE, *SPECIAL]
    narrowed, before, count = redacted_both_ways(tmp_path, monkeypatch, texts)
    assert count >= 10
    assert narrowed == before
    for value in (_RANDOM, "hun😀ter2xyz", ASTRAL_SECRET, "Zq8vN2\U00020000xL5pT7rWk3"):
        assert value.encode() not in before[0]
    assert "Xk7\U00020002vN2xL5pT7".encode() in before[0]  # no secret: kept


@pytest.mark.usefixtures("tiny")
def test_a_rule_naming_an_emoji_reads_the_text_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    narrowed, before, _ = redacted_both_ways(tmp_path, monkeypatch, [KEYED, *SPECIAL], **OWN)
    assert narrowed == before
    assert b"Zq8vN2xL5pT7" not in before[0]


# -- the oracle can fail: each guard dropped ------------------------------------------------


def _names_none(monkeypatch: pytest.MonkeyPatch) -> None:
    """``_narrow.NAMED`` emptied (and ``alike`` made anew, not to keep what it cached)."""
    monkeypatch.setattr(_narrow, "NAMED", frozenset())
    monkeypatch.setattr(_narrow, "alike", functools.lru_cache(_narrow.alike.__wrapped__))


def _lo(char: str) -> str | None:
    """Every character beyond the BMP read as a letter with no case (``astral_kind``)."""
    return "Lo" if char > "\uffff" else None


#: (how the guard is dropped, the session that then differs; None: the spans differ)
BREAKAGES: dict[str, tuple[Callable[[pytest.MonkeyPatch], None], list[Any] | None]] = {
    "a stand-in that is a letter": (lambda mp: mp.setattr(_narrow, "STAND_INS", "é"), None),
    "letters narrowed too": (lambda mp: mp.setattr(_narrow, "alike", lambda _c: True), None),
    "a span over a stand-in kept": (
        lambda mp: mp.setattr(_long_scrub, "_over_stand_in", lambda *_: False),
        WIDE[2:],
    ),
    "a wide file-wide value kept": (
        lambda mp: mp.setattr(_long_scrub.LongTextScrubber, "_wide_forms", lambda *_: False),
        WIDE[:2],
    ),
    "a wide file-wide value beyond the BMP kept": (
        lambda mp: mp.setattr(_long_scrub.LongTextScrubber, "_wide_forms", lambda *_: False),
        ASTRAL_WIDE,
    ),
    "a span over an ideograph's stand-in kept": (
        lambda mp: mp.setattr(_long_scrub, "_over_stand_in", lambda *_: False),
        [ASTRAL_SPAN, ASTRAL_BARE],
    ),
    "a mathematical letter narrowed as a letter with no fold": (
        lambda mp: mp.setattr(_narrow, "astral_kind", _lo),
        None,
    ),
    "a tag's stand-in the disguise finder takes off": (
        lambda mp: mp.setattr(_narrow, "_astral_pools", lambda: {"Cf": ["\u00ad"]}),
        None,
    ),
    "an ideograph's stand-in that is no letter": (
        lambda mp: mp.setattr(_narrow, "_astral_pools", lambda: {"Lo": list("\u00ac\u00b1\u00d7")}),
        None,
    ),
    "a rule naming an emoji kept": (
        lambda mp: mp.setattr(_long_scrub, "vouched", lambda *_: True),
        [KEYED],
    ),
    "a character a finder names narrowed": (_names_none, None),
    "a text the walk reads as it is narrowed": (
        lambda mp: mp.setattr(_json_bytes, "READ_AS_THEY_ARE", frozenset()),
        _read_as_they_are()[:4],
    ),
    "a text under a secret's key narrowed": (
        lambda mp: mp.setattr(_json_bytes, "secret_key_class", lambda _key: None),
        _read_as_they_are()[4:],
    ),
}


@pytest.mark.usefixtures("tiny")
@pytest.mark.parametrize("breakage", BREAKAGES)
def test_the_oracle_fails_on_each_breakage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, finder: StreamScrubber, breakage: str
) -> None:
    drop, texts = BREAKAGES[breakage]
    drop(monkeypatch)
    assert_oracle_differs(tmp_path, monkeypatch, finder, texts, OWN if texts == [KEYED] else {})


def assert_oracle_differs(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    finder: StreamScrubber,
    texts: list[str] | None,
    options: dict[str, Any],
) -> None:
    """With a guard dropped, the oracle sees a difference: in the spans of the corpus
    texts (``texts`` None), or in the file, report or suspects of ``texts`` redacted
    both ways (with ``redact``'s ``options``)."""
    if texts is None:
        wrong, _ = span_differences(finder, _texts()[::4] + SPECIAL)
        assert wrong, "no span differs"
        return
    narrowed, before, _ = redacted_both_ways(tmp_path, monkeypatch, texts, **options)
    assert narrowed != before, "the file, report and suspects are the same"


@pytest.mark.parametrize("walk", ["tree", "stream"])
def test_a_text_under_a_key_the_walk_reads_is_read_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest, walk: str
) -> None:
    _walked(request, monkeypatch, walk)
    narrowed, before, count = redacted_both_ways(tmp_path, monkeypatch, _read_as_they_are())
    assert count >= 7 or walk == "stream"  # a key read as it is: none narrowed
    assert narrowed == before
