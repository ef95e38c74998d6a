"""A long text's suspects' three patterns, and a PIN's, are read in one scan of it.

``_suspects.suspect_spans`` asks what ``_BESIDE_WORD``, ``_KNOWN`` and ``_LEFT_AFTER``
read a text of ``SHAPE_MIN`` or more for in one ``Presence.expect`` (one scan of the
text for all three, not one each), and ``_records``' PIN pattern is asked in each long
text's one scan of its rules (``also_expected``). Both find what they found with a scan
each: the same spans, on a text where each pattern matches, with ``SHAPE_MIN`` made
small so that the text is short.
"""

from __future__ import annotations

import random
import string
from collections.abc import Iterator
from typing import Any

import pytest

from prime_nb.redact import _engine, _literals, _records, _suspects

_SMALL = 1 << 16


def _text() -> str:
    """About 300 KB: base64-like filler with suspects and PINs among it."""
    r = random.Random(11)
    alnum = string.ascii_letters + string.digits
    token = lambda n: "".join(r.choice(alnum) for _ in range(n))  # noqa: E731
    planted = [
        lambda: f" token = {token(32)} ",
        lambda: f" [REDACTED:aws-key:3]{token(9)} ",
        lambda: " nsec1" + "".join(r.choice("02345678acdefghjk") for _ in range(58)) + " ",
        lambda: ' accounts: ["0x' + "".join(r.choice("0123456789abcdef") for _ in range(64)) + '"]',
        lambda: f' "pin": "{r.randrange(1000, 99999)}", card_cvv={r.randrange(100, 9999)} ',
        lambda: f" gpio_pin: {r.randrange(1000, 9999)} ",
    ]
    parts = []
    while sum(map(len, parts)) < 300_000:
        parts.append(token(r.randrange(2000, 12000)) + "+/")
        parts.append(r.choice(planted)())
    return "".join(parts)


@pytest.fixture(scope="module")
def text() -> str:
    return _text()


@pytest.fixture
def full_scans(monkeypatch: pytest.MonkeyPatch, text: str) -> Iterator[list[Any]]:
    """The literal scans of the whole text (each a pass of its own over it)."""
    seen: list[Any] = []
    original = _engine.Literals.positions

    def positions(self: _engine.Literals, hay: str, budget: int) -> Any:
        if len(hay) == len(text):
            seen.append(self.items)
        return original(self, hay, budget)

    monkeypatch.setattr(_engine.Literals, "positions", positions)
    yield seen


def _small_shape_min(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_literals, "SHAPE_MIN", _SMALL)
    monkeypatch.setattr(_literals, "SHAPE_SAMPLE", _SMALL // 4)  # a sample, not the text
    monkeypatch.setattr(_literals, "_SAMPLED", _SMALL // 4 // _literals.SHAPE_WORTH)
    monkeypatch.setattr(_suspects, "SHAPE_MIN", _SMALL, raising=False)


def test_the_suspects_are_those_of_a_scan_each(
    text: str, full_scans: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    each = list(_suspects.suspect_spans(text))  # under SHAPE_MIN: a scan each
    assert full_scans  # the literals' own passes over the text
    reasons = {why for _, _, why in each}
    assert len(reasons) >= 3 and len(each) >= 10
    full_scans.clear()
    _small_shape_min(monkeypatch)
    assert list(_suspects.suspect_spans(text)) == each
    assert full_scans == []  # all answered by the one scan


def test_a_pin_is_found_from_the_rules_one_scan(
    text: str, full_scans: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    each = list(_records.pin_spans(text))
    assert len(each) >= 3
    assert full_scans
    full_scans.clear()
    _small_shape_min(monkeypatch)
    presence = _literals.Presence(text, None)
    presence.expect([])  # a rule dispatch's one scan, the finders' patterns with it
    assert list(_records.pin_spans(text)) == each
    assert full_scans == []
