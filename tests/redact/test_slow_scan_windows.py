"""A pattern that Python's search tries at every position (it begins with a lookaround)
is tried in windows around its literals' hits up to a hit every ``_SLOW_SCAN``
characters (``_literals._budgets``), and finds there what its own scan finds.

A chat text holds a URL every few sentences: the provider tokens' pattern holds
``https://`` (its webhook formats), so before, such a text was scanned whole (about
fifty times the windows' cost on a 57 MB chat line).
"""

from __future__ import annotations

import importlib
import random
import re

import pytest

from prime_nb.redact._literals import finditer, plan_of
from prime_nb.redact._prefilter import scans_slowly
from prime_nb.redact._rules import TOKEN_PREFIXES

_literals = importlib.import_module("prime_nb.redact._literals")

_PIECES = [
    "see https://example.com/docs?id=42 ok. ",
    "words and more words, ",
    "https://hooks.slack.com/services/T0000/B0000/" + "a1B2c3D4" * 3 + " ",
    "https://discord.com/api/webhooks/123/" + "x_Y-z" * 7 + " ",
    "https://team.webhook.office.com/webhookb2/" + "ab@cd/ef-" * 8 + " ",
    "key sk-" + "A1" * 20 + " and ghp_" + "b" * 36 + " ",
    "-https://x https://",
    "\u00a6 ",
]


def _texts() -> list[str]:
    r = random.Random(43)
    texts = []
    for _ in range(6):  # a URL every 100 to 300 characters: over the old budget
        weights = [r.randrange(1, 4), 60, 1, 1, 1, 1, 1, 2]
        texts.append("".join(r.choices(_PIECES, weights, k=3000))[:150_000])
    return texts


def test_dense_urls_are_tried_in_windows_with_the_scan_s_matches(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    windowed = []
    tried = _literals.tried

    def counted(pattern: re.Pattern[str], text: str, windows: object) -> object:
        windowed.append(pattern)
        return tried(pattern, text, windows)

    monkeypatch.setattr(_literals, "tried", counted)
    plan = plan_of(TOKEN_PREFIXES)
    assert plan is not None
    for text in _texts():
        hits = text.count("https://")
        assert len(text) // 16 // (plan.lead + 1) < hits <= len(text) // _literals._SLOW_SCAN
        want = [m.span() for m in TOKEN_PREFIXES.finditer(text)]
        assert want  # the texts hold tokens
        assert [m.span() for m in finditer(TOKEN_PREFIXES, text)] == want
    assert windowed == [TOKEN_PREFIXES] * 6


@pytest.mark.parametrize(
    ("source", "slowly"),
    [
        (r"(?<![\w-])(?:sk-|ghp_)\w+", True),
        (r"(?:(?<!x)ab|cd)", True),
        (r"(?:ab|(?=c)cd)", True),
        (r"AKIA[0-9A-Z]{16}", False),
        (r"(ghp|gho)_\w{36}", False),
        (r"\bkey=\w+", False),
    ],
)
def test_a_pattern_begun_by_a_lookaround_scans_slowly(source: str, slowly: bool) -> None:
    assert scans_slowly(re.compile(source)) is slowly
