"""Redact one long JSON line as a stream of its values, without the line's object tree.

Why: a line of many small values (a tool's output of thousands of short strings, a long
list of records) costs many times its size once parsed into Python objects, and the
redacted copy of that tree as much again. The stream walk reads the line's bytes left to
right instead. A value that spans at most :data:`SMALL` bytes is parsed alone and walked
by the :class:`~._scrub.Scrubber` as a tree; a longer string is decoded alone (narrowed
where it holds emoji, ``_narrow.py``); a longer list or object is entered, one frame on
a stack (no recursion, at any depth). Objects are read twice: once for the members that
tell about the others (``type``, ``kty``, a pair's ``name``...: see
:meth:`Scrubber.plan`), then walked.

What it writes is what ``orjson.dumps`` writes of the tree the Scrubber would return:
compact, with orjson's escapes, one piece at a time; a value orjson refuses for a number
past a double's range is read as the tree walk reads it (``_past_double.py``). A line it
cannot vouch for (not one JSON value, a repeated key, nested deeper than
:data:`MAX_DEPTH`, other text orjson refuses) raises :class:`NotStreamable`, and the
caller walks the line's tree as before.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from . import _apart
from ._entry_fields import IMAGE, KEEP, join
from ._find import SECRET_FIELD
from ._json_bytes import SCALAR_TEXT, SPACE, STRING, STRING_TEXT, TOLD, narrowed_under
from ._key_count import quoted_key_count
from ._narrow import LongText
from ._past_double import read_refused
from ._scrub import Hit, Hits, Scrubber
from ._shell import RepeatedKey, Shell
from ._whole_secret import Piece, whole_placeholder
from ._whole_secret_bytes import counted_over, stream_pieces

#: a text longer than this has its keys counted by its quotes (``raw_key_count``)
_COUNTED = 1 << 16
#: a quote that blanks and a colon follow: where each key a JSON text writes ends (or an
#: escaped quote, or a string that starts with a colon begins). A text writes at least
#: the keys its parsed value holds, and at most as many as this finds: when that is the
#: value's count, no key is repeated, and the text's strings need not be read one by one
_KEY_END = re.compile(rb'"[ \t\r\n]*+:')
#: a value spanning at most this many bytes is parsed and walked as a tree
SMALL = 1 << 14
#: how deep a line may nest to be streamed: orjson writes 255 levels, and a line deeper
#: than ``load()`` keeps is cut as it cuts, by the tree walk
MAX_DEPTH = 200
#: how much of a long string is encoded at a time
PIECE = 1 << 16

#: a JSON string literal, and the colon after it when it is a key (a string value that
#: starts with ":" is no key: the literal is read whole before the colon is looked at)
_KEYED_STRING = re.compile(STRING_TEXT + rb"[ \t\r\n]*+(:?)", re.DOTALL)
_SCALAR = re.compile(SCALAR_TEXT)
#: how many strings and scalars of a list are parsed at once
RUN = 256
#: how many commas from the end of a list's next SMALL bytes are tried as the end of a
#: run of items (see ``StreamWalk._small_run``)
_CUTS = 4
_ITEM = rb"(?:" + STRING_TEXT + rb"|" + SCALAR_TEXT + rb")"
#: a run of strings and scalars in a list, ending before a comma
_FLAT_RUN = re.compile(
    _ITEM + rb"(?:[ \t\r\n]*+,[ \t\r\n]*+" + _ITEM + rb"){0,%d}+" % (RUN - 1), re.DOTALL
)
#: what lies between brackets: anything but a bracket or a quote, and whole strings
_BETWEEN = re.compile(rb'(?:[^"\[\]{}]++|' + STRING_TEXT + rb")*+", re.DOTALL)
_QUOTE, _COLON, _COMMA = ord('"'), ord(":"), ord(",")
_OPEN = {ord("{"): ord("}"), ord("["): ord("]")}
#: a string longer than this (in bytes) is narrowed where it has emoji in it
NARROWED = 1 << 16
#: the value of a member no plan reads (a list, an object, a string of another key)
_UNREAD = object()

Write = Callable[[bytes], object]


class NotStreamable(Exception):
    """The line is not one JSON value that the stream walk can vouch for."""

    def __init__(self, why: str = "not one JSON value it can vouch for") -> None:
        super().__init__(f"the stream walk cannot take this line: {why}")


@dataclass(slots=True)
class _Frame:
    """A list or an object being walked: where it is, and how far."""

    shell: dict[str, Any] | None  # an object's keys (and the values plans read); None: a list
    context: tuple[bool, bool]
    where: str
    path: str
    secret: bool
    close: int
    count: int = 0
    taken: set[str] = field(default_factory=set)


class StreamWalk:
    """One walk of ``buf[start:end]`` (a line's JSON): learn (``hits`` None) or redact,
    writing the redacted line to ``write`` when given."""

    def __init__(
        self,
        scrubber: Scrubber,
        buf: bytes | bytearray,
        start: int,
        end: int,
        hits: Hits | None = None,
        write: Write | None = None,
    ) -> None:
        self.scrubber = scrubber
        self.buf = buf
        self.view = memoryview(buf)
        self.start = start
        self.end = end
        self.hits = hits
        self.write = write if write is not None else _discard
        #: nothing is written (pass 1, or a dry run)
        self.learning = write is None
        #: whether anything the line holds changed
        self.changed = False
        #: whether orjson refused a value (a number past a double's range): the tree
        #: walk reads such a line repaired, and writes it anew
        self.repaired = False
        #: the top object's keys and the values plans read (its type and id)
        self.top: dict[str, Any] | None = None
        #: where each long list or object found by a scan ends
        self._ends: dict[int, int] = {}

    # -- reading -------------------------------------------------------------------------
    def _space(self, at: int) -> int:
        m = SPACE.match(self.buf, at, self.end)
        assert m is not None  # matches the empty string
        return m.end()

    def _loads(self, start: int, end: int) -> Any:
        return self._parsed(self.view[start:end])

    def _parsed(self, data: bytes | memoryview) -> Any:
        """``data`` as orjson reads it; refused, as ``_past_double`` does (then repaired)."""
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass  # out of the handler: orjson's error holds the text
        try:
            value = read_refused(data)
        except ValueError as error:
            raise NotStreamable(str(error)) from None
        self.repaired = True
        return value

    def _string_end(self, at: int) -> int:
        """Where the string at ``at`` ends; one with no escape found at ``find``'s speed
        (where ``STRING`` would end it too: no backslash before its next quote)."""
        quote = self.buf.find(b'"', at + 1, self.end)
        if quote != -1 and self.buf.find(b"\\", at + 1, quote) == -1:
            return quote + 1
        m = STRING.match(self.buf, at, self.end)
        if m is None:
            raise NotStreamable("a string without its closing quote")
        return m.end()

    def _container_end(self, at: int, limit: int) -> int | None:
        """Where the list or object at ``at`` ends, or None when it does not close within
        ``limit``; ends of long ones met on the way are kept for later."""
        known = self._ends.get(at)
        if known is not None:
            return known
        opened: list[int] = []
        pos = at
        while True:
            skipped = _BETWEEN.match(self.buf, pos, limit)
            assert skipped is not None  # matches the empty string
            mark = skipped.end()
            if mark >= limit:
                if limit >= self.end:
                    raise NotStreamable("a value that does not end in the line")
                return None
            byte = self.buf[mark]
            if byte == _QUOTE:  # a string that runs past the limit (or is not closed)
                end = self._string_end(mark)
                if end > limit:
                    return None
                pos = end
                continue
            pos = mark + 1
            if byte in _OPEN:
                opened.append(mark)
                continue
            if not opened:
                raise NotStreamable("a close without its open")
            began = opened.pop()
            if pos - began > SMALL:
                self._ends[began] = pos
            if not opened:
                return pos

    def _key(self, at: int) -> tuple[str, int]:
        """The key at ``at`` and where its value starts."""
        if self.buf[at] != _QUOTE:
            raise NotStreamable("a key that is not a string")
        end = self._string_end(at)
        key = self._loads(at, end)
        at = self._space(end)
        if at >= self.end or self.buf[at] != _COLON:
            raise NotStreamable("a key without its colon")
        return key, self._space(at + 1)

    def _next(self, at: int, close: int) -> tuple[int, bool]:
        """After a member: where the next starts, and whether the container closed."""
        at = self._space(at)
        if at >= self.end:
            raise NotStreamable("a list or object that does not close")
        byte = self.buf[at]
        if byte == close:
            return at + 1, True
        if byte != _COMMA:
            raise NotStreamable("members not separated by a comma")
        return self._space(at + 1), False

    def _members(self, at: int) -> Iterator[tuple[str, int, int]]:
        """Each member of the object at ``at``: its key, where its value starts and ends."""
        at = self._space(at + 1)
        if at < self.end and self.buf[at] == ord("}"):
            return
        while True:
            key, at = self._key(at)
            byte = self.buf[at] if at < self.end else -1
            if byte == _QUOTE:
                end = self._string_end(at)
            elif byte in _OPEN:
                found = self._container_end(at, self.end)
                assert found is not None  # not limited: raises when it does not close
                end = found
            else:
                end = self._scalar_end(at)
            yield key, at, end
            at, closed = self._next(end, ord("}"))
            if closed:
                return

    def _shell(self, at: int) -> Shell:
        """The object at ``at``: the values plans read (a container's as ``_UNREAD``),
        and its keys (see ``_shell.py``)."""
        # the keys are read again by a walk of their own: a shell that held this walk
        # (which holds the shell of its top object) would keep the line alive in a cycle
        scrubber, buf, start, end = self.scrubber, self.buf, self.start, self.end
        shell = Shell(
            lambda: (key for key, _, _ in StreamWalk(scrubber, buf, start, end)._members(at))
        )
        hashes = array("q")
        for key, value_at, value_end in self._members(at):
            hashes.append(hash(key))
            if key in TOLD:
                if dict.__contains__(shell, key):
                    raise NotStreamable("a repeated key")
                container = self.buf[value_at] in _OPEN
                shell[key] = _UNREAD if container else self._loads(value_at, value_end)
        try:
            shell.seal(hashes)
        except RepeatedKey:
            raise NotStreamable("a repeated key") from None
        return shell

    def _scalar_end(self, at: int) -> int:
        m = _SCALAR.match(self.buf, at, self.end)
        if m is None:
            raise NotStreamable("a value JSON does not allow")
        return m.end()

    def _read(
        self,
        at: int,
        depth: int,
        key: str | int | None = None,
        obj: dict[str, Any] | None = None,
    ) -> tuple[Any, int | None]:
        """The value at ``at`` and where it ends; for a long list or object an empty one
        of its kind and None (it is walked as a stream). A long string under ``key`` (a
        list's item: its index) of the object ``obj`` is narrowed where that holds it in
        less and the walk reads it only through the finders (a ``LongText``: see
        ``_narrow.py``)."""
        byte = self.buf[at] if at < self.end else -1
        if byte == _QUOTE:
            end = self._string_end(at)
            if key is not None and end - at > NARROWED and narrowed_under(key, obj):
                # in a copy of its UTF-8: the line's own bytes are written where it is kept
                text = _apart.narrowed_copy(self.view, at + 1, end - 1)
                if text is not None:
                    return LongText(text), end
            return self._loads(at, end), end
        if byte in _OPEN:
            found = self._container_end(at, min(self.end, at + SMALL))
            if found is None or found - at > SMALL:
                return ({} if byte == ord("{") else []), None
            value = self._loads(at, found)
            self._check(value, at, found, depth)
            return value, found
        end = self._scalar_end(at)
        return self._loads(at, end), end

    def _check(self, value: Any, start: int, end: int, depth: int) -> None:
        """A value parsed alone holds every key its text writes, and fits the depth."""
        if repeated_keys(value, self.buf[start:end]):
            raise NotStreamable
        brackets = self.buf.count(b"[", start, end) + self.buf.count(b"{", start, end)
        if brackets > MAX_DEPTH - depth and deeper_than(value, MAX_DEPTH - depth):
            raise NotStreamable

    # -- writing ---------------------------------------------------------------------------
    def _emit(self, value: Any) -> None:
        """``value`` written as orjson writes it; nothing made when nothing is written."""
        if self.learning:
            return
        if isinstance(value, str) and len(value) > PIECE:
            self.write(b'"')
            for at in range(0, len(value), PIECE):
                self.write(orjson.dumps(value[at : at + PIECE])[1:-1])
            self.write(b'"')
            return
        self.write(orjson.dumps(value))

    def top_shell(self) -> dict[str, Any] | None:
        """The line's object: its keys, and the values plans read; None for a list."""
        at = self._space(self.start)
        if at >= self.end or self.buf[at] not in _OPEN:
            raise NotStreamable
        return self._shell(at) if self.buf[at] == ord("{") else None

    # -- the walk --------------------------------------------------------------------------
    def run(self) -> bool:
        """Walk the line; whether anything in it changed (or was read repaired: see
        :attr:`repaired`). Raises NotStreamable."""
        at = self._space(self.start)
        byte = self.buf[at] if at < self.end else -1
        if byte not in _OPEN:
            raise NotStreamable
        stack: list[_Frame] = []
        if byte == ord("{"):
            self.top = self._shell(at)
            where = "entry" if isinstance(self.top.get("type"), str) else "data"
            stack.append(self._frame(at, self.top, where, "", False))
        else:
            stack.append(self._frame(at, None, "data", "", False))
        self.write(bytes((byte,)))
        at = self._space(at + 1)
        while stack:
            frame = stack[-1]
            if frame.count == 0 and at < self.end and self.buf[at] == frame.close:
                at = self._pop(stack, at + 1)
                continue
            if frame.shell is not None:
                inner, end = self._member(frame, at, len(stack))
            else:
                inner, end = self._item(frame, at, len(stack))
            if inner is not None:  # a long list or object: entered
                stack.append(inner)
                at = self._space(end)
                continue
            at, closed = self._next(end, frame.close)
            if closed:
                at = self._pop(stack, at)
        if self._space(at) != self.end:
            raise NotStreamable  # more than one value on the line
        return self.changed or self.repaired

    def _pop(self, stack: list[_Frame], at: int) -> int:
        frame = stack.pop()
        self.write(bytes((frame.close,)))
        if not stack:
            return at
        at, closed = self._next(at, stack[-1].close)
        while closed:
            frame = stack.pop()
            self.write(bytes((frame.close,)))
            if not stack:
                return at
            at, closed = self._next(at, stack[-1].close)
        return at

    def _frame(
        self, at: int, shell: dict[str, Any] | None, where: str, path: str, secret: bool
    ) -> _Frame:
        context = self.scrubber.object_context(shell) if shell is not None else (False, False)
        return _Frame(shell, context, where, path, secret, _OPEN[self.buf[at]])

    def _enter(
        self, at: int, where: str, path: str, secret: bool, depth: int
    ) -> tuple[_Frame, int]:
        """The frame of the long list or object at ``at``, and where its first member is."""
        if depth >= MAX_DEPTH:
            raise NotStreamable
        shell = self._shell(at) if self.buf[at] == ord("{") else None
        self.write(bytes((self.buf[at],)))
        return self._frame(at, shell, where, path, secret), at + 1

    def _whole(self, at: int, path: str, depth: int) -> int | None:
        """The long list or object at ``at`` under a secret's key, replaced whole where it
        holds more than ``LIMIT`` values (``_whole_secret``): where it ends; None when it
        is entered instead."""
        end = self._container_end(at, self.end)
        assert end is not None  # not limited: raises when it does not close
        try:
            if not counted_over(self.buf, at, end):
                return None
        except ValueError as error:
            raise NotStreamable(str(error)) from None
        pieces = _vouched(stream_pieces(self.buf, at, end, MAX_DEPTH - depth, self._parsed))
        placeholder = whole_placeholder(self.scrubber, pieces, path, self.hits is None)
        if self.hits is not None:
            self.hits.append(Hit(path, SECRET_FIELD.name, placeholder))
            self.changed = True
            self._emit(placeholder)
        return end

    def _member(self, frame: _Frame, at: int, depth: int) -> tuple[_Frame | None, int]:
        """One member of an object walked and written: the frame of its value when that is
        entered, and where the member ends (or the value's first member starts)."""
        assert frame.shell is not None
        key, at = self._key(at)
        value, end = self._read(at, depth, key, frame.shell)
        new_key, how, child, child_where, inner = self.scrubber.plan(
            frame.shell, frame.context, key, value, frame.where, frame.path,
            frame.secret, self.hits, frame.taken,
        )  # fmt: skip
        if new_key != key:  # an unchanged key is in the shell: only a new one is kept
            frame.taken.add(new_key)
            self.changed = True
        if not self.learning:
            self.write((b"," if frame.count else b"") + orjson.dumps(new_key) + b":")
        frame.count += 1
        if end is None:
            if how == KEEP:  # a long value the format keeps: copied as a tree
                found = self._container_end(at, self.end)
                assert found is not None
                kept = self._loads(at, found)
                self._check(kept, at, found, depth)
                self._emit(kept)
                return None, found
            whole = self._whole(at, child, depth) if inner and how != IMAGE else None
            if whole is not None:
                return None, whole
            return self._enter(at, child_where, child, inner, depth)
        if how == IMAGE:
            new = self.scrubber._image_data(frame.shell, value, child, self.hits)
        elif how == KEEP:
            new = value
        else:
            new = self.scrubber._walk(value, child_where, child, inner, self.hits)
        self.changed = self.changed or new is not value
        self._emit(new)
        return None, end

    def _item(self, frame: _Frame, at: int, depth: int) -> tuple[_Frame | None, int]:
        """Items of a list walked and written (see :meth:`_member`): a run of strings and
        scalars is parsed as one list (up to :data:`RUN` items), a list or an object
        alone."""
        inner = "block" if frame.where == "content" else "data"
        # read within NARROWED bytes (a longer string, perhaps narrowed, is read alone),
        # never past them: a run of long items is not read whole to be let go
        run = _FLAT_RUN.match(self.buf, at, min(self.end, at + NARROWED))
        if run is not None and not self._run_ends(run.end(), frame.close):
            run = None  # its last item cut at the limit (a number's digits), or no JSON
        found = (run.end(), None) if run is not None else self._small_run(at, depth)
        if found is None:
            value, end = self._read(at, depth, frame.count)
            path = join(frame.path, frame.count)
            if frame.count:
                self.write(b",")
            frame.count += 1
            if end is None:
                whole = self._whole(at, path, depth) if frame.secret else None
                if whole is not None:
                    return None, whole
                return self._enter(at, inner, path, frame.secret, depth)
            new = self.scrubber._walk(value, inner, path, frame.secret, self.hits)
            self.changed = self.changed or new is not value
            self._emit(new)
            return None, end
        end, parsed = found
        values = self._loads_run(at, end) if parsed is None else parsed
        first, walk, hits = frame.count == 0, self.scrubber._walk, self.hits
        for i, value in enumerate(values):
            new = walk(value, inner, join(frame.path, frame.count + i), frame.secret, hits)
            if new is not value:
                self.changed = True
                values[i] = new
        frame.count += len(values)
        if not self.learning:
            self.write((b"" if first else b",") + orjson.dumps(values)[1:-1])
        return None, end

    def _run_ends(self, at: int, close: int) -> bool:
        """Whether a list's items end at ``at``: a comma or the list's close follows."""
        at = self._space(at)
        return at < self.end and self.buf[at] in (_COMMA, close)

    def _small_run(self, at: int, depth: int) -> tuple[int, list[Any]] | None:
        """Items of a list from ``at`` that span up to :data:`SMALL` bytes, parsed as one
        list, and where they end (before a comma); None when no such run is found.

        Why it needs no scan: the items' text cut at a comma and put in brackets parses
        only when the comma stands between items (a cut inside a string or a nested list
        or object leaves one open), so a few commas from the end are tried."""
        stop = min(self.end, at + SMALL)
        close = _OPEN.get(self.buf[at])
        search = stop
        for _ in range(_CUTS):
            if close is not None:  # a list of lists or objects: a comma after a closer
                mark = self.buf.rfind(bytes((close,)), at, search)
                if mark <= at:
                    return None
                search = mark
                cut = self._space(mark + 1)
                if cut >= self.end or self.buf[cut] != _COMMA:
                    continue
            else:
                cut = self.buf.rfind(b",", at, search)
                if cut <= at:
                    return None
                search = cut
            try:
                values = orjson.loads(b"[" + self.buf[at:cut] + b"]")
            except orjson.JSONDecodeError:
                continue
            if not isinstance(values, list) or len(values) < 2:
                return None
            self._check(values, at, cut, depth - 1)
            return cut, values
        return None

    def _loads_run(self, start: int, end: int) -> list[Any]:
        values = self._parsed(b"[" + self.buf[start:end] + b"]")
        assert isinstance(values, list)
        return values


def _vouched(pieces: Iterator[Piece]) -> Iterator[Piece]:
    """``pieces``, what they cannot vouch for raised as NotStreamable."""
    try:
        yield from pieces
    except ValueError as error:
        raise NotStreamable(str(error)) from None


def _discard(piece: bytes) -> None:
    """Where a learning walk writes: nowhere."""


def repeated_keys(value: Any, text: bytes | bytearray) -> bool:
    """Whether the JSON ``text`` writes more keys than its parsed ``value`` holds (a key
    repeated: the parser kept its last value)."""
    if not isinstance(value, dict | list):
        return False
    count = key_count(value)
    if len(text) <= _COUNTED and len(_KEY_END.findall(text)) == count:
        return False  # see ``_KEY_END``
    return count != raw_key_count(text)


def raw_key_count(body: bytes | bytearray) -> int:
    """How many keys the JSON text ``body`` writes (a repeated one each time); a long
    text's by its quotes (see ``_key_count``)."""
    if len(body) > _COUNTED:
        return quoted_key_count(body)
    return _KEYED_STRING.findall(body).count(b":")  # the colons alone, no match objects


def key_count(obj: Any) -> int:
    """How many object keys ``obj`` holds, at every depth."""
    count = 0
    stack = [obj]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            count += len(node)
            stack.extend(v for v in node.values() if isinstance(v, dict | list))
        elif isinstance(node, list):
            stack.extend(v for v in node if isinstance(v, dict | list))
    return count


def deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value`` nests more than ``limit`` lists and objects (walked without
    recursion)."""
    stack = [(value, 1)] if isinstance(value, dict | list) else []
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        children = node.values() if isinstance(node, dict) else node
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))
    return False
