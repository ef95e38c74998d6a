"""A long string with emoji, typographic marks, letters of two UTF-8 bytes or hidden
marks in it, held as a ``str`` of one (or two) bytes a character that every finder reads
whole.

Why: a Python ``str`` holding one character beyond the Basic Multilingual Plane (an
emoji) costs four bytes for every character, and one holding a curly apostrophe, a Greek
letter or a zero-width space two, so a long mostly-ASCII string with emoji in it is four
times its UTF-8 line as one ``str`` (with curly quotes or a Greek letter, twice): over
redaction's bound of three times the line before anything is read. Here such a string is
*narrowed*: each of its symbols and marks of punctuation wider than Latin-1 (an emoji, a
skin tone, ``✅``, ``→``, a curly quote, a dash) becomes one Latin-1 *stand-in* character
that the text does not hold, written in the line's own buffer over its UTF-8 (never
longer) and decoded from there, as ``_apart`` decodes an escaped string: a byte a
character, or two where a letter of the BMP (Hebrew) stays in it as it is. Where each
stood is kept beside it (an array of positions and one of codes into a table of the
characters narrowed).

Every finder reads the narrowed text as it reads any text, whole, with the same answer
as of the text itself, because the characters narrowed and the stand-in are alike to
every test a finder makes of a character: none is a letter, a digit, a space or ``_``,
each is printable, has no case, is its own NFKC form and is named by no finder
(:func:`alike`). A letter of two UTF-8 bytes (Latin Extended, Greek, Cyrillic, Armenian)
is narrowed one for one instead: each pair of cases to a pair of Latin-1 letters the
text lacks, alike to it as a letter of the same case and UTF-8 length whose case pair is
its own (:func:`letter_pair`); a text's one kind of hidden mark (a zero-width space)
to the soft hyphen, which the disguise finder takes off as it takes off the mark; a
letter beyond the BMP with no case (CJK Extension B) to one of Latin-1 or of the BMP, and
a tag to a mark of format of the BMP (:func:`astral_kind`); a mathematical letter, which
the disguise finder folds to ASCII, to a letter of its case (of Latin-1, then of two
UTF-8 bytes: ``_narrow_math.py``), its fold carried beside the text
(:attr:`Narrowed.folds`) and read by the disguise finder while the text is read
(``_stand_in_folds.py``). The only places they differ
are the characters themselves, so a span found that holds a stand-in (its value would
not be the text's), a file-wide value that holds a narrowed character or a stand-in, or
a rule that names one makes the scrubber read the text whole (``_long_scrub.py``). A
text with a mathematical digit, or any other text beyond ASCII not narrowed, is held as
it is as a narrowed text with nothing narrowed (:func:`kept_whole`), so that its line,
written anew, writes it in pieces.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
import unicodedata
from array import array
from typing import Any

import numpy as np

from . import _narrow_math
from ._letter_pairs import _latin_pairs, _looks, letter_pair
from ._narrow_math import math_fold
from ._pending import kept_name

#: how many bytes of the string are decoded at a time
PIECE_BYTES = 1 << 16
#: how many characters of a narrowed text a short slice of it decodes at once
BLOCK = 1 << 17
#: the stand-ins tried, in order: symbols of Latin-1 (the first the text lacks is taken)
STAND_INS = "\u00a6\u00a9\u00ae\u00b0"
#: what where a wide character stood costs, in bytes (its position and its code): a
#: narrowed text costs a byte a character (two where a letter of the BMP stays) and
#: this a wide one, its ``str`` four bytes a character (two with none beyond the BMP),
#: so a text whose wide characters are 3 in 8 (or 1 in 8) or more is not narrowed (a
#: code is a byte where the text has 256 kinds of wide character or fewer, else 4)
_KEPT_PER_WIDE = 8


@functools.lru_cache(maxsize=4096)
def alike(char: str) -> bool:
    """Whether ``char`` is read by every finder as a stand-in is: a symbol or a mark of
    punctuation (or the emoji variation selector), not ``\\w``, ``\\d`` or ``\\s`` to a
    regex, printable, with no case, its own NFKC form, none of the look-alike or hidden
    characters the disguise finder looks for, and none a finder names (:data:`NAMED`)."""
    return (
        (unicodedata.category(char) in _SYMBOLS or char in _SELECTORS)
        and char.isprintable()
        and not char.isalnum()
        and char.lower() == char == char.upper() == char.casefold()
        and unicodedata.normalize("NFKC", char) == char
        and re.fullmatch(r"[\w\d\s]", char) is None
        and _DISGUISED.match(char) is None
        and char not in NAMED
    )


#: the categories of symbols (mathematical, currency, modifier, other) and of
#: punctuation (dashes, brackets, quotation marks, other: a curly apostrophe, a bullet),
#: but a connector (``_`` and its kin, which ``\\w`` matches)
_SYMBOLS = frozenset({"Sm", "Sc", "Sk", "So", "Pd", "Ps", "Pe", "Pi", "Pf", "Po"})
#: the text and emoji variation selectors, which follow many emoji
_SELECTORS = "\ufe0e\ufe0f"
#: what the disguise finder folds or drops (``_disguise._HIDDEN``, ``_FOLDABLE``)
_DISGUISED = re.compile(
    r"[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff"
    r"\uff01-\uff5e\U0001d400-\U0001d7ff\u2460-\u24ff]"
)
#: the characters wider than Latin-1 that a finder names and that are otherwise alike: a
#: box table's bars (``_byte_forms``), which a stand-in would hide. (The ellipsis after a
#: cut value, ``_generic.TRUNCATED``, is not its own NFKC form.) ``test_narrowed_text.py``
#: reads the package's source for any other
NAMED = frozenset("\u2502\u2503")


class Narrowed:
    """A text as its narrowed ``str`` (:attr:`narrow`) and where each wide character
    stood; sliced (``text[a:b]``) as the text itself."""

    __slots__ = (
        "_back",
        "_block",
        "_block_start",
        "_codes",
        "_ordinals",
        "_positions",
        "_table",
        "folds",
        "letters",
        "narrow",
        "stand_in",
        "stand_ins",
    )

    def __init__(
        self,
        narrow: str,
        stand_in: str,
        positions: array[int],
        codes: array[int],
        table: str,
        lettered: dict[str, str] | None = None,
        folds: dict[str, str] | None = None,
    ):
        #: the stand-in of the symbols; every stand-in (the letters' too); the letters
        self.narrow, self.stand_in = narrow, stand_in
        lettered = lettered or {}
        #: each stand-in of a mathematical letter as what the letter folds to (read by
        #: the disguise finder while the text is read: ``_stand_in_folds.py``)
        self.folds = folds or {}
        self.stand_ins = stand_in + "".join(sorted(lettered.values()))
        self.letters = "".join(sorted(lettered))
        #: where only letters were narrowed, each stand-in back to its letter, one for one
        self._back = None if set(table) - lettered.keys() else str.maketrans(_inverse(lettered))
        #: where each wide character stood, and its code: its place in ``_table``
        self._positions, self._codes, self._table = positions, codes, table
        #: the block of the text last decoded, and where it starts
        self._block, self._block_start = "", 0
        self._ordinals = np.array([ord(char) for char in table], dtype=np.uint32)

    def __len__(self) -> int:
        return len(self.narrow)

    def __getitem__(self, where: slice) -> str:
        """``text[start:stop]`` of the text itself (no step). The text is read in order a
        run at a time (its new text's pieces, between cuts), so a short slice is taken
        from a block of :data:`BLOCK` characters decoded once."""
        start, stop, step = where.indices(len(self.narrow))
        assert step == 1, "a narrowed text is sliced without a step"
        stop = max(start, stop)
        at = self._block_start
        if not (at <= start and stop <= at + len(self._block)) and stop - start < BLOCK:
            at, self._block = start, self._decoded(start, min(len(self.narrow), start + BLOCK))
            self._block_start = at
        if at <= start and stop <= at + len(self._block):
            return self._block[start - at : stop - at]
        return self._decoded(start, stop)

    def _decoded(self, start: int, stop: int) -> str:
        """``text[start:stop]``, each stand-in in it the character it stands for."""
        first = bisect.bisect_left(self._positions, start)
        last = bisect.bisect_left(self._positions, stop)
        if first == last:
            return self.narrow[start:stop]
        # the text's characters as UTF-32 (NumPy's), each wide one put back where it stood
        chars = np.frombuffer(self.narrow[start:stop].encode("utf-32-le"), np.uint32).copy()
        where = np.frombuffer(self._positions, self._positions.typecode)[first:last] - start
        codes = np.frombuffer(self._codes, self._codes.typecode)[first:last]
        chars[where] = self._ordinals[codes]
        return chars.tobytes().decode("utf-32-le")

    def whole(self) -> str:
        """The text as one ``str`` (only where it is needed): the narrowed text itself
        where nothing was narrowed (:func:`kept_whole`); where only letters and a mark
        were, the narrowed text translated back (no copy as wide as the text but the
        text); else a block at a time, joined (each block's UTF-32 let go in turn)."""
        if not self._positions:
            return self.narrow
        if self._back is not None:
            return self.narrow.translate(self._back)
        n = len(self.narrow)
        return "".join(self._decoded(at, min(n, at + BLOCK)) for at in range(0, n, BLOCK))


class LongText(str):
    """A stand-in ``str`` in the parsed tree for a narrowed text (:attr:`source`): its
    value is a name no line holds, which the writer of a changed line replaces with the
    text's JSON (``PendingTexts.keep``)."""

    source: Narrowed

    def __new__(cls, source: Narrowed) -> LongText:
        made = super().__new__(cls, kept_name(next(_numbers)))
        made.source = source
        return made

    def __copy__(self) -> LongText:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> LongText:
        return self


_numbers = itertools.count(1)


def narrowed_in_place(view: memoryview, start: int, end: int) -> Narrowed | None:
    """The text of the UTF-8 ``view[start:end]`` (a view of a whole ``bytearray``)
    narrowed, written over those bytes (the caller blanks them after); None, with the
    bytes untouched, when the text is not one to narrow (no character of three or four
    bytes, a wide character beyond the BMP unlike a stand-in, every stand-in in it, or
    so many wide characters that its ``str`` is the smaller). Raises
    UnicodeDecodeError where the bytes are not UTF-8."""
    buffer = view.obj
    assert isinstance(buffer, bytearray) and len(buffer) == len(view)
    if not beyond_latin1(buffer, start, end):
        return None  # a byte a character as a ``str`` already
    long_lead = has_long_lead(buffer, start, end)
    present: set[str] = set()  # the characters in it a stand-in may not be
    narrowed: set[str] = set()
    letters: dict[str, int] = {}  # each letter (or hidden mark) to narrow one for one
    astral: dict[str, int] = {}  # each letter or tag beyond the BMP, one for one
    math: dict[str, int] = {}  # each mathematical letter, one for one
    count = wide = widest = 0
    kind = 2  # the bytes a character of the text's ``str``
    for piece in _pieces(view, start, end):
        found = _wide_counts(piece)
        for char in found.keys() - narrowed - letters.keys() - astral.keys() - math.keys():
            if char <= "\xff":
                present.add(char)
            elif alike(char):
                narrowed.add(char)
            elif char > "\uffff":
                if astral_kind(char) is not None:
                    astral[char] = 0
                elif math_fold(char) is not None:
                    math[char] = 0
                else:
                    return None  # a mathematical digit, a cased letter: read as it is
            elif (letter_pair(char) is not None or char in HIDDEN_MARKS) and not widest:
                letters[char] = 0
            else:
                present.add(char)  # a letter of the BMP (Hebrew): two bytes a character
                widest = 1
        if not widest and len({letter_pair(c) for c in letters} - {None}) > len(_latin_pairs()):
            widest = 1  # more letters than stand-ins for them
        if widest and not long_lead:
            return None  # a letter stays: its ``str`` is two bytes a character as it is
        for counted in (letters, astral, math):
            for char in counted:
                counted[char] += found.get(char, 0)
        wider = astral or math or any(char > "\uffff" for char in narrowed)
        kind = 4 if kind == 4 or wider else 2
        count, wide = count + len(piece), wide + sum(found.get(char, 0) for char in narrowed)
    stand_in = next((char for char in STAND_INS if char not in present), None)
    lettered = {} if widest else _letter_stand_ins(letters, present)
    if lettered is None:
        widest, lettered = 1, {}
    wide += sum(letters[char] for char in lettered) + sum(astral.values()) + sum(math.values())
    astral_in = _astral_stand_ins(astral, present)
    math_in = _narrow_math.stand_ins(math, present.union(lettered.values(), letters))
    if astral_in is None or math_in is None:
        return None  # more kinds beyond the BMP than stand-ins for them
    if any(char > "\xff" for char in [*astral_in.values(), *math_in.values()]):
        widest = 1  # a stand-in of the BMP: two bytes a character
    lettered.update(astral_in)
    lettered.update(math_in)
    if stand_in is None or (1 + widest * 2) * count + wide * _KEPT_PER_WIDE >= kind * count:
        return None  # dense with wide characters: as a ``str`` it is the smaller
    if not narrowed and not lettered:
        return None
    table = "".join(sorted(narrowed | lettered.keys()))  # a code for each: a byte where 256
    positions, codes = (
        array("I" if count < 1 << 32 else "q"),
        array("B" if len(table) <= 256 else "I"),
    )
    ordinals = np.array([ord(char) for char in table], dtype=np.uint32)
    targets = np.array([ord(lettered.get(char, stand_in)) for char in table], dtype=np.uint32)
    write, count = start, 0
    for piece in _pieces(view, start, end):  # each decoded before its bytes are written
        narrow = _narrowed_piece(piece, ordinals, targets, count, positions, codes)
        data = narrow.encode("utf-8")  # never longer: see above
        view[write : write + len(data)] = data
        write += len(data)
        count += len(piece)
    text = str(view[start:write], "utf-8")
    folds = {stand: math_fold(char) or "" for char, stand in math_in.items()}
    return Narrowed(text, stand_in, positions, codes, table, lettered, folds)


def kept_whole(text: str) -> Narrowed:
    """``text``, which is not one to narrow, as a narrowed text with nothing narrowed: a
    long text beyond ASCII is then held as a ``LongText`` all the same, so that
    where its line is written anew it is written a piece at a time (``_pending.py``),
    not in orjson's bytes of the whole line beside its ``str``. Every finder reads it as
    it is."""
    return Narrowed(text, "", array("I"), array("B"), "")


def _inverse(lettered: dict[str, str]) -> dict[str, str]:
    """Each stand-in of ``lettered`` as the letter (or mark) it stands for."""
    return {stand: letter for letter, stand in lettered.items()}


def beyond_latin1(buffer: bytearray, start: int, end: int, least: int = 0xC4) -> bool:
    """Whether ``buffer[start:end]`` (UTF-8) holds a character beyond Latin-1: a byte
    from 0xC4 on is the first of one (NumPy's one pass, no copy); with ``least`` 0x80,
    beyond ASCII."""
    return end > start and int(np.frombuffer(buffer, np.uint8, end - start, start).max()) >= least


def _letter_stand_ins(letters: dict[str, int], present: set[str]) -> dict[str, str] | None:
    """Each of ``letters`` as the Latin-1 character that stands for it: a pair of letters
    (lower and upper) as a pair of Latin-1 letters neither of which the text holds, one
    for one, and a hidden mark as the soft hyphen, where it is the text's only kind
    (:data:`HIDDEN_MARKS`); None where the text holds too few, or the soft hyphen."""
    marks = [char for char in letters if char in HIDDEN_MARKS]
    if len(marks) > 1 or (marks and HIDDEN_STAND_IN in present):
        return None
    pairs = sorted({pair for char in letters if (pair := letter_pair(char)) is not None})
    free = [pair for pair in _latin_pairs() if not present.intersection(pair)]
    if len(pairs) > len(free):
        return None
    stands = {}
    for (low, up), (low_in, up_in) in zip(pairs, free, strict=False):
        stands[low], stands[up] = low_in, up_in
    return {char: stands.get(char, HIDDEN_STAND_IN) for char in letters}


#: the hidden marks the disguise finder takes off (``_disguise._HIDDEN``: zero-width
#: spaces and joiners, marks of direction), each of the format category: one kind in a
#: text becomes the soft hyphen, which the disguise finder takes off as well, and which
#: no other finder reads apart from them (no letter, digit or space, not printable, its
#: own NFKC form, no case); the byte-order mark (which a decoder strips) is not one
HIDDEN_MARKS = frozenset(
    char
    for low, high in ((0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x2069))
    for char in map(chr, range(low, high + 1))
    if unicodedata.category(char) == "Cf"
)
#: the soft hyphen: the stand-in of a text's hidden mark
HIDDEN_STAND_IN = "\u00ad"


@functools.lru_cache(maxsize=4096)
def astral_kind(char: str) -> str | None:
    """``"Lo"`` where ``char`` is a letter with no case (CJK Extension B, a historic
    script), ``"Cf"`` where it is a mark of format (a tag), of those a stand-in of its
    kind (:func:`_stand_in_kind`) is alike to for every finder; else None (a
    mathematical letter, which the disguise finder folds: :func:`math_fold`; a cased
    letter, a digit)."""
    return _stand_in_kind(char) if char > "\uffff" else None


def _stand_in_kind(char: str) -> str | None:
    """The kind of ``char`` where every test a finder makes of one reads it as it reads
    any of its kind: a letter (``Lo``: ``\\w``, alphabetic, printable, no digit nor
    numeric value) or a mark of format (``Cf``: none of those, no blank); no case, its
    own NFKC form (but :data:`LATIN_LETTERS`), none the disguise finder folds or takes
    off, none a finder names."""
    kind = "Cf" if char in LATIN_CONTROLS else unicodedata.category(char)
    if kind not in ("Lo", "Cf") or char in NAMED or char in HIDDEN_MARKS:
        return None
    if len(f"a{char}b".splitlines()) > 1:
        return None  # a line's end to ``str.splitlines``
    if not char.lower() == char == char.upper() == char.casefold():
        return None
    if unicodedata.normalize("NFKC", char) != char and char not in LATIN_LETTERS:
        return None
    if _DISGUISED.match(char) is not None or ord(char) in _looks():
        return None
    letter = kind == "Lo"
    if (char.isalpha(), char.isprintable(), re.fullmatch(r"\w", char) is not None) != (
        letter,
        letter,
        letter,
    ):
        return None
    return kind if not char.isnumeric() and not char.isspace() else None


#: the letters of Latin-1 with no case (``Lo``): a letter beyond the BMP with no case
#: becomes one of them, a byte a character. Each is alike to it to every finder but NFKC
#: (``ª`` is ``a``), which only the disguise finder applies, to what it folds
#: (``_disguise._FOLDABLE``); ``test_narrowed_text.py`` reads the package's source for it
LATIN_LETTERS = "\u00aa\u00ba"
#: controls of Latin-1 (``Cc``) a tag becomes, a byte a character: alike to it to every
#: finder but the category, which no finder reads of the text (``test_narrowed_text.py``
#: reads the package's source for it); not the line's end ``U+0085``, nor the controls
#: that begin or end a terminal's sequence (``U+0090``, ``U+009B``-``U+009F``)
LATIN_CONTROLS = "".join(map(chr, [*range(0x80, 0x85), *range(0x86, 0x90)]))


@functools.cache
def _astral_pools() -> dict[str, list[str]]:
    """The stand-ins of each kind beyond the BMP, in the order tried: the letters of
    Latin-1 with no case, then CJK Unified Ideographs (two bytes a character); controls
    of Latin-1, then marks of format of the BMP that the disguise finder leaves
    (interlinear annotation marks, Arabic and Syriac number marks), none of direction
    nor ever a blank."""
    letters = [*LATIN_LETTERS, *map(chr, range(0x4E00, 0x4F00))]
    marks = [*LATIN_CONTROLS, *map(chr, range(0xFFF9, 0xFFFC)), *map(chr, range(0x600, 0x606))]
    marks += ["\u06dd", "\u070f", "\u0890", "\u0891", "\u08e2"]
    return {
        "Lo": [c for c in letters if _stand_in_kind(c) == "Lo"],
        "Cf": [c for c in marks if _stand_in_kind(c) == "Cf"],
    }


def _astral_stand_ins(astral: dict[str, int], present: set[str]) -> dict[str, str] | None:
    """Each of ``astral`` (letters and marks beyond the BMP) as a stand-in of its kind
    the text lacks, one for one; None where there are too few."""
    stands: dict[str, str] = {}
    for kind, pool in _astral_pools().items():
        chars = sorted(char for char in astral if astral_kind(char) == kind)
        free = [char for char in pool if char not in present]
        if len(chars) > len(free):
            return None
        stands.update(zip(chars, free, strict=False))
    return stands


def _wide_counts(piece: str) -> dict[str, int]:
    """How many times each character from U+0080 on stands in ``piece`` (NumPy's reading
    of its UTF-32, not a Python step a character): those wider than Latin-1 to be
    narrowed, those of Latin-1 that a stand-in must not be (the symbols', the soft
    hyphen, the letters')."""
    chars = np.frombuffer(piece.encode("utf-32-le"), dtype=np.uint32)
    kinds, counts = np.unique(chars[chars >= 0x80], return_counts=True)
    return dict(zip(map(chr, kinds.tolist()), counts.tolist(), strict=True))


def _narrowed_piece(
    piece: str,
    ordinals: Any,
    targets: Any,
    count: int,
    positions: array[int],
    codes: array[int],
) -> str:
    """``piece`` with each character of ``ordinals`` (sorted: a code is its place) made
    its stand-in (``targets``, in the same places); where each stood (``count``
    characters into the text) and its code appended to ``positions`` and ``codes``.
    NumPy reads the piece's UTF-32."""
    chars = np.frombuffer(piece.encode("utf-32-le"), dtype=np.uint32).copy()
    wide = np.flatnonzero(chars > 0xFF)
    place = np.minimum(np.searchsorted(ordinals, chars[wide]), len(ordinals) - 1)
    kept = ordinals[place] == chars[wide]
    where = wide[kept]
    positions.frombytes((where + count).astype(positions.typecode).tobytes())
    codes.frombytes(place[kept].astype(codes.typecode).tobytes())
    chars[where] = targets[place[kept]]
    return chars.tobytes().decode("utf-32-le")


def has_long_lead(data: bytes | bytearray, start: int, end: int) -> bool:
    """Whether ``data[start:end]`` holds the first byte of a UTF-8 character of three or
    four bytes (U+0800 on): a text with none is Latin-1 or two bytes a character as a
    ``str``, and is decoded as it is. One ``find`` a byte (each at C speed, a few times
    the speed of one regex's search), the likeliest first."""
    return any(data.find(lead, start, end) >= 0 for lead in _LONG_LEADS)


#: the first bytes of the characters :func:`has_long_lead` looks for: punctuation and
#: symbols (U+2000-U+2FFF) and emoji first
_LONG_LEADS = [b"\xe2", b"\xf0", *(bytes((b,)) for b in range(0xE0, 0xF5) if b not in (0xE2, 0xF0))]


def _pieces(view: memoryview, start: int, end: int) -> Any:
    """The text of ``view[start:end]`` a piece of about :data:`PIECE_BYTES` at a time,
    each cut before a character's first byte."""
    at = start
    while at < end:
        cut = min(end, at + PIECE_BYTES)
        while at < cut < end and 0x80 <= view[cut] < 0xC0:
            cut -= 1
        if cut == at:  # a piece shorter than its one character: the character
            cut += 1
            while cut < end and 0x80 <= view[cut] < 0xC0:
                cut += 1
        yield str(view[at:cut], "utf-8")
        at = cut
