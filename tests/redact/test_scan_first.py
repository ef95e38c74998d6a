"""What a text's scans leave out changes nothing: each pattern read only where its
Hyperscan scan (or a line break) says it can match finds what the pattern finds read
whole, on random texts of the pieces the patterns are made of and
on texts at their edges (a match at the start, the end, after a letter, a line of CRLF).

The paths compared: a shape's presence tested from where its leading word ends
(``_prefilter.presence_form``); the suspects' quoted and known shapes in a short text
through their scan's windows; the wrapped-token pass's breaks found with their line's
tail; ``name value`` lines searched from each break.
"""

from __future__ import annotations

import random
import re

import pytest

from prime_nb.redact import _find, _scrub, default_rules
from prime_nb.redact._encodings import WRAP
from prime_nb.redact._generic import PREFIXED_TOKEN, SPACED_PAIR, _spaced_pairs
from prime_nb.redact._prefilter import Shapes, necessary, presence_form
from prime_nb.redact._suspects import (
    _KNOWN,
    _KNOWN_WINDOWS,
    _QUOTED,
    _QUOTED_WINDOWS,
)

_HEX = "0123456789abcdef"
_PIECES = [
    # joints, pairs and quotes
    '"',
    "'",
    "`",
    " + ",
    "+\n",
    "\r\n",
    "\n",
    "\t",
    " ",
    "  ",
    ",",
    "(",
    ")",
    ":",
    "=",
    "\\",
    'key="',
    'name = "',
    '" value="',
    "value",
    "Key",
    "NAME",
    # the known shapes' words and bodies
    "accounts",
    'accounts: ["',
    "0x",
    _HEX * 4,
    "nsec1",
    "qpzry9x8gf2tvdw0s3jn54khce6mua7l" * 2,
    "M.C5",
    "_BAY.",
    "access-",
    "public-",
    "link-",
    "sandbox-",
    "production-",
    "01234567-89ab-cdef-0123-456789abcdef",
    "askpass",
    "echo ",
    "--form ",
    "key=API_TOKEN",
    "value=",
    "[REDACTED:github-token:1]",
    # tokens, names, lines
    "pscale_tkn_",
    "dp.st.",
    "Zq8vR2mXk4LpT7wN9yB3aQ5cE1",
    "hunter2hunter2",
    "a" * 19,
    "A" * 31,
    "export ",
    "requirepass ",
    "db_password ",
    "Pass_Word ",
    "x-",
    "--",
    "#",
    ";",
    "12345678",
    "é",
    "\u2028",
]


def _texts(seed: int, count: int) -> list[str]:
    r = random.Random(seed)
    out = []
    for _ in range(count):
        parts = [r.choice(_PIECES) for _ in range(r.randrange(1, 40))]
        out.append("".join(parts))
    return out


#: random texts, and texts that each pattern matches at an edge
TEXTS = [
    *_texts(11, 700),
    'accounts: ["0x' + _HEX * 4 + '"]',
    "x nsec1" + "q" * 58,
    "M.C5_BAY." + "Ab1" * 14,
    "(access-sandbox-01234567-89ab-cdef-0123-456789abcdef)",
    "askpass\necho hunter2hunter2",
    "--form key=API_TOKEN --form value=Zq8vR2mXk4",
    'call("Zq8vR2mXk4LpT7wN9yB3aQ5c", ',
    '{"Zq8vR2mXk4LpT7wN9yB3aQ5c": 1}',
    '<add key="DbPassword" value="hunter2hunter2"/>',
    'password = "abc" +\n  "def"',
    "abcdefghijklmnopqrstuvwxyz0123456789ABCD\r\n  EFGHIJKLMNOPQRSTUVWXYZ",
    "requirepass hunter2hunter2",
    "x\nexport  db_password 'hunter2 x'\r\nmasterauth Zq8vR2mXk4 --tls",
]


def _spans(matches: object) -> list[tuple[int, int]]:
    return [m.span() for m in matches]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("pattern", "windows"),
    [(_QUOTED, _QUOTED_WINDOWS), (_KNOWN, _KNOWN_WINDOWS)],
    ids=["quoted", "known"],
)
def test_a_short_texts_windows_find_what_the_pattern_finds(
    pattern: re.Pattern[str], windows: object
) -> None:
    found = 0
    for text in TEXTS:
        whole = _spans(pattern.finditer(text))
        assert _spans(windows.finditer(text)) == whole, text[:80]  # type: ignore[attr-defined]
        found += len(whole)
    assert found >= 5  # matched, not only ruled out


def test_name_value_lines_searched_from_each_break() -> None:
    found = 0
    for text in TEXTS:
        whole = [(m.group("key"), m.span("v")) for m in SPACED_PAIR.finditer(text)]
        assert [(m.group("key"), m.span("v")) for m in _spaced_pairs(text)] == whole, text
        found += len(whole)
    assert found >= 50


@pytest.fixture(scope="module")
def finder() -> _scrub.Scrubber:
    return _scrub.Scrubber(default_rules(hostnames=[]))


def test_wrapped_breaks_found_with_their_tail(
    finder: _scrub.Scrubber, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The wrapped-token pass finds the same tokens as when the scan gave it every break
    between token characters (and Python kept those after a line's tail)."""
    r = random.Random(12)
    token = "".join(r.choice("ABCDEFGHabcdefgh0123456789+/") for _ in range(120))
    wrapped = [
        "\n".join(token[i : i + w] for i in range(0, len(token), w)) for w in (7, 8, 9, 30, 64)
    ]
    crlf = [t.replace("\n", "\r\n  ") for t in wrapped]
    keys = [f"aws_secret_access_key = {t}" for t in wrapped]
    # a line whose tail is just the 8 characters a wrapped line's end needs
    tail = "written down on the line: ghp_Zq8v\nR2mXk4LpT7wN9yB3aQ5cE1Zq8vR2mX0a"
    texts = [*TEXTS[:200], *TEXTS[700:], *wrapped, *crlf, *keys, tail, tail.replace("\n", "\r\n")]
    fast = [finder._wrapped_spans(text) for text in texts]
    monkeypatch.setattr(_find, "_WRAP_TAILED", WRAP)
    assert fast == [finder._wrapped_spans(text) for text in texts]
    assert sum(map(len, fast)) >= 3


#: shapes whose presence forms are parts of them, and one read without regard to case
_SHAPES = (
    PREFIXED_TOKEN,
    re.compile(r"\d{8,10}:[0-9A-Za-z_-]{35}"),
    re.compile(r"[MNO][a-zA-Z\d_-]{23,25}\.[a-zA-Z\d_-]{6}\.[a-zA-Z\d_-]{27}"),
    re.compile(r"(?i)[a-z]{1,9}_secret[0-9]{4}"),
)
_SHAPE_TEXTS = [
    "pscale_tkn_" + "Zq8vR2mXk4LpT7wN9yB3aQ5cE1Zq8vR2mX",
    "12345678:" + "Ab_-1" * 7,
    "M" + "a" * 24 + "." + "b" * 6 + "." + "c" * 27,
    "DB_SECRET2024",
    "x_Secret9999",
]


def test_a_shapes_presence_form_is_a_part_of_it() -> None:
    """The generic token is tested from its separator on; a shape led by a literal keeps
    its whole form."""
    part = presence_form(PREFIXED_TOKEN)
    assert part is not None and part.startswith(b"[\\x2d-\\x2e\\x5f]")
    assert presence_form(re.compile(r"key[a-z]{0,9}:[A-Za-z]{20}")) == necessary(
        re.compile(r"key[a-z]{0,9}:[A-Za-z]{20}")
    )


def test_a_shapes_presence_form_never_misses_a_match() -> None:
    db = Shapes(_SHAPES)
    assert db.answered == frozenset(range(len(_SHAPES)))
    r = random.Random(13)
    alphabet = "aA0_-.:xX9Sse" + "ECRT"
    noisy = ["".join(r.choice(alphabet) for _ in range(r.randrange(1, 90))) for _ in range(300)]
    matched = 0
    for text in [*TEXTS, *_SHAPE_TEXTS, *(t.upper() for t in _SHAPE_TEXTS), *noisy]:
        found = db.matching(text)
        if found is None:
            assert not text.isascii()
            continue
        for i, shape in enumerate(_SHAPES):
            if shape.search(text) is not None:
                assert i in found, (shape.pattern[:40], text[:80])
                matched += 1
    assert matched >= 8
