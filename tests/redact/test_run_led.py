"""A pattern read as a run up to a literal (``_run_led.py``: an email address) is tried
only in the runs before the literal, and finds there what its own scan finds, on random
and adversarial texts; a pattern of another form is not read so."""

from __future__ import annotations

import importlib
import random
import re

import pytest

from prime_nb.redact._literals import finditer
from prime_nb.redact._rules import EMAIL
from prime_nb.redact._run_led import run_led

_run_led = importlib.import_module("prime_nb.redact._run_led")

#: run-led patterns: the email rule's, a lazy run, a possessive run, a first character
#: outside the run's class
_PATTERNS = [
    EMAIL,
    re.compile(r"(?<![\w-])\w[\w.-]*?:(\d+)"),
    re.compile(r"(?<!/)[a-z][a-z0-9]*+=[0-9]+"),
    re.compile(r"(?<!\w)#[a-z0-9]*@[a-z]+"),
]
_PIECES = [
    "mail me at a.b+c@example.com or x@y.io, ",
    "@@ @x @.com a@b ",
    "user_name@host-1.internal.dev ",
    "word ",
    "://app:pw@db.internal:5432 ",
    "key=123 port:80 xs:9 ",
    "\u0436\u0436@\u0436\u0436.com \u0436:12 ",
    "\u00a6 \u00e9t\u00e9@caf\u00e9.fr ",
    "-" * 40 + "@" + "z" * 3,
    "a" * 300,
    "//a=1 ",
    "#ab@cd ##x@y #@z ",
]


def _texts() -> list[str]:
    r = random.Random(43)
    weights = [1, 1, 1, 150, 1, 1, 1, 1, 1, 1, 1, 1]  # mostly words, as prose
    texts = ["".join(r.choices(_PIECES, weights, k=r.randrange(200, 2000))) for _ in range(30)]
    texts += ["@" + "a" * 500 + "@x.com", "a" * 2000 + "@b.co", "@" * 3000]
    return texts


@pytest.mark.parametrize("pattern", _PATTERNS, ids=["email", "lazy", "possessive", "first-apart"])
def test_runs_find_what_the_scan_finds(
    monkeypatch: pytest.MonkeyPatch, pattern: re.Pattern[str]
) -> None:
    monkeypatch.setattr(_run_led, "SHORTEST", 1)
    led = run_led(pattern)
    assert led is not None
    windowed = 0
    for text in _texts():
        windowed += led.windows(text) is not None
        assert [m.span() for m in finditer(pattern, text)] == [
            m.span() for m in pattern.finditer(text)
        ], text[:80]
    assert windowed > 15  # most texts were read in windows, not scanned whole


@pytest.mark.parametrize(
    "source",
    [
        r"(?i)[a-z][a-z0-9]*@x",  # case folded
        r"[a-z][a-z0-9@]*@x",  # the literal in the run
        r"[a-z][a-z0-9]{0,9}@x",  # a bounded run
        r"[a-z]+@x",  # no first character apart
        r"[a-z][a-z0-9]*(?:@|#)x",  # no one literal
    ],
)
def test_another_form_is_not_run_led(source: str) -> None:
    assert run_led(re.compile(source)) is None


def test_dense_literals_leave_the_scan() -> None:
    led = run_led(EMAIL)
    assert led is not None
    assert led.windows("a@" * 5000) is None
    assert led.windows("x" * 100 + " b@c.de") == [(100, 101)]
