"""A long text's literals found present (``Literals.present``, piece by piece) wherever
each stands once: across a cut between two pieces, at the start, at the end; and the
scan stops no sooner than the last item is found. ``str`` is the oracle.
"""

from __future__ import annotations

import pytest

from prime_nb.redact import _engine
from prime_nb.redact._engine import EXACT, FOLD, Literals

_PIECE = 64
_ITEMS = (("secret", EXACT), ("token", FOLD), ("ab", EXACT))


@pytest.mark.parametrize("literal", ["secret", "TOKEN", "ab"])
def test_a_literal_once_anywhere_is_present(literal: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_engine, "CHUNK", _PIECE)
    engine = Literals(_ITEMS)
    size = 4 * _PIECE
    for at in range(size - len(literal) + 1):
        text = "." * at + literal + "." * (size - at - len(literal))
        want = {
            i for i, (lit, mode) in enumerate(_ITEMS) if lit in (text.lower() if mode else text)
        }
        assert (
            engine.present(text) == want == {[s.lower() for s, _ in _ITEMS].index(literal.lower())}
        )


def test_every_item_found_ends_the_scan_before_a_wider_piece(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_engine, "CHUNK", _PIECE)
    engine = Literals(_ITEMS)
    found_all = "secret token ab" + "." * (3 * _PIECE) + "\u6b00"
    assert engine.present(found_all) == {0, 1, 2}
    assert engine.present("secret ab" + "." * (3 * _PIECE) + "\u6b00") is None
