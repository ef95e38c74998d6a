"""Secrets in disguise: text read as a person or a program would read it.

Why: an attack hid every kind of secret by writing it the way terminals, pages and mail
write text: colour codes between its letters (a coloured ``grep``), zero-width
characters, full-width letters, HTML entities, ``\\u``/``\\x`` escapes, quoted-printable
with its soft line breaks, base32, base64url without padding, gzip inside base64. The
rules read plain text, so each disguise is taken off in a *view* of the text whose
characters keep where they came from; what the rules find in a view is replaced in the
text as written (the disguise with it). An encoded blob (base32, base64url, gzip) whose
decoded text holds a secret is replaced whole, as base64 is.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import functools
import re
import unicodedata
import urllib.parse
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, cast

from ._byte_forms import byte_forms, utf16_text
from ._encodings import class_runs
from ._engine import EXACT, FOLD, literals, run
from ._prefilter import windows
from ._stand_in_folds import Folding, StandInDecoded, current
from ._stretches import stretched_views


class Origin:
    """Where each character of a view came from in the text, kept as stretches: a stretch
    copied as it was, or one disguise's stand-in (all its characters map to the whole
    disguise). A list of positions would cost tens of bytes a character of a long text;
    stretches cost a few per disguise."""

    __slots__ = ("_at", "_from", "_to")

    def __init__(self) -> None:
        self._at: list[int] = []  # where each stretch starts in the view
        self._from: list[int] = []  # where it starts in the text
        self._to: list[int] = []  # a stand-in's end in the text; -1 for a copy

    def add(self, at: int, start: int, end: int = -1) -> None:
        self._at.append(at)
        self._from.append(start)
        self._to.append(end)

    def shifted(self, by: int) -> Origin:
        """The same stretches, of a view of the text from ``by`` on."""
        moved = Origin()
        for at, start, end in zip(self._at, self._from, self._to, strict=True):
            moved.add(at, start + by, end + by if end >= 0 else -1)
        return moved

    def start(self, i: int) -> int:
        """Where view character ``i`` starts in the text."""
        k = bisect.bisect_right(self._at, i) - 1
        return self._from[k] + (i - self._at[k]) if self._to[k] < 0 else self._from[k]

    def end(self, i: int) -> int:
        """Where view character ``i`` ends in the text."""
        k = bisect.bisect_right(self._at, i) - 1
        return self._from[k] + (i - self._at[k]) + 1 if self._to[k] < 0 else self._to[k]


#: (view, where its characters came from)
View = tuple[str, Origin]

#: what a terminal shows as nothing: colour and cursor codes, zero-width characters
_HIDDEN = re.compile(
    r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\x1b]{0,200}(?:\x07|\x1b\\)|\x1b[()][A-Z0-9]"
    r"|[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]"
)
#: letters and digits in another form that NFKC folds to ASCII (full-width, mathematical)
_FOLDABLE = re.compile(r"[\uff01-\uff5e\U0001d400-\U0001d7ff\u2460-\u24ff]")
#: an escape of one character: an HTML entity, ``\\uXXXX``, ``\\xXX``
_ESCAPE = re.compile(
    r"&#[xX][0-9a-fA-F]{1,6};|&#\d{1,7};|&(?:amp|lt|gt|quot|apos);"
    r"|\\+u[0-9a-fA-F]{4}|\\+x[c-fC-F][0-9a-fA-F](?:\\+x[89abAB][0-9a-fA-F]){1,3}"
    r"|\\+x[0-9a-fA-F]{2}"
)
#: what every ``_ESCAPE`` match holds (its ``&``, or its last backslash and letter),
#: searched in C: a text without one is not tried at every character by the pattern
_ESCAPE_MARKS = re.compile(r"&|\\[ux]")
_ENTITIES = {"&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&apos;": "'"}
#: quoted-printable: ``=XX`` and soft line breaks (``=`` at a line's end)
_QP = re.compile(r"=[C-F][0-9A-F](?:=[89AB][0-9A-F]){1,3}|=[0-9A-F]{2}|=\r?\n")
#: a text that names it (searched, not lower-cased: ``lower`` copies a non-ASCII text
#: into a buffer of 12 bytes a character)
_QP_NAMED = re.compile("quoted-printable", re.IGNORECASE)
#: runs of base32, of base64url or unpadded base64, of gzip in base64 (``H4sI``)
_BASE32_RUN = re.compile(r"(?<![A-Za-z0-9+/=_\-])[A-Z2-7]{16,}={0,6}(?![A-Za-z0-9+/=_\-])")
_BASE32_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
_BASE32_AROUND = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-"
#: a run of 16 of base32's characters, anywhere: every ``_BASE32_RUN`` match is one
_BASE32_ANY = run(_BASE32_CHARS, 16)
#: a text longer than this is first scanned in C for what a pattern needs (a shorter one,
#: a decoded window among them, is searched as it is: the scan copies a piece at a time)
_SCANNED = 1 << 20
run(_BASE32_CHARS, 16, _BASE32_AROUND).in_text("-")  # the same (its peak is redaction's)
_URLSAFE_RUN = re.compile(r"(?<![A-Za-z0-9+/_\-])[A-Za-z0-9_\-+/]{20,}={0,2}(?![A-Za-z0-9+/=_\-])")
#: the longest decoded blob read, and the most a gzip blob is inflated to
_MAX_DECODED = 1 << 20


def _escape_char(token: str) -> str:
    if token.startswith("&#"):
        number = token[3:-1] if token[2] in "xX" else token[2:-1]
        code = int(number, 16 if token[2] in "xX" else 10)
        return chr(code) if code <= 0x10FFFF else "?"
    if token.startswith("&"):
        return _ENTITIES[token]
    if token.count("x") > 1:  # the bytes of one UTF-8 character
        raw = bytes(int(h, 16) for h in re.findall(r"x([0-9a-fA-F]{2})", token))
        return raw.decode("utf-8", "replace")
    return chr(int(token.lstrip("\\")[1:], 16))


def _deleted(text: str, pattern: re.Pattern[str]) -> View:
    return _replaced(text, pattern, lambda _: "")


def _replaced(
    text: str, pattern: re.Pattern[str] | Iterable[re.Match[str]], char: Callable[[str], str]
) -> View:
    parts: list[str] = []
    origin = Origin()
    at = 0  # in the text
    size = 0  # of the view so far
    folding = current()
    for m in pattern.finditer(text) if isinstance(pattern, re.Pattern) else pattern:
        if m.start() > at:
            origin.add(size, at)
            parts.append(text[at : m.start()])
            size += m.start() - at
        new = char(m.group())
        if folding is not None and new and folding.holds(new):
            raise StandInDecoded  # decoded: no stand-in, but the view cannot tell
        if new:
            origin.add(size, m.start(), m.end())
            parts.append(new)
            size += len(new)
        at = m.end()
    if at < len(text):
        origin.add(size, at)
        parts.append(text[at:])
    return "".join(parts), origin


#: letters of Cyrillic, Greek and other scripts drawn like one ASCII letter: Unicode's
#: confusables (UTS #39) for these letters, which NFKC leaves as they are. Only letters
#: that map to one ASCII letter are listed, so a view keeps every position
SKELETON = str.maketrans(
    "аАвВсСеЕһНіІјЈкКмМоОрРԛԚѕЅтТхХуУүҮԝԜԁӏɑαΑβΒεΕζΖηΗιΙκΚμΜνΝοΟρΡτΤυΥχΧϲϳ",
    "aABBcCeEhHiIjJKKMMoOpPqQsSTTxXyYyYwWdlaaABBeEZZnHiIKKuMvNoOpPTTuYXXcj",
)
_LOOKALIKE = re.compile("[аАвВсСеЕһНіІјЈкКмМоОрРԛԚѕЅтТхХуУүҮԝԜԁӏɑαΑβΒεΕζΖηΗιΙκΚμΜνΝοΟρΡτΤυΥχΧϲϳ]")
#: a shell line continuation (a backslash ending a line) and the next line's indent
_CONTINUATION = re.compile(r"\\\r?\n[ \t]*")
#: where two string literals are joined into one: ``"ab" "cd"`` (Python, C), ``"ab""cd"``
#: (shell), ``'ab' + 'cd'``, ``"ab" .. "cd"``, across a line; ``f"{'ab'}"`` and
#: ``${'ab'}`` (f-strings, template literals); ``"".join(["ab", "cd"])``; a string's
#: prefix letter (``f"``) and an opening parenthesis after ``=`` (Python's implicit
#: concatenation is written in one)
_JOINT = re.compile(
    r"(?<=[\w\-+/=.~!@#%^&*]{4})[\"'`][ \t]*(?:\+|\.\.?|\\)?[ \t]*(?:\r?\n[ \t]*)?"
    r"(?:[fFrRbBuU]{1,2})?[\"'`](?=[\w\-+/=.~!@#%^&*]{4})"
    r"|(?<=[\"'`])\$?\{[\"'](?=[\w\-])"
    r"|(?<=[\w\-])[\"']\}(?:[\"'`][ \t]*(?:[fFrRbBuU]{1,2})?[\"'`])?"
    r"|(?<=[=:(\s])[fFrRbBuU]{1,2}(?=[\"'][\w\-{])"
    r"|(?<=[=:])[ \t]*\([ \t]*\r?\n[ \t]*(?=[fFrRbBuU]{0,2}[\"'])"
    r"|(?:\"\"|'')\.join\(\[?"
)
#: ``"ab", "cd"`` joins only in a list that ``join`` takes
_LISTED = re.compile(r"(?<=[\w\-]{4})[\"'],[ \t]*(?:\r?\n[ \t]*)?[\"'](?=[\w\-]{4})")


def _joints(text: str) -> Iterator[re.Match[str]]:
    """The joints of string literals in ``text``, in order."""
    if not any(q in text for q in ('"', "'", "`")):
        return
    # the patterns tried only where a Hyperscan scan finds they can match (``_prefilter``)
    found = list(windows(_JOINT).finditer(text))
    if ".join(" in text:
        found += windows(_LISTED).finditer(text)
        found.sort(key=lambda m: m.start())
    at = 0
    for m in found:
        if m.start() >= at:
            at = m.end()
            yield m


#: a run of percent escapes, once or more encoded (``%2541`` is ``%41`` is ``A``)
_PERCENT_RUN = re.compile(r"(?:%(?:25)*[0-9A-Fa-f]{2})+")


def _unpercent(run: str) -> str:
    for _ in range(4):
        decoded = urllib.parse.unquote(run)
        if decoded == run:
            break
        run = decoded
    return run


#: how far around a joint its window reaches (a key's name before it, the rest after)
_JOINT_REACH = 240


def _joined_windows(text: str) -> Iterator[View]:
    """Each stretch of ``text`` around joined literals, with the literals joined: only
    the stretch, so that a long file with one ``"a" + "b"`` is not read whole again."""
    joints = list(_joints(text))
    windows: list[tuple[int, int]] = []
    for m in joints:
        if not m.group().strip(" \t\r\n(fFrRbBuU"):
            continue  # a string's prefix or an opening parenthesis joins nothing alone
        start, end = max(0, m.start() - _JOINT_REACH), min(len(text), m.end() + _JOINT_REACH)
        if windows and start <= windows[-1][1]:
            windows[-1] = (windows[-1][0], end)
        else:
            windows.append((start, end))
    for start, end in windows:
        inside = [m for m in joints if start <= m.start() and m.end() <= end]
        view, origin = _replaced(text[start:end], _moved(inside, start), _joint_char)
        yield view, origin.shifted(start)


class _Moved:
    """A match's text and span, moved ``by`` characters to the left."""

    __slots__ = ("_by", "_m")

    def __init__(self, m: re.Match[str], by: int) -> None:
        self._m, self._by = m, by

    def group(self) -> str:
        return self._m.group()

    def start(self) -> int:
        return self._m.start() - self._by

    def end(self) -> int:
        return self._m.end() - self._by


def _moved(matches: list[re.Match[str]], by: int) -> list[Any]:
    return [_Moved(m, by) for m in matches]


def _joint_char(token: str) -> str:
    """What a joint reads as: nothing, or a blank for the parenthesis after ``=``."""
    return " " if token.strip().startswith("(") else ""


def _fold(char: str) -> str:
    folded = unicodedata.normalize("NFKC", char)
    return folded if len(folded) == 1 and folded.isascii() else char


def _foldable() -> dict[int, str]:
    ranges = ((0xFF01, 0xFF5E), (0x1D400, 0x1D7FF), (0x2460, 0x24FF))
    chars = (chr(code) for low, high in ranges for code in range(low, high + 1))
    return {ord(char): _fold(char) for char in chars if _fold(char) != char}


#: each character of ``_FOLDABLE`` that folds, as what it folds to: one ASCII character
#: for one, so a folded view keeps every position
_FOLDS = _foldable()


def _folded(text: str, folds: dict[int, str] = _FOLDS) -> View:
    return text.translate(folds), _identity(text)[1]


def _fold_parts(folding: Folding | None) -> tuple[re.Pattern[str], dict[int, str]]:
    """What the folded view folds: ``_FOLDABLE``'s characters as ``_FOLDS``, and while a
    narrowed text is read (``folding``) its stand-ins as their letters fold."""
    if folding is None:
        return _FOLDABLE, _FOLDS
    return _stand_in_parts(tuple(sorted(folding.folds.items())))


@functools.lru_cache(maxsize=64)
def _stand_in_parts(folds: tuple[tuple[str, str], ...]) -> tuple[re.Pattern[str], dict[int, str]]:
    stand_ins = re.escape("".join(stand for stand, _ in folds))
    pattern = re.compile(_FOLDABLE.pattern[:-1] + stand_ins + "]")
    return pattern, {**_FOLDS, **{ord(stand): fold for stand, fold in folds}}


#: a CSV field in quotes whose quotes inside are doubled (``"{""key"": ""value""}"``):
#: its opening quote is the text's first character or follows a separator, tested after
#: the quote is read, so that the search skips to each quote (in C) rather than trying
#: the pattern at every character
_CSV_FIELD = re.compile(r'"(?:(?<=^")|(?<=[,\t\n]"))(?:[^"]|"")*"(?=[,\t\r\n]|$)')
_DOUBLED = re.compile('""')


def _csv_doubled(text: str) -> Iterator[re.Match[str]]:
    if not (text.startswith('"') or ',"' in text or '\t"' in text or '\n"' in text):
        return  # no quote a field can start at
    for field in _CSV_FIELD.finditer(text):
        if '""' in field.group()[1:-1]:
            yield from _DOUBLED.finditer(text, field.start() + 1, field.end() - 1)


def _qp_char(token: str) -> str:
    if token[1] in "\r\n":
        return ""
    if len(token) > 3:  # the bytes of one UTF-8 character
        return bytes(int(h, 16) for h in token[1:].split("=")).decode("utf-8", "replace")
    return chr(int(token[1:], 16))


#: the bounds of a Markdown link's target: ``](<target>)``, ``](target)``
_LINK_BOUNDS = re.compile(r"\]\(<?|>?\)")


def _identity(text: str) -> View:
    origin = Origin()
    origin.add(0, 0)
    return text, origin


#: the substrings that tell ``views`` a disguise may be there (an escape's ``&``,
#: ``\\u`` or ``\\x`` among them), and the name of quoted-printable (its search is
#: ``_QP_NAMED``'s, without regard to ASCII case)
_TELLS = ("\\\n", "\\\r\n", "%25", "](", '""', "=3D", "&", "\\u", "\\x")
_VIEW_TELLS = literals((*((tell, EXACT) for tell in _TELLS), ("quoted-printable", FOLD)))
_VIEW_TELLS.present("-")  # compiled and its scratch made now, not within a long line's


#: a text this long or longer has its tells found by one Hyperscan pass (a shorter one's
#: substring searches cost less than the call)
_TOLD = 256


def _tells(text: str) -> tuple[Callable[[str], bool], Callable[[], bool]]:
    """Tests of whether ``text`` holds one of ``_TELLS``, and whether it names
    quoted-printable: for all but a short text, one pass of Hyperscan for all (when it
    can answer for the text), not one search of the text each."""
    found = _VIEW_TELLS.present(text) if len(text) >= _TOLD else None
    if found is None:
        return text.__contains__, lambda: _named_qp(text)
    held = {_TELLS[i] for i in found if i < len(_TELLS)}
    named = len(_TELLS) in found
    return held.__contains__, lambda: named


def _named_qp(text: str) -> bool:
    """Whether ``text`` names quoted-printable: ``_QP_NAMED.search``, tried only where
    the name's ``-p`` stands (substring searches in C; no character but ``p`` and ``P``
    is ``p`` to a search that ignores case), since the search is tried at every
    character."""
    return ("-p" in text or "-P" in text) and _QP_NAMED.search(text) is not None


def views(text: str) -> Iterator[View]:
    """The text with each disguise it shows taken off (none when it shows none); while a
    narrowed text is read (``_stand_in_folds``), its stand-ins folded as their letters."""
    folding = current()
    if folding is not None:
        folding.check(text)
    wide = not text.isascii()  # look-alikes, hidden marks but ESC, and folds are not ASCII
    holds, names_qp = _tells(text)
    if wide and _LOOKALIKE.search(text):  # one letter for one: the view keeps every position
        yield text.translate(SKELETON), _identity(text)[1]
    if holds("\\\n") or holds("\\\r\n"):
        yield _deleted(text, _CONTINUATION)
    if holds("%25") and len(text) <= _MAX_DECODED:  # percent-encoded twice, run by run
        yield _replaced(text, _PERCENT_RUN, _unpercent)
    yield from _joined_windows(text)
    if holds("]("):  # a link's target read as lines of its own
        yield _replaced(text, _LINK_BOUNDS, lambda _: "\n")
    if (wide or "\x1b" in text) and _HIDDEN.search(text):
        yield from stretched_views(text, _HIDDEN, lambda part: _deleted(part, _HIDDEN))
    foldable, folds = _fold_parts(folding) if wide else (_FOLDABLE, _FOLDS)
    if wide and foldable.search(text):
        yield from stretched_views(text, foldable, lambda part: _folded(part, folds))
    marked = holds("&") or holds("\\u") or holds("\\x")  # somewhere, if not in the first 4096
    if marked and _ESCAPE_MARKS.search(text, 0, 4096) and len(_ESCAPE.findall(text, 0, 4096)) >= 2:
        yield _replaced(text, _ESCAPE, _escape_char)
    if holds('""') and any(_csv_doubled(text)):
        yield _replaced(text, _csv_doubled(text), lambda _: '"')
    if holds("=3D") or ("-" in text and names_qp()):
        yield _replaced(text, _QP, _qp_char)


def _printable(decoded: str) -> bool:
    return len(decoded) >= 8 and all(c.isprintable() or c in "\n\r\t" for c in decoded)


def _as_text(raw: bytes | bytearray) -> str | None:
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = zlib.decompressobj(wbits=31).decompress(raw, _MAX_DECODED)
        except zlib.error:
            return None
    try:
        decoded: str | None = raw.decode("utf-8")
    except UnicodeDecodeError:
        decoded = None
    if decoded is None or not _printable(decoded):  # UTF-16 (``-EncodedCommand``)
        decoded = utf16_text(cast(bytes, raw))  # it reads a bytearray alike, uncopied
    return decoded.lstrip("\ufeff") if decoded is not None and _printable(decoded) else None


def base32_runs(text: str) -> Iterator[tuple[int, int]]:
    """The spans of ``_BASE32_RUN.finditer(text)`` (the pattern, led by a lookbehind, is
    tried at every character): a text is first tested in C for a run of 16 (a long one,
    for a run after a character outside the run's set; without one, only a run at the
    start, which follows no character, can match, and the pattern is tried there alone)."""
    if len(text) <= _SCANNED and not _BASE32_ANY.in_text(text):  # in C: no run, no match
        return
    if len(text) > _SCANNED and not run(_BASE32_CHARS, 16, _BASE32_AROUND).in_text(text):
        first = _BASE32_RUN.match(text)
        if first is not None:
            yield first.span()
        return
    for m in _BASE32_RUN.finditer(text):
        yield m.span()


#: each character of a base64url run as ``c``, any other Latin-1 character as ``.``
_URLSAFE_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+/"
_URLSAFE_SET = frozenset(_URLSAFE_CHARS)
_URLSAFE_CLASS = bytes(0x63 if chr(b) in _URLSAFE_SET else 0x2E for b in range(256))
#: a run of 20 of base64url's characters, anywhere: every ``_URLSAFE_RUN`` match is one
_URLSAFE_ANY = run(_URLSAFE_CHARS, 20)
_EQUALS = re.compile("=*")


def urlsafe_runs(text: str) -> Iterator[tuple[int, int]]:
    """The spans of ``_URLSAFE_RUN.finditer(text)``. The pattern, led by a lookbehind, is
    tried at every character; a text's runs are instead found in its Latin-1 bytes
    mapped to one byte per class (``bytes.find`` in C), a piece at a time. A match is a
    whole run (it follows no run character) of 20 or more, its ``=`` padding (at most
    two) and then no character of the run; a piece wider than Latin-1 is left to the
    pattern, from the run being read on (or the piece's start)."""
    if len(text) <= _SCANNED and not _URLSAFE_ANY.in_text(text):  # in C: no run, no match
        return
    for start, end in class_runs(text, _URLSAFE_CLASS, 20):
        if end < 0:  # a piece wider than Latin-1: the pattern reads on from ``start``
            yield from (m.span() for m in _URLSAFE_RUN.finditer(text, start))
            return
        span = _urlsafe_match(text, start, end)
        if span is not None:
            yield span


def _urlsafe_match(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The match the whole run ``text[start:end]`` makes, if it makes one."""
    if end - start < 20:
        return None
    padded = _EQUALS.match(text, end).end()  # type: ignore[union-attr]
    if padded - end > 2 or text[padded : padded + 1] in _URLSAFE_SET:
        return None
    return start, padded


def blobs(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, decoded text) of each base32, base64url or gzip blob that is text."""
    for start, end in base32_runs(text):
        run = text[start:end].rstrip("=")
        if len(run) > _MAX_DECODED or len(run) % 8 in (1, 3, 6):
            continue
        try:
            decoded = _as_text(base64.b32decode(run + "=" * (-len(run) % 8)))
        except (ValueError, binascii.Error):
            continue
        if decoded is not None:
            yield start, end, decoded
    for start, end in urlsafe_runs(text):
        if end - start <= _REMEMBERED_RUN:  # the same ids and names stand in many texts
            found = _remembered_urlsafe(text[start:end])
        else:
            found = _urlsafe_texts(text, start, end)
        for decoded in found:
            yield start, end, decoded


def _urlsafe_texts(text: str, start: int, end: int) -> tuple[str, ...]:
    """The text the base64url run ``text[start:end]`` decodes to, and the text that
    decodes to in turn when it is base64 itself (none, one or both)."""
    stop = end
    while stop > start and text[stop - 1] == "=":
        stop -= 1
    if stop - start > _MAX_DECODED or (stop - start) % 4 == 1:
        return ()
    try:
        raw = _base64_decoded(text, start, stop)
    except (ValueError, binascii.Error):
        return ()
    decoded = _as_text(raw)
    if decoded is None:
        return ()
    inner = decoded.strip()
    if _URLSAFE_RUN.fullmatch(inner) and len(inner) % 4 == 0:  # base64 of base64
        try:
            twice = _as_text(base64.b64decode(inner, validate=True))
        except (ValueError, binascii.Error):
            return (decoded,)
        if twice is not None:
            return decoded, twice
    return (decoded,)


#: a base64url run this short is decoded once a redaction for each of the last runs read
#: (a few hundred bytes each at most, so that they add little to a redaction's peak)
_REMEMBERED_RUN = 128


@functools.lru_cache(maxsize=512)
def _remembered_urlsafe(run: str) -> tuple[str, ...]:
    return _urlsafe_texts(run, 0, len(run))


def forget_decoded_runs() -> None:
    """Drop the decoded runs remembered: what they decode to may be a secret, and is
    not kept in the process once its redaction is over."""
    _remembered_urlsafe.cache_clear()


#: how many characters of a base64 run are decoded at a time (whole groups of 4)
_B64_PIECE = 1 << 16
#: base64url's two letters as base64's (a run may mix the two alphabets)
_URLSAFE_TO_B64 = bytes.maketrans(b"-_", b"+/")


def _base64_decoded(text: str, start: int, stop: int) -> bytearray:
    """The bytes of the base64 or base64url run ``text[start:stop]`` (no padding in it),
    decoded a piece at a time: a whole copy of the run, and of it with its letters
    swapped, would be held beside the text (base64 decodes each group of 4 alone)."""
    out = bytearray()
    for at in range(start, stop, _B64_PIECE):
        piece = text[at : min(stop, at + _B64_PIECE)].encode("ascii").translate(_URLSAFE_TO_B64)
        if at + _B64_PIECE >= stop:
            piece += b"=" * (-(stop - start) % 4)
        out += binascii.a2b_base64(piece)
    return out


def disguised_spans(
    text: str, find: Callable[[str], Sequence[Any]], encoded: Any, note: Any = None
) -> list[tuple[int, int, Any, bool]]:
    """(start, end, rule, confident) in ``text`` of what ``find`` finds in its views,
    and of each blob whose decoded text ``find`` finds anything in (as ``encoded``).
    ``note`` (a ``_view_suspects.ViewSuspects``) reads every view (with what ``find``
    found in it), and every blob that ``find`` finds nothing in, for suspects."""
    out: list[tuple[int, int, Any, bool]] = []
    folding = current()
    copies = folding.copies if folding is not None and folding.allows(text) else None
    for view, origin in views(text):
        if copies is not None:  # its letters copied from the narrowed text's
            copies.add(id(view))
        found = [s for s in find(view) if 0 <= s.start < s.end <= len(view)]
        if copies is not None:
            copies.discard(id(view))
        if note is not None:
            note.view(view, origin, found)
        for span in found:
            start, end = origin.start(span.start), origin.end(span.end - 1)
            out.append((start, end, span.rule, span.confident))
    for start, end, decoded in (*blobs(text), *byte_forms(text)):
        if find(decoded):
            out.append((start, end, encoded, True))
        elif note is not None:
            note.blob(start, end, decoded)
    return out
