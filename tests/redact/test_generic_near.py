"""Generic detectors that look only near an anchor find what a whole scan finds.

Two detectors of ``_generic`` once scanned every position of a text with a pattern that
begins with a name's ``[\\w.-]*``: on a long base64 line (many word starts, many ``+``)
they took seconds a megabyte. They now start from an anchor (the join of two quoted
strings; the end of a pre-shared key's name) and read around it. These tests compare
them with the whole scan on random texts built from the pieces of their matches.
"""

from __future__ import annotations

import base64
import random
import re

import pytest

from prime_nb.redact import _generic
from prime_nb.redact._values import stand_in

#: the name-first pattern the anchored search replaced (the reference)
WHOLE_ASSIGNMENT = re.compile(
    r"(?P<key>\b[\w.\-]*(?i:psk|otp_?seed|totp_?secret|totp|otp_?secret))[\"']?[ \t]*[:=][ \t]*"
    r"(?P<v>\"[^\"\n]{1,200}\"|'[^'\n]{1,200}'|[^\s\"',;}]{6,500})"
)

PIECES = [
    "key = ",
    "api_key: ",
    "'",
    '"',
    "`",
    " + ",
    "+",
    "\n",
    "  ",
    "abc",
    "tok3n",
    "x" * 40,
    "=",
    ":",
    "secret_token",
    "wpa_psk",
    "TOTP_SECRET",
    "otpseed",
    ".psk",
    "router-",
    "Sup3rS3cretPw",
    "JBSWY3DPEHPK3PXP",
    ";",
    ",",
]


def _text(r: random.Random) -> str:
    return "".join(r.choice(PIECES) for _ in range(r.randint(5, 60)))


@pytest.mark.parametrize("seed", range(4))
def test_joins_found_near_their_plus_equal_the_whole_scan(seed: int) -> None:
    r = random.Random(seed)
    for _ in range(400):
        text = _text(r)
        whole = [m.span() for m in _generic.CONCATENATED.finditer(text)]
        assert [m.span() for m in _generic._concatenations(text)] == whole, text


@pytest.mark.parametrize("seed", range(4))
def test_keys_read_back_from_their_end_equal_the_whole_scan(seed: int) -> None:
    r = random.Random(100 + seed)
    for _ in range(400):
        text = _text(r)
        whole = []
        for m in WHOLE_ASSIGNMENT.finditer(text):
            value = m.group("v").strip("\"'")
            named = _generic._EXTRA_SECRET_NAMES.match(m.group("key"))
            if named and len(value) >= 6 and not value.isdigit() and not stand_in(value):
                whole.append(_generic._unquoted(m))
        found = [
            span for span in _generic.extra_assignment_spans(text) if span not in _other_spans(text)
        ]
        assert sorted(set(found)) == sorted(set(whole) - _other_spans(text)), text


def _other_spans(text: str) -> set[tuple[int, int]]:
    """What the detector's other two parts (joined strings, redis) find."""
    joined = {
        (m.start() + p.start(1), m.start() + p.end(1))
        for m in (_generic._concatenations(text) if "+" in text else ())
        for p in re.finditer(r"[\"'`]([^\"'`\n]+)[\"'`]", m.group(), re.S)
    }
    redis = {_generic._unquoted(m) for m in _generic.REDIS_PASSWORD.finditer(text)}
    return joined | redis


def test_a_long_base64_line_holds_nothing_and_a_join_inside_it_is_found() -> None:
    blob = base64.b64encode(random.Random(5).randbytes(600_000)).decode()
    assert list(_generic.extra_assignment_spans(blob)) == []
    text = blob + "\nconst apiKey = 'first-half-abc' + 'second-half-xyz';\n" + blob
    found = {text[a:b] for a, b in _generic.extra_assignment_spans(text)}
    assert {"first-half-abc", "second-half-xyz"} <= found
