"""A pattern tried in windows (``_prefilter.tried``) is searched for its ``starter``
first, the lookbehinds that begin it and its first character: the positions passed over
must hold no match. Every pattern the rules try, and patterns that begin with each
shape the starter reads, are tried over whole texts and in windows cut at random, and
compared with ``pattern.finditer``."""

from __future__ import annotations

import bisect
import random
import re
import re._parser as sre_parse  # type: ignore[import-not-found,unused-ignore]

import pytest

from prime_nb.redact._long_scan import ALSO
from prime_nb.redact._prefilter import starter, tried
from prime_nb.redact._rules import default_rules
from tests.redact.secret_corpus import KINDS

#: a lookbehind of each kind, a lookahead and an anchor first, a repeat, (?i), \b
SHAPES = [
    r"(?<![\w-])ab[0-9]{2,}",
    r"(?<=x=)\w{3,}",
    r"(?=a)[a-z]{4}",
    r"(?m)^cd[0-9]",
    r"\bkey\d+",
    r"[0-9a-f]{8,}",
    r"(?i)(?<![a-z])token[=:]\S+",
    r"x*?ab",
    r"(?:ab|cd)+e",
    r"\d{0,3}ab",
    # a literal first, its lookbehinds read after it; alternatives that begin so
    r"(?<=k=)ab\d",
    r"(?<![\w./-])(?:docker|podman)\s+login",
    r"(?<![a-z])(?:x=|(?<!-)y)\d+",
]


def _patterns() -> list[re.Pattern[str]]:
    found = [re.compile(s) for s in SHAPES]
    for rule in default_rules():
        found += [p for p in (rule.pattern, *rule.needed_shapes()) if p is not None]
    return list(dict.fromkeys([*found, *ALSO]))


def _text(seed: int) -> str:
    r = random.Random(seed)
    edges = ["\n", " ", '"', "'", "=", ": ", "-", "_", ".", "/", "é", "x=", "ab12", "K", "k=ab1"]
    edges += ["docker login", "-podman login", "-y12", "ay1", " y3"]
    parts = []
    for make in KINDS[seed::2]:  # half the kinds each
        parts += [make(random.Random(seed)).snippet, r.choice(edges)]
        parts.append("".join(r.choices("abcdefxyz0123456789 -_=:", k=r.randrange(16))))
    r.shuffle(parts)
    return "".join(parts)


@pytest.mark.parametrize("seed", range(2))
def test_windows_with_the_starter_find_what_the_scan_finds(seed: int) -> None:
    text = _text(seed)
    r = random.Random(seed)
    cuts = sorted(r.sample(range(len(text)), 200))
    found = begun = 0
    for pattern in _patterns():
        if sre_parse.parse(pattern.pattern, pattern.flags).getwidth()[0] == 0:
            continue  # an empty match: finditer's stepping, never tried in windows
        begun += starter(pattern) is not None
        want = [(m.span(), m.groups()) for m in pattern.finditer(text)]
        whole = [(m.span(), m.groups()) for m in tried(pattern, text, [(0, len(text))])]
        assert whole == want, pattern.pattern
        # windows that hold every match's start, and positions that hold none between
        starts = [m.start() for m in pattern.finditer(text)]
        windows = []
        for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True):
            if bisect.bisect_left(starts, a) < bisect.bisect_left(starts, b) or r.random() < 0.3:
                windows.append((a, b - 1))
        got = [(m.span(), m.groups()) for m in tried(pattern, text, windows)]
        assert got == want, pattern.pattern
        found += len(want)
    assert found > 150
    assert begun > 50  # most patterns have a starter


def test_the_starter_reads_no_further_than_the_first_character() -> None:
    begins = starter(re.compile(r"(?<![\w-])ab[0-9]{2,}"))
    assert begins is not None
    assert begins.match("-a") is None and begins.match(" a", 1) is not None
    assert begins.match(" ab", 1, 2) is not None  # the window's last position
    # through a group, each alternative's first character
    begins = starter(re.compile(r"(?:(?<!x)ab|c+d)e"))
    assert begins is not None
    assert [m.start() for m in begins.finditer("xab ab cd e")] == [4, 7]
    # an alternative that may read nothing first: none
    assert starter(re.compile(r"(?:ab|c*d)e")) is None
