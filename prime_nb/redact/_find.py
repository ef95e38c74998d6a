"""Finding the spans of one string: the rules, and what the rules read after decoding.

Apart from the scrubber (``_scrub``), which learns values and walks entries, because
reading one string (rules, wrapped tokens, base64, percent and hex runs, diffs, JSON in
strings, disguises) is one idea, and what is done with what is found is another.
"""

from __future__ import annotations

import base64
import bisect
import itertools
import json
import re
import urllib.parse
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import orjson

from ._disguise import disguised_spans
from ._encodings import (
    DIFF_HUNK,
    HEAD_RUN,
    HEX_RUN,
    LONG,
    MAX_DIFF,
    PERCENT,
    PIECE,
    PREFIX,
    WINDOW,
    WORD_RUN,
    WRAP,
    WRAP_WINDOW,
    base64_blob,
    base64_runs,
    base64_whole,
    class_runs,
    nearby,
    text_prefix,
    utf8_window,
    windows,
)
from ._engine import run
from ._findings import Findings, findings_spans
from ._literals import SHORT
from ._prefilter import windows as scan_windows
from ._rule import Rule, dispatch
from ._shapes import key_material
from ._span_list import Span, SpanList, held, not_in
from ._values import (
    escaped_forms,
    named_pair,
    secret_under,
    strongly_random,
    structural_stand_in,
)
from ._view_suspects import ViewSuspects

#: a value under a key that names a secret (``{"password": ...}``)
SECRET_FIELD = Rule("secret-field", confident=strongly_random)
#: base64 whose decoded text holds a secret
BASE64_SECRET = Rule("base64-secret")
#: percent- or hex-encoded text that holds a secret
ENCODED_SECRET = Rule("encoded-secret")
#: base64 of a private key without its ``-----BEGIN`` line
KEY_MATERIAL = Rule("private-key")

#: every ``HEX_RUN`` match holds this many of these in a row: a long text without such a
#: run is not scanned by the pattern (Python's ``re`` tries it at every character)
HEX_CHARS, HEX_LEAST = "0123456789ABCDEFabcdef", 20
run(HEX_CHARS, HEX_LEAST)  # compiled now, not within a long line's redaction
#: every ``BASE64_RUN`` match starts with this many base64 characters in a row: a text
#: without such a run (most prose and code) is not searched by the pattern
_BASE64_LEAST = run("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", 20)
#: every ``DIFF_HUNK`` match holds this: the pattern, led by an alternation, is tried at
#: every character of a text that lacks it
_DIFF_MARK = "@@ -"
#: each hex digit as ``c``, any other Latin-1 character as ``.`` (``class_runs``)
_HEX_CLASS = bytes(0x63 if chr(b) in HEX_CHARS else 0x2E for b in range(256))
#: a JSON string literal with an escape in it (a JSON log line, JSON quoted in a command)
_ESCAPED_LITERAL = re.compile(r'"[^"\\\n]*+(?:\\.[^"\\\n]*+)*+"')
#: how deep base64 inside base64, or JSON inside JSON strings, is followed
MAX_DEPTH = 2


#: ``TAIL_RUN`` as a test of a line's last characters: a run of at least its least
#: length ends the line where the last that many characters are all of its class
_TAIL_LEAST = 8
_TAIL = re.compile(rf"[A-Za-z0-9+/=_\-.~]{{{_TAIL_LEAST}}}")

#: the ``WRAP`` matches :meth:`SpanFinder._wrapped_spans` can keep, by their place: a
#: line whose last :data:`_TAIL_LEAST` characters are ``_TAIL``'s (``WRAP``'s lookbehind
#: the last of them), read by the scan of the text (``_prefilter``) and not in Python at
#: each line that ends in a token character. Its break is written as two alternatives
#: that each begin with a literal (they match as ``\r?\n`` does), so that Python's
#: search of a window skips to a break in C
_WRAP_LEAD, _WRAP_BREAK = r"(?<=[A-Za-z0-9+/=_\-])", r"\r?\n"
assert WRAP.pattern.startswith(_WRAP_LEAD + _WRAP_BREAK)  # the rest is ``WRAP``'s
_WRAP_TAILED = re.compile(
    rf"(?<=[A-Za-z0-9+/=_\-.~]{{{_TAIL_LEAST - 1}}}"
    + _WRAP_LEAD.removeprefix("(?<=")
    + r"(?:\r\n|\n)"
    + WRAP.pattern.removeprefix(_WRAP_LEAD + _WRAP_BREAK)
)

#: a character that ends a ``WORD_RUN``
_RUN_END = re.compile(r"[\s\"'<>]")


def percent_runs(text: str) -> Iterator[tuple[int, int]]:
    """The spans of the ``WORD_RUN`` matches that hold a ``PERCENT`` escape, in order:
    found from the escapes (every escape lies within one run), not by reading each
    word of the text."""
    end = 0
    for m in PERCENT.finditer(text):
        if m.start() < end:
            continue  # in the run just given
        start = m.start()
        while start > end and _RUN_END.match(text, start - 1) is None:
            start -= 1
        whole = WORD_RUN.match(text, m.start())
        assert whole is not None  # an escape's characters are a run's
        end = whole.end()
        yield start, end


def hex_runs(text: str) -> Iterator[tuple[int, int]]:
    """The spans of ``HEX_RUN.finditer(text)``, whole runs of 20 or more hex digits: a
    text up to :data:`LONG` is tried only where a Hyperscan scan finds such a run
    (``_prefilter``); a longer one has its runs found in its Latin-1 bytes mapped to one
    byte per class (``bytes.find`` in C, so prose never comes back to Python a word at a
    time), a piece wider than Latin-1 left to the pattern."""
    if len(text) <= LONG:
        yield from (m.span() for m in scan_windows(HEX_RUN).finditer(text))
        return
    for start, end in class_runs(text, _HEX_CLASS, HEX_LEAST):
        if end < 0:  # a piece wider than Latin-1 from ``start`` on
            yield from (m.span() for m in HEX_RUN.finditer(text, start))
            return
        yield start, end


class SpanFinder:
    """The spans of a string: what the rules find in it, and in what it decodes to."""

    rules: list[Rule]
    secret_keys: bool
    #: the rules' spans of texts read again (see :meth:`_rule_spans`), and their length
    _rule_memo: dict[str, Sequence[Span]]
    _rule_memo_size: int
    #: short strings in which the dispatch leaves every rule out, found for many at once
    #: (see ``_batch``)
    _clean: set[str]

    def find(self, text: str, depth: int = 0, note: ViewSuspects | None = None) -> SpanList:
        """Every span of ``text`` a rule, a wrapped token or decoded base64 gives;
        ``note`` reads the views decoded from ``text`` itself for suspects."""
        spans = self._rule_spans(text, depth > 0)
        if "\n" in text:
            spans.extend(self._wrapped_spans(text))
        if depth < MAX_DEPTH and len(text) >= 20:
            spans.extend(self._base64_spans(text, depth, note))
            spans.extend(self._encoded_spans(text, depth, note))
            if len(text) <= MAX_DIFF and _DIFF_MARK in text and DIFF_HUNK.search(text):
                spans.extend(self._diff_spans(text, depth))
        if depth < MAX_DEPTH and len(text) >= 8:  # a disguised short password too
            found = lambda t: self.find(t, depth + 1) + self._json_spans(t, depth + 1)  # noqa: E731
            spans.extend(Span(*s) for s in disguised_spans(text, found, ENCODED_SECRET, note))
        return spans

    def _diff_spans(self, text: str, depth: int) -> list[Span]:
        """A diff's lines read without their ``+``/``-``/`` `` marks: a key or a base64
        block that a diff split over its lines, located in the text as it is."""
        keep = [(m.start(), m.end()) for m in re.finditer(r"(?m)^[+\- ]?([^\n]*\n?)", text)]
        bounds = [
            (start + 1 if text[start : start + 1] in "+- " and start < end else start, end)
            for start, end in keep
        ]
        view = "".join(text[a:b] for a, b in bounds)
        origin = [i for a, b in bounds for i in range(a, b)]
        out: list[Span] = []
        for span in self.find(view, depth + 1):
            if span.end > len(origin) or span.start >= span.end:
                continue
            out.append(
                Span(origin[span.start], origin[span.end - 1] + 1, span.rule, span.confident)
            )
        return out

    def _encoded_spans(self, text: str, depth: int, note: ViewSuspects | None = None) -> list[Span]:
        """Percent- and hex-encoded runs whose decoded text holds anything the rules find."""
        out: list[Span] = []
        if "%" in text:
            for start, end in percent_runs(text):
                if end - start > WINDOW:  # decoded a window at a time, never whole
                    if self._windows_hold(text, start, end, 3, _unpercent, depth):
                        out.append(Span(start, end, ENCODED_SECRET, True))
                    continue
                decoded = urllib.parse.unquote(text[start:end], errors="replace")
                if self.find(decoded, depth + 1) or self._json_spans(decoded, depth + 1):
                    out.append(Span(start, end, ENCODED_SECRET, True))
                elif note is not None:
                    note.blob(start, end, decoded)
        hexed = run(HEX_CHARS, HEX_LEAST).in_text(text) if len(text) > SHORT else True
        for start, end in hex_runs(text) if hexed else ():
            if (end - start) % 2:
                continue  # not whole bytes
            if end - start > WINDOW:
                if self._windows_hold(text, start, end, 2, _unhex, depth):
                    out.append(Span(start, end, ENCODED_SECRET, True))
                continue
            try:
                decoded = bytes.fromhex(text[start:end]).decode("utf-8")
            except ValueError:
                continue
            if not _printable(decoded):
                continue
            if self.find(decoded, depth + 1) or self._json_spans(decoded, depth + 1):
                out.append(Span(start, end, ENCODED_SECRET, True))
            elif note is not None:
                note.blob(start, end, decoded)
        return out

    def _windows_hold(
        self, text: str, start: int, end: int, align: int, decode: _Decode, depth: int
    ) -> bool:
        """Whether a long encoded run's decoded text holds anything the rules find, read
        a window at a time (a run that is not all text holds nothing, as a short one)."""
        bounds = list(windows(start, end, align))
        for i, (a, b) in enumerate(bounds):
            piece = decode(text[a:b], i == 0, i == len(bounds) - 1)
            if piece is None:
                return False
            if self.find(piece, depth + 1) or self._json_spans(piece, depth + 1):
                return True
        return False

    def _rule_spans(self, text: str, again: bool = False) -> SpanList:
        """What the rules find in ``text``; ``again``: a text that may be read again (a
        window around a wrapped line's break, a decoded or undisguised view: the same
        lines recur in many texts), remembered while it is short."""
        if text in self._clean:
            return SpanList()
        if again and len(text) <= _REMEMBERED_LONGEST:
            memo = self._rule_memo
            known = memo.get(text)
            if known is None:
                known = memo[text] = held(self._rule_spans(text))
                self._rule_memo_size += len(text)
                if self._rule_memo_size > _REMEMBERED_CHARS:
                    memo.clear()
                    self._rule_memo_size = 0
            return SpanList(known)
        out = SpanList()
        # no copy of a long text; nor of a long non-ASCII one, which ``lower`` builds in a
        # buffer of 12 bytes a character
        short = len(text) <= LONG and (len(text) <= PIECE or text.isascii())
        low = text.lower() if short else None
        presence, alive = dispatch(self.rules, text, low)
        # a value found again (by another rule, or further on) is judged once
        judged: dict[tuple[object, str], bool] = {}
        for rule in alive:
            test = rule.confident
            for start, end in rule.spans(text, low, presence):
                if isinstance(test, bool) or end - start > _JUDGED_LONGEST:
                    out.append(Span(start, end, rule, rule.is_confident(text[start:end])))
                    continue
                value = text[start:end]
                confident = judged.get((test, value))
                if confident is None:
                    confident = judged[test, value] = rule.is_confident(value)
                out.append(Span(start, end, rule, confident))
        return out

    def _wrapped_spans(self, text: str) -> list[Span]:
        """Tokens broken by a plain line break: the rules run on the lines joined, and a
        match that crosses a join is a span of the text as it is, the break included."""
        joins: list[tuple[int, int]] = []
        for m in scan_windows(_WRAP_TAILED).finditer(text):  # tried only at its scan's hits
            # the line before the break ends in a token character (``WRAP``'s
            # lookbehind), not in ``\r``: it is ``text[line_start:at]``
            at = m.start()
            line_start = text.rfind("\n", 0, at) + 1
            if at - line_start < 20 or not _TAIL.fullmatch(text, at - _TAIL_LEAST, at):
                continue  # ``TAIL_RUN`` ends the line where its last characters are a run
            indent = m.end() - at - (2 if text[at] == "\r" else 1)
            if indent:
                before = text[line_start:at]
                if len(before) - len(before.lstrip(" \t")) != indent or len(before) - indent < 40:
                    continue  # an indented line goes on a wrapped one only at its indent
            head = HEAD_RUN.match(text, m.end())
            if head is None:
                continue
            rest = text[head.end() : head.end() + 2]
            if rest[:1] == ":" or (rest[:1] == "=" and rest[1:2] not in ("", "=", "\n", "\r")):
                continue  # the next line is ``NAME=...`` or ``name: ...``: not a wrap
            joins.append(m.span())
        out: list[Span] = []
        for group in nearby(joins):
            # the rules run on a window around the breaks only: a match that crosses a
            # break lies within a token's length of it
            first, last = max(0, group[0][0] - WRAP_WINDOW), group[-1][1] + WRAP_WINDOW
            ends = [*(start for start, _ in group), min(len(text), last)]
            bounds = list(zip([first, *(end for _, end in group)], ends, strict=True))
            joined = "".join(text[start:end] for start, end in bounds)
            # where each piece starts in ``joined``: a joined offset's place in the text
            offsets = list(itertools.accumulate((end - start for start, end in bounds), initial=0))
            for span in self._rule_spans(joined, True):
                start = _origin(bounds, offsets, span.start)
                end = _origin(bounds, offsets, span.end - 1)
                if end - start == span.end - 1 - span.start:
                    continue  # no break inside: the rules found it in the text as it is
                value = joined[span.start : span.end]
                out.append(Span(start, end + 1, span.rule, span.confident, value))
        return out

    def _base64_spans(self, text: str, depth: int, note: ViewSuspects | None = None) -> list[Span]:
        """Base64 whose decoded text holds anything the rules find (a ``.env`` encoded)."""
        out: list[Span] = []
        if len(text) <= LONG and not _BASE64_LEAST.in_text(text):
            return out  # a longer text's runs are found in C (``base64_runs``)
        for start, end in base64_runs(text):
            if end - start > WINDOW:  # decoded a window at a time, never whole
                rule = self._long_base64(text, start, end, depth)
                if rule is not None:
                    out.append(Span(start, end, rule, True))
                continue
            blob = base64_blob(text[start:end])
            if blob is None:
                continue
            try:
                head = base64.b64decode(blob[:PREFIX], validate=True)
            except ValueError:
                continue
            if self.secret_keys and key_material(head[:48]):
                out.append(Span(start, end, KEY_MATERIAL, True))
                continue
            if not text_prefix(head):
                continue  # binary (an image, a random blob): decoded no further
            try:
                raw = base64.b64decode(blob, validate=True) if len(blob) > PREFIX else head
            except ValueError:
                continue
            try:
                decoded = raw.decode("utf-8")
            except UnicodeDecodeError:
                continue
            if len(decoded) < 8 or not _printable(decoded):
                continue
            if self.find(decoded, depth + 1) or self._json_spans(decoded, depth + 1):
                out.append(Span(start, end, BASE64_SECRET, True))
            elif note is not None:
                note.blob(start, end, decoded)
        return out

    def _long_base64(self, text: str, start: int, end: int, depth: int) -> Rule | None:
        """:meth:`_base64_spans` of a run too long to decode whole: a window at a time,
        each cut at a 4-character group of the base64 (line breaks not counted)."""
        if not base64_whole(text, start, end):
            return None
        wrapped = text.find("\n", start, end) >= 0 or text.find("\r", start, end) >= 0
        bounds = list(windows(start, end, 4))
        before, at = 0, start  # base64 characters before the window, and where it starts
        for i, (a, b) in enumerate(bounds):
            chunk = text[a:b]
            if wrapped:
                before += a - at - text.count("\n", at, a) - text.count("\r", at, a)
                at = a
                chunk = chunk.replace("\r", "").replace("\n", "")[-before % 4 :]
                chunk = chunk[: len(chunk) - len(chunk) % 4]
            try:
                raw = base64.b64decode(chunk, validate=True)
            except ValueError:
                return None
            if i == 0 and self.secret_keys and key_material(raw[:48]):
                return KEY_MATERIAL
            piece = utf8_window(raw, i == 0, i == len(bounds) - 1)
            if piece is None or not _printable(piece):
                return None  # binary (an image, a random blob): decoded no further
            if self.find(piece, depth + 1) or self._json_spans(piece, depth + 1):
                return BASE64_SECRET
        return None

    def _json_spans(self, text: str, depth: int) -> Sequence[Span]:
        """A string that is JSON, read as JSON: values under secret keys, and what the
        rules find in its strings once unescaped, located in the text as written."""
        if not self.secret_keys or depth > MAX_DEPTH:
            return []
        head = text.lstrip()[:1]
        if head not in ("{", "[") or len(text) < 8:
            return []
        try:
            obj = orjson.loads(text)
        except orjson.JSONDecodeError:
            return []
        if not isinstance(obj, dict | list):
            return []
        # each distinct finding is looked for once (a list of thousands of records holds
        # the same secret in each: one search of the text finds them all)
        found: Findings = {}
        for value, rule, confident, quoted in self._embedded(obj, False, depth):
            found.setdefault((value, id(rule), confident, quoted), rule)
        del obj
        return findings_spans(text, found)

    def _embedded(
        self, obj: Any, secret: bool, depth: int
    ) -> Iterator[tuple[str, Rule, bool, str | None]]:
        """(value, rule, confident, how it is bounded) for each secret in parsed JSON."""
        if isinstance(obj, str):
            if secret and not structural_stand_in(obj):
                yield obj, SECRET_FIELD, strongly_random(obj), "string"
            for span in self.find(obj, depth) + self._json_spans(obj, depth + 1):
                yield obj[span.start : span.end], span.rule, span.confident, None
        elif isinstance(obj, bool) or obj is None:
            return
        elif isinstance(obj, int | float):
            if secret:
                yield json.dumps(obj), SECRET_FIELD, False, "number"
        elif isinstance(obj, dict):
            pair = named_pair(obj)
            for key, value in obj.items():
                for span in self.find(key, depth):
                    yield key[span.start : span.end], span.rule, span.confident, None
                inner = secret or secret_under(key, value) or (pair and key == "value")
                yield from self._embedded(value, inner, depth)
        elif isinstance(obj, list):
            for value in obj:
                yield from self._embedded(value, secret, depth)

    def _literal_spans(self, text: str, depth: int) -> SpanList:
        """JSON string literals inside text, unescaped and read: a key a log line's JSON
        wrapped (``\\n``), a password behind escaped quotes; located by their escaped form."""
        out = SpanList()
        if depth > MAX_DEPTH or "\\" not in text:
            return out
        for m in _ESCAPED_LITERAL.finditer(text):
            if "\\" not in m.group(0):
                continue
            try:
                decoded = json.loads(m.group(0))
            except ValueError:
                continue
            if not isinstance(decoded, str):
                continue
            # each form searched once: a value found in every record of a long literal
            # would be searched for, and found everywhere, once per record. Each
            # finder's spans are let go before the next's are made (a span a record)
            forms: dict[tuple[str, Rule, bool], None] = {}
            for finder in (self.find, self._json_spans, self._literal_spans):
                for span in finder(decoded, depth + 1):
                    value = decoded[span.start : span.end]
                    for form in {value, *escaped_forms(value)} - {""}:
                        forms[form, span.rule, span.confident] = None
            del decoded
            for form, rule, confident in forms:
                at = re.compile(re.escape(form)).finditer(text, m.start(), m.end())
                out.extend(Span(*f.span(), rule, confident) for f in at)
        return out

    def spans(self, text: str, note: ViewSuspects | None = None) -> SpanList:
        """What is replaced in ``text`` wherever it is (before the file-wide values);
        ``note``: see :meth:`find`."""
        found = self.find(text, 0, note)
        found.extend(self._json_spans(text, 0))
        literal = self._literal_spans(text, 0)
        if literal:  # what the rules found in the text as it is, found again: kept once
            found.extend(not_in(literal, found))
        return found


#: a text read again is remembered up to this long, and this many characters of them
#: (held beside the line being redacted, whatever its size: a line of a few MB of
#: records, a window around each, would otherwise hold a line's worth of them)
_REMEMBERED_LONGEST = 4096
#: the longest value whose judgement (``Rule.is_confident``) a text's rules share
_JUDGED_LONGEST = 256
_REMEMBERED_CHARS = 1 << 18


def _origin(bounds: list[tuple[int, int]], offsets: list[int], at: int) -> int:
    """Where ``at`` of the pieces ``bounds`` of a text joined (each starting at its
    ``offsets`` entry) stands in the text."""
    k = bisect.bisect_right(offsets, at) - 1
    return bounds[k][0] + at - offsets[k]


#: decodes a window of an encoded run (the window, whether it is the first, the last) to
#: text; None when it is not text
_Decode = Callable[[str, bool, bool], str | None]


def _printable(text: str) -> bool:
    return all(c.isprintable() or c in "\n\r\t" for c in text)


#: how much percent-encoded text ``unquote`` is given at a time (it splits its input at
#: every ``%`` into objects many times the input's size)
_UNQUOTE_PIECE = 1 << 14


def _unpercent(window: str, first: bool, last: bool) -> str | None:
    """The window decoded a piece at a time, each cut before a ``%`` that starts a
    character (so no character is cut in two)."""
    parts: list[str] = []
    at = 0
    while at < len(window):
        cut = min(len(window), at + _UNQUOTE_PIECE)
        if cut < len(window):
            back = window.rfind("%", at + 1, cut)
            while back > at and not _char_start(window, back):
                back = window.rfind("%", at + 1, back)
            cut = back if back > at else cut
        parts.append(urllib.parse.unquote(window[at:cut], errors="replace"))
        at = cut
    return "".join(parts)


def _char_start(text: str, at: int) -> bool:
    """Whether the ``%XX`` at ``at`` is an ASCII byte or the first byte of a character."""
    try:
        byte = int(text[at + 1 : at + 3], 16)
    except ValueError:
        return True
    return byte < 0x80 or byte >= 0xC0


def _unhex(window: str, first: bool, last: bool) -> str | None:
    try:
        raw = bytes.fromhex(window)
    except ValueError:
        return None
    text = utf8_window(raw, first, last)
    return text if text is not None and _printable(text) else None
