"""JSON held in a long string, read as a stream of its values instead of a parsed tree.

Why: a string that holds JSON (a tool's output of thousands of records) is read as JSON
for the values under secret keys (``SpanFinder._json_spans``). Parsed into Python
objects it costs many times its size, on top of the string. A string longer than
:data:`LONG_JSON` is read here instead, with the stream walk's readers
(``_stream.py``): a value spanning up to 16 KB is parsed alone and read as a tree
(``SpanFinder._embedded``); a longer list or object is entered, one frame on a stack.
What it yields, in the same order, is what ``_embedded`` yields of the parsed text, so
the spans found are the same; a text it cannot vouch for is parsed as before.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from ._find import MAX_DEPTH
from ._findings import Findings, findings_spans
from ._long_scrub import LongTextScrubber
from ._rule import Rule
from ._scrub import Scrubber
from ._span_list import Span
from ._stream import _FLAT_RUN, _OPEN, NotStreamable, StreamWalk
from ._values import named_pair, secret_under

#: a string longer than this that holds JSON is read as a stream
LONG_JSON = 1 << 16

#: (value, rule, whether confident, how it is bounded) as ``SpanFinder._embedded`` yields
Finding = tuple[str, Rule, bool, str | None]


class StreamScrubber(LongTextScrubber):
    """The scrubber, reading JSON held in a long string as a stream (and a long text
    with emoji narrowed, ``_long_scrub.py``)."""

    def _json_spans(self, text: str, depth: int) -> Sequence[Span]:
        if len(text) <= LONG_JSON or not self.secret_keys or depth > MAX_DEPTH:
            return super()._json_spans(text, depth)
        if text.lstrip()[:1] not in ("{", "["):
            return []
        try:
            buf = text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: orjson refuses the text too
            return super()._json_spans(text, depth)
        found: Findings = {}
        try:
            for value, rule, confident, quoted in embedded(self, buf, depth):
                found.setdefault((value, id(rule), confident, quoted), rule)
        except NotStreamable:
            return super()._json_spans(text, depth)
        del buf
        return findings_spans(text, found)


def embedded(finder: Scrubber, buf: bytes, depth: int) -> Iterator[Finding]:
    """What ``finder._embedded`` yields of the JSON text ``buf``, read as a stream.
    Raises NotStreamable (perhaps after yielding some) when ``buf`` is not one JSON list
    or object that the stream walk can vouch for."""
    walk = StreamWalk(finder, buf, 0, len(buf))
    at = walk._space(0)
    if at >= len(buf) or buf[at] not in _OPEN:
        raise NotStreamable
    # a frame: the object's keys (None for a list), whether it is a name/value pair,
    # whether its values are secrets, its closing byte, how many members so far
    stack: list[tuple[dict[str, Any] | None, bool, bool, int, list[int]]] = []
    stack.append(_frame(walk, at, False))
    at = walk._space(at + 1)
    while stack:
        shell, pair, secret, close, count = stack[-1]
        if count[0] == 0 and at < len(buf) and buf[at] == close:
            at = _closed(walk, stack, at + 1)
            continue
        count[0] += 1
        if shell is not None:
            key, at = walk._key(at)
            for span in finder.find(key, depth):
                yield key[span.start : span.end], span.rule, span.confident, None
            value, end = walk._read(at, len(stack))
            inner = secret or secret_under(key, value) or (pair and key == "value")
        else:
            run = _FLAT_RUN.match(buf, at, len(buf))
            if run is not None:
                for item in walk._loads_run(at, run.end()):
                    yield from finder._embedded(item, secret, depth)
                at, closed = walk._next(run.end(), close)
                if closed:
                    at = _closed(walk, stack, at)
                continue
            value, end = walk._read(at, len(stack))
            inner = secret
        if end is None:  # a long list or object: entered
            if len(stack) >= 200:
                raise NotStreamable
            stack.append(_frame(walk, at, inner))
            at = walk._space(at + 1)
            continue
        yield from finder._embedded(value, inner, depth)
        at, closed = walk._next(end, close)
        if closed:
            at = _closed(walk, stack, at)
    # a number past a double's range read by the lenient parser: orjson refuses the text,
    # and the parsed reading finds nothing in it
    if walk._space(at) != len(buf) or walk.repaired:
        raise NotStreamable


def _frame(
    walk: StreamWalk, at: int, secret: bool
) -> tuple[dict[str, Any] | None, bool, bool, int, list[int]]:
    byte = walk.buf[at]
    shell = walk._shell(at) if byte == ord("{") else None
    pair = shell is not None and named_pair(shell)
    return shell, pair, secret, _OPEN[byte], [0]


def _closed(
    walk: StreamWalk, stack: list[tuple[dict[str, Any] | None, bool, bool, int, list[int]]], at: int
) -> int:
    """Pop the frame that closed at ``at`` and every one that closes right after it."""
    stack.pop()
    while stack:
        at, closed = walk._next(at, stack[-1][3])
        if not closed:
            return at
        stack.pop()
    return at
