"""Which letters of two UTF-8 bytes a narrowed text may hold as a letter of Latin-1, and
which letters of Latin-1 may stand for them (``_narrow.py``, ``_narrow_math.py``).

Why apart: both the narrowing of letters of two bytes and that of mathematical letters
take their stand-ins from these pairs; each reads what the other leaves, so the pairs
are a module neither imports the other for.
"""

from __future__ import annotations

import functools
import unicodedata


@functools.lru_cache(maxsize=4096)
def letter_pair(char: str) -> tuple[str, str] | None:
    """The (lower, upper) pair of ``char`` where it is a letter of two UTF-8 bytes (Latin
    Extended, Greek, Cyrillic, Armenian) that a letter of Latin-1 may stand for: no
    look-alike of an ASCII letter (neither of the pair) that the disguise finder folds,
    cased, its pair each other's only case (no third character of the BMP shares either's
    lower or upper form, so ``re``'s IGNORECASE matches the two alone), each its own NFKC
    form.
    A letter of Latin-1's pairs (:func:`_latin_pairs`) is alike to it to every test a
    finder makes of one: a word's letter, of the same case, two bytes of UTF-8."""
    pair = _pair(char) if "\u0100" <= char <= "\u07ff" else None
    if pair is None or any(not "\u0100" <= c <= "\u07ff" or ord(c) in _looks() for c in pair):
        return None
    return pair


@functools.cache
def _looks() -> frozenset[int]:
    """The letters the disguise finder reads as ASCII ones (``_disguise.SKELETON``): a
    stand-in would hide them from it."""
    from ._disguise import SKELETON  # here: it reads far more than this module

    return frozenset(SKELETON)


def _pair(char: str) -> tuple[str, str] | None:
    if unicodedata.category(char) not in ("Ll", "Lu"):
        return None
    low, up = char.lower(), char.upper()
    if len(low) != 1 or len(up) != 1 or low == up or char not in (low, up):
        return None
    if low.upper() != up or up.lower() != low or low.casefold() != low or up.casefold() != low:
        return None
    if any(unicodedata.normalize("NFKC", c) != c for c in (low, up)):
        return None
    lowers, uppers = _case_groups()  # each the other's only case: one besides itself
    return (low, up) if lowers.get(low) == 1 and uppers.get(up) == 1 else None


@functools.cache
def _case_groups() -> tuple[dict[str, int], dict[str, int]]:
    """How many characters of the BMP have each lower form, and each upper form, other
    than the form itself (a few thousand: only those of a cased character are kept)."""
    lowers: dict[str, int] = {}
    uppers: dict[str, int] = {}
    for code in range(0x10000):
        char = chr(code)
        low, up = char.lower(), char.upper()
        if low != char:
            lowers[low] = lowers.get(low, 0) + 1
        if up != char:
            uppers[up] = uppers.get(up, 0) + 1
    return lowers, uppers


@functools.cache
def _latin_pairs() -> list[tuple[str, str]]:
    """The pairs of Latin-1 letters a pair of letters (:func:`letter_pair`) may become:
    those with the same tests passed (not ``å``, which the Angstrom sign shares, nor
    ``ß``, ``ÿ``, ``µ``, whose other case is beyond Latin-1), none a finder names."""
    pairs = {_pair(chr(code)) for code in range(0xC0, 0x100)}
    return sorted(
        p
        for p in pairs
        if p is not None and all("\xc0" <= c <= "\xff" and c not in NAMED_LETTERS for c in p)
    )


#: the letters of Latin-1 a finder names (a secret's key in Spanish, ``contraseña``):
#: none stands for a letter (``test_narrowed_text.py`` reads the package's source)
NAMED_LETTERS = frozenset("\u00f1\u00d1")
