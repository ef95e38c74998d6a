"""Where encoded or wrapped text may hide a secret, and one regex for many secrets.

Why apart: the scrubber decodes base64, percent- and hex-encoding, reads diffs without
their marks and tokens wrapped over lines; these patterns say where such text is. Each
is written without a repeated group, so that a run of any length costs the regex engine
no memory (a repeated group keeps state for every repetition). ``trie_pattern`` turns the
thousands of values replaced file-wide into one regex whose cost does not grow with
their number.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

#: a line break inside a run of token characters (a wrapped key), with the runs around it
WRAP = re.compile(r"(?<=[A-Za-z0-9+/=_\-])\r?\n[ \t]*(?=[A-Za-z0-9+/_\-])")
TAIL_RUN = re.compile(r"[A-Za-z0-9+/=_\-.~]{8,}$")
HEAD_RUN = re.compile(r"[A-Za-z0-9+/_\-.~]+")
#: a run that may be base64 of 20+ characters, possibly wrapped at a fixed width
#: (``base64`` wraps at 76): plain character classes, so that a run of any length costs
#: the regex no memory; its padding and length are checked after (``base64_blob``)
BASE64_RUN = re.compile(
    r"(?<![A-Za-z0-9+/=_\-])[A-Za-z0-9+/]{20,}={0,2}"
    r"(?:\r?\n[A-Za-z0-9+/]{4,}={0,2})*(?![A-Za-z0-9+/=_\-])"
)
#: each base64 character as ``c``, any other Latin-1 character as ``.``
_BASE64_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
_BASE64_CLASS = bytes(0x63 if chr(b) in _BASE64_CHARS else 0x2E for b in range(256))
#: what may neither come before nor after a match of ``BASE64_RUN``
_BASE64_AROUND = _BASE64_CHARS | frozenset("=_-")
_BASE64_MORE = re.compile(r"[A-Za-z0-9+/]*")
_EQUALS = re.compile("=*")
_PADDING_INSIDE = re.compile(r"=+[^=]")
_PADDING_RUN = re.compile("=+")
#: how much of a long base64 run is decoded to tell whether it is text
PREFIX = 4096


def base64_runs(text: str) -> Iterator[tuple[int, int]]:
    """The spans of ``BASE64_RUN.finditer(text)``. The pattern is tried at every
    character of a long run; a text longer than :data:`LONG` has its runs of base64
    characters found in its Latin-1 bytes mapped to one byte per class (``bytes.find``
    in C), a piece at a time, and the pattern's end (padding, lines it wraps onto, what
    may not follow) worked out at each run's end. A piece wider than Latin-1 is left to
    the pattern."""
    if len(text) <= LONG:
        yield from (m.span() for m in BASE64_RUN.finditer(text))
        return
    resume = 0  # where the last match ended
    for start, end in class_runs(text, _BASE64_CLASS, 20):
        if end < 0:  # a piece wider than Latin-1 from ``start`` on
            yield from (m.span() for m in BASE64_RUN.finditer(text, max(start, resume)))
            return
        if start < resume or end - start < 20:
            continue
        if start and text[start - 1] in _BASE64_AROUND:
            continue
        stop = _base64_end(text, end)
        if stop is not None:
            yield start, stop
            resume = stop


def _base64_end(text: str, end: int) -> int | None:
    """Where ``BASE64_RUN``'s match ends, given its first run ends at ``end``: after the
    most lines it wraps onto (each a line break, 4 or more characters, at most two ``=``)
    that leave no character of ``_BASE64_AROUND`` next; None when even the run and its
    padding do."""
    ends = [end + min(2, _reach(_EQUALS, text, end) - end)]
    while True:
        at = ends[-1]
        at += text.startswith("\r", at)
        if not text.startswith("\n", at):
            break
        more = _reach(_BASE64_MORE, text, at + 1)
        if more - at - 1 < 4:
            break
        ends.append(more + min(2, _reach(_EQUALS, text, more) - more))
    for stop in reversed(ends):
        if text[stop : stop + 1] not in _BASE64_AROUND:
            return stop
    return None


def _reach(pattern: re.Pattern[str], text: str, at: int) -> int:
    """Where ``pattern``, which matches the empty string too, ends from ``at``."""
    m = pattern.match(text, at)
    assert m is not None
    return m.end()


def class_runs(text: str, table: bytes, least: int = 1) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of each run of at least ``least`` of the characters ``table``
    maps to ``c``, in order; ``(where, -1)`` and no more once a piece is wider than
    Latin-1 (``where``: the start of the run being read, or of the piece).

    A run is found by ``bytes.find`` of ``least`` of ``c`` (in C), so that the words of
    prose, runs too short to matter, never come back to Python one by one."""
    first = b"c" * least
    start = -1  # where the run being read starts, -1 between runs
    for at in range(0, len(text), PIECE):
        try:
            piece = text[at : at + PIECE].encode("latin-1").translate(table)
        except UnicodeEncodeError:
            yield (start if start >= 0 else at), -1
            return
        i = 0
        while True:
            if start < 0:
                found = piece.find(first, i)
                if found < 0:
                    # a run at the piece's end may go on into the next (``i`` follows a
                    # run's end, or starts a piece that follows one, so it starts there)
                    tail = piece.rfind(b".", i) + 1
                    if tail < len(piece):
                        start = at + tail
                    break
                i = found
                start = at + i
            i = piece.find(b".", i)
            if i < 0:
                break  # the run goes on into the next piece
            if at + i - start >= least:
                yield start, at + i
            start = -1
    if start >= 0 and len(text) - start >= least:
        yield start, len(text)


def base64_blob(run: str) -> str | None:
    """The base64 of a run without its line breaks, when it is whole (4-character groups,
    padding at the end only)."""
    blob = run.replace("\r", "").replace("\n", "") if "\n" in run else run
    if len(blob) % 4 or _PADDING_INSIDE.search(blob):
        return None
    return blob


def base64_whole(text: str, start: int, end: int) -> bool:
    """:func:`base64_blob`'s test of ``text[start:end]`` in place (a long run, not copied).

    ``_PADDING_INSIDE`` finds a ``=`` followed by another character: there is one unless
    the first ``=`` begins a run of them to the end (a substring search, where the
    regex would be tried at every character of a long run)."""
    breaks = 0  # a run that holds no line break is not counted through (``find`` is memchr)
    if text.find("\n", start, end) >= 0 or text.find("\r", start, end) >= 0:
        breaks = text.count("\n", start, end) + text.count("\r", start, end)
    if (end - start - breaks) % 4:
        return False
    first = text.find("=", start, end)
    return first < 0 or _PADDING_RUN.match(text, first, end).end() == end  # type: ignore[union-attr]


def text_prefix(raw: bytes) -> bool:
    """Whether decoded bytes start as UTF-8 text (a cut character at the end allowed)."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start >= len(raw) - 3
    return True


#: a text longer than this is read without whole copies of it (lower-cased, encoded)
LONG = 1 << 20
#: how far around a line break a wrapped token is looked for
WRAP_WINDOW = 400


def nearby(joins: list[tuple[int, int]]) -> Iterator[list[tuple[int, int]]]:
    """Line breaks in groups whose windows overlap."""
    group: list[tuple[int, int]] = []
    for join in joins:
        if group and join[0] - group[-1][1] > 2 * WRAP_WINDOW:
            yield group
            group = []
        group.append(join)
    if group:
        yield group


#: a line a diff adds or removes, and the longest diff read without its marks
DIFF_HUNK = re.compile(r"(?:^|\n)@@ -\d")
MAX_DIFF = 1 << 20
#: a word of text (where a percent-encoded run is looked for), a run of hex bytes
WORD_RUN = re.compile(r"[^\s\"'<>]+")
PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
#: (a run of an even length is hex bytes; no repeated group, see above)
HEX_RUN = re.compile(r"(?<![0-9A-Fa-f])[0-9A-Fa-f]{20,}(?![0-9A-Fa-f])")


#: a long text is hashed and lower-cased a piece of this many characters at a time, so
#: that no copy of it is large
PIECE = 1 << 16
#: an encoded run longer than this is decoded a window at a time (each window overlapping
#: the last by ``OVERLAP``, so that a secret cut by one border lies whole in the next)
WINDOW = 1 << 18
OVERLAP = 1 << 12


def windows(start: int, end: int, align: int) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of each window over ``text[start:end]``, each starting a multiple
    of ``align`` characters after ``start``."""
    step = WINDOW - OVERLAP
    at = start
    while True:
        yield at, min(end, at + WINDOW)
        if at + WINDOW >= end:
            return
        at += step - step % align


def utf8_window(raw: bytes, first: bool, last: bool) -> str | None:
    """A window of decoded bytes as text, without the characters its borders cut; None
    when it is not UTF-8 text."""
    if not first:
        cut = 0
        while cut < 3 and cut < len(raw) and raw[cut] & 0xC0 == 0x80:
            cut += 1
        raw = raw[cut:]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        if last or exc.start < len(raw) - 3:
            return None
        try:
            return raw[: exc.start].decode("utf-8")
        except UnicodeDecodeError:
            return None


#: how deep a trie's groups nest before the rest of a branch is listed flat
_TRIE_DEPTH = 40


def trie_pattern(words: list[str]) -> str:
    """A regex that matches any of ``words``, the longest where several start at one
    place: a trie of them, so that each place in a text costs one walk down the trie
    rather than a try of every word (thousands of secrets in a big session)."""
    trie: dict[str, Any] = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}
    return _trie_node(trie, 0)


def _trie_node(node: dict[str, Any], depth: int) -> str:
    ends = "" in node
    children = [(ch, child) for ch, child in node.items() if ch]
    if not children:
        return ""
    if depth >= _TRIE_DEPTH:
        tails = sorted(_suffixes(node), key=len, reverse=True)
        return "(?:" + "|".join(re.escape(t) for t in tails) + (")?" if ends else ")")
    alts = []
    for ch, child in children:
        chain = ch
        while len(child) == 1 and "" not in child:
            ((nxt, child),) = child.items()
            chain += nxt
        alts.append(re.escape(chain) + _trie_node(child, depth + 1))
    body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
    return f"(?:{body})?" if ends else body


def _suffixes(node: dict[str, Any]) -> list[str]:
    """Every word below ``node`` (without what leads to it), walked without recursion."""
    out: list[str] = []
    stack: list[tuple[str, dict[str, Any]]] = [("", node)]
    while stack:
        prefix, at = stack.pop()
        for ch, child in at.items():
            if ch:
                stack.append((prefix + ch, child))
            elif prefix:
                out.append(prefix)
    return out
