"""The stand-in of a mathematical letter in a narrowed text (``_narrow.py``), and what
the letter folds to.

Why apart: the disguise finder folds a mathematical letter (``U+1D400``, bold ``A``) to
the ASCII letter it is drawn as, so a stand-in must carry that fold
(``_stand_in_folds.py``) besides being alike to the letter in every other test a finder
makes: a letter of its case (``_suspects`` reads case), ``\\w``, printable, with no other
case in the text. A mathematical letter has no case mapping; its stand-in has one, so
neither the stand-in's other case nor another letter's stand-in of the same pair is in
the text, and no case-insensitive match, ``lower`` or ``upper`` pairs it with another
of its characters. A letter of Latin-1 is taken first (a byte a character), then one of
two UTF-8 bytes (``_letter_pairs.letter_pair``'s: two bytes a character).
"""

from __future__ import annotations

import functools
import re
import unicodedata

from ._letter_pairs import _latin_pairs, letter_pair


@functools.lru_cache(maxsize=4096)
def math_fold(char: str) -> str | None:
    """The ASCII letter a mathematical letter folds to in the disguise finder's view
    (``_disguise._FOLDS``), where a stand-in of its case may take its place
    (:func:`stand_ins`): upper or lower case as its fold is, with no case mapping,
    alphabetic, ``\\w``; else None (a mathematical digit, which ``\\d`` matches, a Greek
    one, which folds to no ASCII)."""
    from ._disguise import _FOLDS  # here: it reads far more than this module

    kind = unicodedata.category(char)
    fold = _FOLDS.get(ord(char), "") if "\U0001d400" <= char <= "\U0001d7ff" else ""
    if kind not in ("Lu", "Ll") or not (fold.isascii() and fold.isalpha()):
        return None
    if unicodedata.category(fold) != kind or not char.lower() == char == char.upper():
        return None
    return fold if char.isalpha() and re.fullmatch(r"\w", char) is not None else None


def stand_ins(math: dict[str, int], taken: set[str]) -> dict[str, str] | None:
    """Each of ``math`` (mathematical letters) as a letter of its case: one of a pair
    (lower, upper) neither of which is in ``taken`` (the text's letters, other letters'
    stand-ins) nor stands for another letter; pairs of Latin-1 first, then of two UTF-8
    bytes; None where there are too few."""
    free = [pair for pair in _latin_pairs() if not taken.intersection(pair)]
    if len(math) > len(free):
        free += [pair for pair in _wider_pairs() if not taken.intersection(pair)]
    if len(math) > len(free):
        return None
    return {
        char: up if unicodedata.category(char) == "Lu" else low
        for char, (low, up) in zip(sorted(math), free, strict=False)
    }


@functools.cache
def _wider_pairs() -> list[tuple[str, str]]:
    """The pairs of letters of two UTF-8 bytes a letter of that size may become
    (``_letter_pairs.letter_pair``: each other's only case, their own NFKC form, no
    look-alike of an ASCII letter)."""
    pairs = {letter_pair(chr(code)) for code in range(0x100, 0x800)}
    return sorted(pair for pair in pairs if pair is not None)
