"""Counts in words, for the lines and reprs people read ("1 file", "2,000 entries")."""

from __future__ import annotations

#: plurals that are not the word and an "s"
PLURALS = {"entry": "entries", "leaf": "leaves"}


def counted(n: int, word: str, grouped: bool = True) -> str:
    """``n`` and ``word``, plural unless ``n`` is 1; thousands grouped unless not
    ``grouped`` (the widget's one-line repr keeps plain digits)."""
    number = f"{n:,}" if grouped else str(n)
    return f"{number} {word}" if n == 1 else f"{number} {plural(word)}"


def plural(word: str) -> str:
    return PLURALS.get(word, word + "s")
