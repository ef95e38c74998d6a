"""Long texts whose new text is written in pieces, never built whole.

Why: a long text dense with secrets, replaced as one new string, holds the old text, the
pieces of the new one and the new one at once (three times the text), and orjson's bytes
of it after that. Instead the scrubber keeps the old text and where each replacement
goes (a *cut*), and puts a stand-in string in the new tree; the line's writer splices
the stand-in's JSON out of what orjson writes and writes the new text in its place, a
piece at a time, each piece encoded by orjson. The bytes are those orjson writes of the
whole new text: a JSON string's escapes are made one character at a time. The old text
is let go once it is written.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import secrets
from array import array
from collections.abc import Collection, Iterable, Iterator, Sequence
from typing import Protocol, overload

import orjson

from ._entry_fields import abbreviated

#: a text longer than this (in characters) is written in pieces when it changes
LONG_TEXT = 1 << 16
#: how many characters of the old text go into one piece
PIECE = 1 << 16

#: (start, end, placeholder): ``text[start:end]`` becomes ``placeholder``
Cut = tuple[int, int, str]


class Cuts(Sequence[Cut]):
    """A text's cuts: a text dense with secrets has one for every record of JSON held in
    it, and a tuple and its two ints each (about 140 bytes) outweighed the record. Up
    to :data:`_FEW_CUTS` are tuples (most texts have a few, and a list costs less);
    more are columns: each cut's two ends in ``array('q')`` and its placeholder (a
    string shared by every cut of the same value)."""

    __slots__ = ("_ends", "_few", "_placeholders", "_starts")

    def __init__(self) -> None:
        self._few: list[Cut] | None = []
        self._starts = array("q")
        self._ends = array("q")
        self._placeholders: list[str] = []

    def append(self, cut: Cut) -> None:
        if self._few is not None:
            self._few.append(cut)
            if len(self._few) <= _FEW_CUTS:
                return
            few, self._few = self._few, None
            for held in few:
                self.append(held)
            return
        self._starts.append(cut[0])
        self._ends.append(cut[1])
        self._placeholders.append(cut[2])

    def __len__(self) -> int:
        return len(self._few) if self._few is not None else len(self._starts)

    @overload
    def __getitem__(self, i: int) -> Cut: ...
    @overload
    def __getitem__(self, i: slice) -> list[Cut]: ...
    def __getitem__(self, i: int | slice) -> Cut | list[Cut]:
        if self._few is not None:
            return self._few[i]
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        return self._starts[i], self._ends[i], self._placeholders[i]

    def __iter__(self) -> Iterator[Cut]:
        if self._few is not None:
            return iter(self._few)
        return zip(self._starts, self._ends, self._placeholders, strict=True)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Cuts | list | tuple):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Cuts({list(self)!r})"


#: up to this many cuts are kept as tuples
_FEW_CUTS = 64

#: what a stand-in holds besides its number: no line holds it (a NUL and a random word)
_TOKEN = secrets.token_hex(8)
_PREFIX = "\x00prime-nb-pending:" + _TOKEN + ":"
#: a stand-in as orjson (or the standard library's encoder) writes it
_WRITTEN = re.compile(rb'"\\u0000prime-nb-pending:' + _TOKEN.encode() + rb':([0-9]+)"')


def kept_name(number: int) -> str:
    """The stand-in name of a long text kept as it is (``_narrow.LongText``): led by
    zeros, so never one :meth:`PendingTexts.stand_in` makes; 64 characters or more, so
    never taken for a short string."""
    return _PREFIX + "0" * 32 + str(number)


class Sliced(Protocol):
    """A text that is sliced (``text[a:b]``) without being held as one ``str``."""

    def __len__(self) -> int: ...

    def __getitem__(self, where: slice, /) -> str: ...


def new_pieces(text: str | Sliced, cuts: Iterable[Cut], size: int = PIECE) -> Iterator[str]:
    """The new text of ``text`` with ``cuts`` (sorted, apart) made: the old text's runs
    (at most ``size`` characters each) and the placeholders, in order."""
    last = 0
    for start, end, placeholder in cuts:
        yield from _runs(text, last, start, size)
        yield placeholder
        last = end
    yield from _runs(text, last, len(text), size)


def joined(text: str, cuts: Iterable[Cut]) -> str:
    """The new text, whole: its pieces joined :data:`_JOINED` at a time, each batch added
    to the new text in place (CPython grows a string no other name holds where it is: a
    list of every run between cuts, a string object each, would be about twice a text
    dense with secrets beside the new text, and a list of the batches joined at the end
    once more the new text)."""
    new = ""
    batch: list[str] = []
    last = 0
    for start, end, placeholder in cuts:
        batch.append(text[last:start])
        batch.append(placeholder)
        last = end
        if len(batch) >= _JOINED:
            new += "".join(batch)
            batch.clear()
    batch.append(text[last:])
    new += "".join(batch)
    return new


#: how many pieces of a new text are joined at a time
_JOINED = 512


def _runs(text: str | Sliced, start: int, end: int, size: int) -> Iterator[str]:
    for at in range(start, end, size):
        yield text[at : min(end, at + size)]


def encoded(piece: str) -> bytes:
    """``piece`` as inside a JSON string, as orjson writes it (the standard library's
    encoder for text orjson refuses, as ``_file._dumps`` does)."""
    try:
        return orjson.dumps(piece)[1:-1]
    except TypeError:
        return json.dumps(piece, ensure_ascii=False).encode("utf-8")[1:-1]


class PendingTexts:
    """The long texts of the line being redacted whose new text is not built yet."""

    def __init__(self) -> None:
        self._texts: dict[str, tuple[str | Sliced, Sequence[Cut]]] = {}
        self._count = 0

    def stand_in(self, text: str | Sliced, cuts: Sequence[Cut]) -> str:
        """A string to put in the new tree where ``text``'s new text goes."""
        self._count += 1
        name = _PREFIX + str(self._count)
        self._texts[name] = (text, cuts)
        return name

    def keep(self, name: str, text: Sliced) -> None:
        """Write the stand-in ``name`` (a ``LongText``) as ``text`` if the line is written
        anew (when it is copied as it is, the stand-in is never written)."""
        self._texts[name] = (text, [])

    def holds(self, value: object) -> bool:
        """Whether ``value`` is a stand-in of this line."""
        return isinstance(value, str) and value.startswith(_PREFIX) and value in self._texts

    def text(self, name: str) -> str:
        """The new text of the stand-in ``name``, whole (an image's SVG is re-encoded)."""
        text, cuts = self._texts.pop(name)
        return joined(text if isinstance(text, str) else text[0 : len(text)], cuts)

    def written(self, name: str) -> Iterator[bytes]:
        """The new text of the stand-in ``name`` as a JSON string, a piece at a time; the
        old text is let go once written."""
        text, cuts = self._texts.pop(name)
        yield b'"'
        for piece in new_pieces(text, cuts):
            yield encoded(piece)
        del text, cuts
        yield b'"'

    def expand(self, parts: Iterable[bytes | bytearray]) -> Iterator[bytes | bytearray]:
        """``parts`` of a line, each stand-in in them written as its new text."""
        for part in parts:
            if not self._texts:
                yield part
                continue
            at = 0
            for m in _WRITTEN.finditer(part):
                name = _PREFIX + m.group(1).decode()
                if name not in self._texts:
                    continue
                yield part[at : m.start()]
                yield from self.written(name)
                at = m.end()
            yield part[at:] if at else part

    def clear(self) -> None:
        """Forget what was not written (a dry run, a line walked again)."""
        self._texts.clear()

    # -- a changed long key ------------------------------------------------------------
    def as_key(self, name: str, key: str, obj: Collection[str], taken: Collection[str]) -> str:
        """The key to write for ``key`` of ``obj`` whose new text waits as ``name``: the
        stand-in, renamed apart (``#2``, ...) from the keys of ``obj`` and those written
        before it (``taken``) as a key built whole is, so that no two keys meet and the
        others keep their order; ``key`` itself when its new text is the same; the new
        text whole when it is short (a short key is told apart by itself) or ``obj`` is
        not a plain dict (a line walked as a stream keeps its keys as hashes, in a dict
        of the members plans read: ``_shell.Shell``)."""
        if self.length(name) <= LONG_TEXT or type(obj) is not dict:
            return self.text(name)
        if self.length(name) == len(key) and self._digest(name) == self._digest(key):
            del self._texts[name]
            return key
        candidate, n = name, 1
        while self.taken(candidate, obj, taken):
            n += 1
            candidate = self._suffixed(name, f"#{n}")
        return candidate

    def taken(self, key: str, obj: Collection[str], taken: Collection[str]) -> bool:
        """Whether the new key ``key`` (a stand-in, or a string) meets a key of ``obj`` or
        one written before it (a stand-in among them by its new text)."""
        if not self.holds(key):
            if key in taken or key in obj:
                return True
            if len(key) <= LONG_TEXT:
                return False
            others: Iterable[str] = (t for t in taken if self.holds(t))
        else:
            others = itertools.chain(taken, obj)
        size = self.length(key)
        return any(
            self.length(other) == size and self._digest(other) == self._digest(key)
            for other in others
            if other is not key
        )

    def key_in_path(self, name: str) -> str:
        """The new text of the stand-in ``name`` (a long key's) as a field path names it
        (``_entry_fields.abbreviated``), read a piece at a time, never made whole."""
        text, cuts = self._texts[name]
        return abbreviated(new_pieces(text, cuts), self.length(name))

    def length(self, key: str) -> int:
        """The length of ``key``'s new text (``key`` itself when it is no stand-in)."""
        if not self.holds(key):
            return len(key)
        text, cuts = self._texts[key]
        return len(text) + sum(len(placeholder) - (end - start) for start, end, placeholder in cuts)

    def _digest(self, key: str) -> bytes:
        """A digest of ``key``'s new text, read a piece at a time."""
        digest = hashlib.blake2b(digest_size=32)
        if self.holds(key):
            text, cuts = self._texts[key]
            pieces: Iterable[str] = new_pieces(text, cuts)
        else:
            pieces = _runs(key, 0, len(key), PIECE)
        for piece in pieces:
            digest.update(piece.encode("utf-8", "surrogatepass"))
        return digest.digest()

    def _suffixed(self, name: str, suffix: str) -> str:
        """A stand-in for the new text of ``name`` with ``suffix`` after it."""
        text, cuts = self._texts[name]
        return self.stand_in(text, [*cuts, (len(text), len(text), suffix)])
