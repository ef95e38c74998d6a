"""The scrubber's reading of a long text with emoji, held narrowed (``_narrow.LongText``).

Why apart from ``_scrub``: what is done with a string is the same for every string; how
a narrowed one is read without its ``str`` is one idea of its own. Every finder reads
the narrowed text whole, as it reads any text (one dispatch), and its spans are the
text's own. Their values are taken from the narrowed text where none holds a stand-in
(a stand-in's value would not be the text's); the new text is written from the text
itself a piece at a time (``_pending.py``), and a text kept as it is is written from it
if its line is written anew. The suspects read the narrowed new text: their patterns,
as every finder's, read a stand-in as the character it stands for. A value under a
secret's key is replaced whole where its ends tell it is no stand-in
(``_long_secret.py``). A span over a stand-in, a file-wide value with a wide character
or the stand-in in it, or a secret's value whose ends do not tell, makes the text be
decoded whole and handed to the scrubber as before: the same answer, at the old cost.
A text with mathematical letters narrowed is read with its stand-ins folded as the
letters (``_stand_in_folds.py``), its spans kept apart from other texts'; where a finder
decodes one of its stand-ins, it too is read whole.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ._long_secret import replaced_whole
from ._narrow import STAND_INS, LongText, Narrowed, alike
from ._pending import joined, new_pieces
from ._rule import Rule
from ._scrub import _SHORT_KEPT, Hit, Hits, Scrubber, TextKey, _text_key, _value_key
from ._span_list import Span, held
from ._stand_in_folds import StandInDecoded, folding
from ._suspects import SUSPECT, suspects_of_pieces
from ._view_suspects import Found, ViewSuspects, kept


@dataclass
class LongTextScrubber(Scrubber):
    """A scrubber that reads a :class:`LongText` narrowed where that gives the text's
    own answer."""

    #: per stand-in, whether a file-wide form holds it or a wide character (and how
    #: many forms there were when that was worked out)
    _wide_forms_of: dict[str, tuple[int, bool]] = field(default_factory=dict)
    #: the spans and view suspects of each text with mathematical letters narrowed, by
    #: its key and its stand-ins' folds (None: read whole); see :meth:`_folded_spans`
    _folded_found: dict[tuple[TextKey, str], tuple[Sequence[Span], tuple[Found, ...]] | None] = (
        field(default_factory=dict)
    )

    def _string(self, text: str, path: str, secret: bool, hits: Hits | None) -> str:
        if not isinstance(text, LongText):
            return super()._string(text, path, secret, hits)
        source = text.source
        narrow = source.narrow
        # pass 2 reads the file-wide values
        wide = hits is not None and self._wide_forms(source.stand_ins + source.letters)
        if secret:  # replaced whole where its ends tell it is no stand-in
            new = replaced_whole(self, text, path, hits)
            return self._read_whole(text, path, secret, hits) if new is None else new
        if wide or not vouched(self.rules, bool(source.letters)):
            return self._read_whole(text, path, secret, hits)
        if source.folds:
            read = self._folded_spans(source)
            if read is None:  # a stand-in decoded: the text is read whole
                return self._read_whole(text, path, secret, hits)
            spans, before, in_views = read
        else:
            (spans, before), in_views = self._cached_spans(narrow), None
        if _over_stand_in(narrow, source.stand_ins, spans):
            return self._read_whole(text, path, secret, hits)
        if hits is None:
            if not before:  # as ``learn_text``, with the spans it would find
                for span in spans:
                    value = _value_key(narrow, span.start, span.end)
                    self._learn_value(value, span.rule, span.confident)
                    if span.alias is not None:
                        self._learn_value(span.alias, span.rule, span.confident)
            return text
        cuts = self._cuts(narrow, path, hits, spans)
        if self.secret_keys:
            found = suspects_of_pieces(lambda: new_pieces(narrow, cuts))
            hits.extend(Hit(path, SUSPECT, why) for why in found)
            if in_views is None:
                self._view_hits(narrow, path, hits, cuts)  # the narrowed text's views
            else:
                hits.extend(Hit(path, SUSPECT, why) for why in kept(in_views, cuts))
        if not cuts:
            return self._kept(text)
        if self.pending is None:
            return joined(source.whole(), cuts)
        return self.pending.stand_in(source, cuts)

    def _folded_spans(
        self, source: Narrowed
    ) -> tuple[Sequence[Span], bool, tuple[Found, ...]] | None:
        """The spans of a text with mathematical letters narrowed, whether they were
        found before, and its views' suspects; None where a finder decoded one of its
        stand-ins (``_stand_in_folds``). Its stand-ins fold as the letters do: the same
        narrowed text with other letters folds otherwise, so these are kept apart from
        every other text's (``_cached_spans``)."""
        narrow = source.narrow
        key = (_text_key(narrow), "".join(f"{a}{b}" for a, b in sorted(source.folds.items())))
        if key in self._folded_found:
            known = self._folded_found[key]
            return None if known is None else (known[0], True, known[1])
        note = ViewSuspects(narrow) if self.secret_keys else None
        try:
            with folding(source.folds, narrow):
                found = held(self.spans(narrow, note))
        except StandInDecoded:
            if len(self._folded_found) < _SHORT_KEPT:
                self._folded_found[key] = None
            return None
        in_views = tuple(note.found) if note is not None else ()
        if len(self._folded_found) < _SHORT_KEPT:  # as many as ``_cached_spans`` keeps
            self._folded_found[key] = (found, in_views)
        return found, False, in_views

    def forget(self) -> None:
        super().forget()
        self._folded_found.clear()

    def _wide_forms(self, chars: str) -> bool:
        """Whether a file-wide value (or a form of one) holds a character a stand-in
        stands for, or one of ``chars`` (the text's stand-ins and the letters narrowed):
        it would be found in the narrowed text where it is not in the text, or not where
        it is."""
        self.matcher()
        known = self._wide_forms_of.get(chars)
        if known is None or known[0] != len(self._forms):
            wide = any(
                _narrows(form) or any(char in form for char in chars) for form in self._forms
            )
            known = self._wide_forms_of[chars] = (len(self._forms), wide)
        return known[1]

    def _read_whole(self, text: LongText, path: str, secret: bool, hits: Hits | None) -> str:
        whole = text.source.whole()
        new = super()._string(whole, path, secret, hits)
        return self._kept(text) if new is whole else new

    def _kept(self, text: LongText) -> str:
        """``text`` itself (the line unchanged by it), written from the text if the line
        is written anew."""
        if self.pending is not None:
            self.pending.keep(text, text.source)
        return text


def vouched(rules: list[Rule], letters: bool = False) -> bool:
    """Whether every rule reads a stand-in as it reads a narrowed character: a pattern
    that names no character beyond ASCII (as itself or an escape), a finder of this
    package's (``_narrow.alike`` is made for those); where ``letters`` (or a hidden
    mark) were narrowed,
    a pattern that names no character beyond ASCII as itself."""
    return all(_vouched(rule) and not (letters and _names_wide(rule)) for rule in rules)


@functools.lru_cache(maxsize=1024)
def _names_wide(rule: Rule) -> bool:
    """Whether a pattern of ``rule`` names, as itself, a letter or a hidden mark beyond
    ASCII, or a character of Latin-1 (a letter or mark narrowed, or one that stands for
    one; an escape is read by :func:`_vouched`)."""
    patterns = [rule.pattern, *(rule.shape or ())]
    return any(p is not None and any(map(_one_for_one, p.pattern)) for p in patterns)


def _one_for_one(char: str) -> bool:
    return char > "\x7f" and (
        char <= "\xff" or char.isalpha() or unicodedata.category(char) == "Cf"
    )


@functools.lru_cache(maxsize=1024)
def _vouched(rule: Rule) -> bool:
    patterns = [rule.pattern, *(rule.shape or ())]
    if any(p is not None and not _ascii_pattern(p.pattern) for p in patterns):
        return False
    return rule.finder is None or rule.finder.__module__.startswith(__package__ or "-")


def _ascii_pattern(source: str) -> bool:
    """Whether ``source`` names no character a stand-in stands for, nor a stand-in: a
    character beyond ASCII it names is none of those (``…`` is not), and none is named by
    an escape or ends a range."""
    if _WIDE_ESCAPE.search(source) is not None or _WIDE_RANGE.search(source) is not None:
        return False
    return all(not alike(char) and char not in STAND_INS for char in source if ord(char) > 127)


#: an escape that names a character beyond ASCII (``\\u2019``, ``\\N{...}``, ``\\xa6``)
_WIDE_ESCAPE = re.compile(r"\\(?:[uUN]|x[89a-fA-F]|[23][0-7]{2})")
#: a range with an end beyond ASCII
_WIDE_RANGE = re.compile(r"[^\x00-\x7f]-|-[^\x00-\x7f]")


def _narrows(text: str) -> bool:
    """Whether ``text`` holds a character a narrowed text holds a stand-in for."""
    return not text.isascii() and any(char > "\xff" and alike(char) for char in text)


def _over_stand_in(narrow: str, stand_ins: str, spans: Iterable[Span]) -> bool:
    """Whether a span's value (or a wrapped key's joined value) holds a stand-in."""
    return any(
        narrow.find(stand_in, span.start, span.end) >= 0
        or (span.alias is not None and stand_in in span.alias)
        for span in spans
        for stand_in in stand_ins
    )
