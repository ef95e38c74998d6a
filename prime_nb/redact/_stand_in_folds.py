"""What the stand-ins of a narrowed text's mathematical letters fold to, while the
finders read that text.

Why: the disguise finder folds a mathematical letter (bold ``p``) to the ASCII letter it is
drawn as, so that a secret written in them is found. A narrowed text holds a letter of
Latin-1 in its place (``_narrow.py``), which folds to nothing, so while a narrowed text
is read its stand-ins fold as the letters they stand for (:class:`Folding`, made by the
scrubber and read by ``_disguise.views``). That holds for the text and for the views of
it, whose letters are copied from it; a letter of Latin-1 that a view or a blob
*decodes* (``&#224;``, base64, JSON's ``\\u00e0``) is no stand-in and folds to nothing,
so where one that is also a stand-in turns up the reading stops
(:class:`StandInDecoded`) and the scrubber reads the text whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar


class StandInDecoded(Exception):
    """A text the finders read holds a stand-in it did not copy from the narrowed text:
    the narrowed text is to be read whole. (No ``ValueError``: decoders catch those.)"""


class Folding:
    """The stand-ins of one narrowed text (:attr:`text`) as what the letters they stand
    for fold to, and the views of it being read (by ``id``: they copy its letters)."""

    __slots__ = ("copies", "folds", "stand_ins", "text")

    def __init__(self, folds: Mapping[str, str], text: str) -> None:
        #: each stand-in as what its letter folds to; the text; the views of it read now
        self.folds, self.text = dict(folds), text
        self.copies: set[int] = set()
        chars = re.escape("".join(sorted(folds)))
        self.stand_ins = re.compile(f"[{chars}]" if chars else "(?!)")

    def holds(self, text: str) -> bool:
        """Whether ``text`` holds a stand-in."""
        return not text.isascii() and self.stand_ins.search(text) is not None

    def allows(self, text: str) -> bool:
        """Whether the stand-ins in ``text`` are the narrowed text's: it is the text, or
        a view of it being read."""
        return text is self.text or id(text) in self.copies

    def check(self, text: str) -> None:
        """Stop the reading where ``text`` holds a stand-in it did not copy."""
        if not self.allows(text) and self.holds(text):
            raise StandInDecoded


_FOLDING: ContextVar[Folding | None] = ContextVar("stand_in_folding", default=None)


def current() -> Folding | None:
    """The folding of the narrowed text being read, if one is."""
    return _FOLDING.get()


@contextmanager
def folding(folds: Mapping[str, str], text: str) -> Iterator[Folding]:
    """While the finders read the narrowed ``text``, its stand-ins fold as ``folds``."""
    made = Folding(folds, text)
    token = _FOLDING.set(made)
    try:
        yield made
    finally:
        _FOLDING.reset(token)
